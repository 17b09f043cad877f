"""Each route of the paper's equations (3), (5), (7), (10), (11), driven by a scripted model.

Node numbers are the paper's (Fig. 1); every test asserts the exact node sequence of the run.
"""

from __future__ import annotations

import pytest
from ark_helpers import QUESTION, STEP, TWO_STEPS, anchor, answer, reasoning, relation, sample_kg

from arkg.agents.ark import ArkAgent
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.modes import SelectionMode
from arkg.agents.ark.trace import AnchorAttempt, Cleanup, RelationAttempt, StopReason
from arkg.graph.model import Direction
from arkg.llm.scripted import ScriptedModel

FREE = ArkSettings(mode=SelectionMode.FREE)


def run(replies: list, settings: ArkSettings = FREE, kg=None):
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(kg or sample_kg(), model, settings).ask(QUESTION)
    return result, model


def nodes(result) -> list[int]:
    return [int(node) for node in result.trace.nodes]


def test_two_clean_steps_visit_every_node_in_order():
    result, model = run(TWO_STEPS)
    assert nodes(result) == [1] + STEP + STEP + [11]
    assert result.answer is False
    assert result.trace.invalid_attempts == 0
    assert len(model.calls) == len(TWO_STEPS)
    assert result.trace.events[-1].stop_reason is StopReason.DONE


# Eq. (3): invalid anchor -> 3 with feedback; valid -> 5; c >= C_max -> 11


def test_invalid_anchor_returns_to_3_and_the_first_retry_names_the_closest_heads():
    result, model = run([anchor("Yui"), *TWO_STEPS])
    assert nodes(result) == [1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10] + STEP + [11]
    retry_prompt = model.calls[1].messages[-1].content
    assert '"Yui"' in retry_prompt and '"Yui Yuigahama"' in retry_prompt
    # Only head entities are suggested: "dachshund" is a tail only.
    first = result.trace.events[0]
    assert isinstance(first, AnchorAttempt) and not first.valid and "dachshund" not in first.feedback
    assert result.trace.invalid_attempts == 1


def test_c_max_invalid_anchors_end_the_run():
    result, model = run([anchor("Yui"), anchor("Yuuuui"), answer("unknown")], ArkSettings(mode="free", c_max=2))
    assert nodes(result) == [1, 2, 3, 4, 3, 4, 11]
    assert result.answer is None
    assert result.trace.invalid_attempts == 2
    assert result.trace.events[-1].stop_reason is StopReason.C_MAX_ANCHOR
    assert len(model.calls) == 3


def test_an_invalid_anchor_given_twice_ends_the_run_before_c_max():
    result, model = run([anchor("Briston"), anchor("Briston"), answer("unknown")])
    assert nodes(result) == [1, 2, 3, 4, 3, 4, 11]
    assert result.trace.events[-1].stop_reason is StopReason.REPEATED_ANCHOR
    assert result.trace.invalid_attempts == 2
    assert len(model.calls) == 3


def test_retry_repeats_gives_a_repeated_anchor_the_papers_c_max_attempts():
    replies = [anchor("Briston"), anchor("Briston"), *TWO_STEPS]
    result, _ = run(replies, ArkSettings(mode="free", retry_repeats=True))
    assert nodes(result) == [1, 2, 3, 4, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10] + STEP + [11]
    assert result.trace.invalid_attempts == 2


def test_a_valid_anchor_on_the_last_allowed_attempt_goes_through():
    replies = [anchor("Yui"), anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"]), answer()]
    result, _ = run(replies, ArkSettings(mode="free", c_max=2))
    assert nodes(result) == [1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10, 11]


# Eq. (5): R(k) empty -> 3; else -> 6


class RelationsHidden:
    """The sample KG, except that one head reports no relations (as an unreachable endpoint might)."""

    def __init__(self, hidden: str) -> None:
        self.kg = sample_kg()
        self.hidden = hidden

    def __getattr__(self, name: str):
        return getattr(self.kg, name)

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        return [] if entity == self.hidden else self.kg.relations(entity, direction)


def test_anchor_without_relations_returns_to_3_with_feedback():
    replies = [anchor("Sablé"), anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"]), answer()]
    result, model = run(replies, kg=RelationsHidden("Sablé"))
    assert nodes(result) == [1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert '"Sablé" has no relations' in model.calls[1].messages[-1].content


def test_an_anchor_with_nothing_left_to_follow_cannot_loop_past_the_anchor_budget():
    """A model that keeps naming an anchor whose one relation it has followed: without the bound, the
    run would go 3 -> 4 -> 5 -> 3 for ever (a free-mode model at T=0 repeats itself)."""
    replies = [anchor("Sablé"), relation("animal breed"), reasoning(["T1"], more=True)] + [anchor("Sablé")] * 2
    result, model = run([*replies, answer("unknown")], ArkSettings(mode="free", c_max=2, edges="out"))
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4, 5, 3, 4, 5, 11]
    assert result.trace.events[-1].stop_reason is StopReason.C_MAX_ANCHOR
    assert 'Every relation of "Sablé" was explored already' in model.calls[-2].messages[-1].content
    assert result.trace.invalid_attempts == 0  # the anchor exists: the attempts were valid, only fruitless


# Eq. (7): r = ∅ -> 4; r ∈ R(k) -> 8; invalid -> 6 with feedback; c >= C_max -> 11


def test_invalid_relation_returns_to_6_and_the_first_retry_names_the_closest_relations():
    replies = [anchor("Yui Yuigahama"), relation("pet"), relation("has pet"), reasoning(["T1"]), answer()]
    result, model = run(replies)
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 6, 7, 8, 9, 10, 11]
    retry_prompt = model.calls[2].messages[-1].content
    assert '"pet" is not a relation of "Yui Yuigahama"' in retry_prompt
    assert retry_prompt.index('"has pet"') < retry_prompt.index("Which relation")
    assert result.trace.invalid_attempts == 1


def test_empty_relation_returns_to_anchor_selection_4():
    replies = [
        anchor("Yui Yuigahama"),
        relation(""),
        anchor("Sablé"),
        relation("animal breed"),
        reasoning(["T1"]),
        answer(),
    ]
    result, model = run(replies)
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11]
    attempt = next(e for e in result.trace.events if isinstance(e, RelationAttempt))
    assert attempt.outcome == "empty"
    assert result.trace.invalid_attempts == 0
    # Node 4 asks again on the same context: no new anchor prompt was added.
    assert model.calls[2].messages[-1].role == "assistant"


def test_c_max_invalid_relations_end_the_run():
    replies = [anchor("Yui Yuigahama"), relation("pet"), relation("pets"), answer("unknown")]
    result, _ = run(replies, ArkSettings(mode="free", c_max=2))
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 6, 7, 11]
    assert result.trace.events[-1].stop_reason is StopReason.C_MAX_RELATION


def test_an_invalid_relation_given_twice_ends_the_run_before_c_max():
    replies = [anchor("Yui Yuigahama"), relation("pet"), relation("pet"), answer("unknown")]
    result, model = run(replies)
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 6, 7, 11]
    assert result.trace.events[-1].stop_reason is StopReason.REPEATED_RELATION
    assert len(model.calls) == 4


def test_a_relation_rejected_at_one_anchor_may_be_tried_once_more_at_the_next():
    """Each anchor opens a new relation decision: its first "pet" is no repeat."""
    replies = [
        anchor("Yui Yuigahama"),
        relation("pet"),
        relation(""),
        anchor("Sablé"),
        relation("pet"),
        relation("animal breed"),
        reasoning(["T1"]),
        answer(),
    ]
    result, _ = run(replies)
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 6, 7, 4, 5, 6, 7, 6, 7, 8, 9, 10, 11]
    assert result.trace.invalid_attempts == 2
    assert result.trace.events[-1].stop_reason is StopReason.DONE


def test_empty_relations_cannot_loop_past_the_anchor_budget():
    replies = [anchor("Yui Yuigahama"), relation(""), anchor("Sablé"), relation(""), answer("unknown")]
    result, _ = run(replies, ArkSettings(mode="free", c_max=2))
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 11]
    assert result.trace.events[-1].stop_reason is StopReason.C_MAX_ANCHOR


# Eq. (10): cited ⊆ T(k) -> 10; else -> 8 (retry starts clean); c >= C_max -> 11


def test_invalid_keys_return_to_8_and_the_retry_starts_clean():
    replies = [
        anchor("Yui Yuigahama"),
        relation("has pet"),
        reasoning(["T7"], "Wrong key."),
        reasoning(["T1"], "Her pet is Sablé."),
        answer(),
    ]
    result, model = run(replies)
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11]
    first, retry = model.calls[2].messages, model.calls[3].messages
    # The failed reply and its prompt are gone; the retry's prompt lists the valid keys.
    assert len(retry) == len(first)
    assert retry[:-1] == first[:-1]
    assert all("T7" not in message.content for message in retry)
    assert "Cite only these keys: T1" in retry[-1].content
    assert result.trace.invalid_attempts == 1
    assert [t["tail"] for t in result.cited_triples] == ["Sablé"]


def test_c_max_invalid_reasoning_steps_end_the_run():
    replies = [anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T7"]), reasoning(["T8"]), answer("unknown")]
    result, _ = run(replies, ArkSettings(mode="free", c_max=2))
    assert nodes(result) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 9, 11]
    assert result.trace.events[-1].stop_reason is StopReason.C_MAX_REASONING
    assert result.cited_triples == []


# Eq. (11): k >= K_max -> 11; continue -> 2; else -> 11


def test_k_max_ends_the_run_even_when_the_model_wants_to_continue():
    replies = [anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"], more=True), answer()]
    result, _ = run(replies, ArkSettings(mode="free", k_max=1))
    assert nodes(result) == [1] + STEP + [11]
    assert result.trace.events[-1].stop_reason is StopReason.K_MAX


@pytest.mark.parametrize("k_max", [2, 3])
def test_continue_flag_starts_a_new_step_until_k_max(k_max):
    steps = [
        [anchor("Yui Yuigahama"), relation(name), reasoning([f"T{number}"], more=True)]
        for number, name in enumerate(["has pet", "occupation", "educated at"][:k_max], start=1)
    ]
    result, model = run([reply for step in steps for reply in step] + [answer()], ArkSettings(mode="free", k_max=k_max))
    assert nodes(result) == [1] + STEP * k_max + [11]
    assert len(model.calls) == 3 * k_max + 1


# Cleanup (node 10): the context is reset to exactly system prompt, question, summary


def test_after_cleanup_the_context_is_system_prompt_question_and_summary():
    result, model = run(TWO_STEPS)
    first_call = model.calls[0].messages
    system, question = first_call[0], first_call[1]
    assert (system.role, question.role) == ("system", "user")
    assert question.content.endswith(QUESTION)

    after_step_1 = model.calls[3].messages  # anchor call of step 2: the reset context + the anchor prompt
    assert after_step_1[:2] == (system, question)
    summary = after_step_1[2]
    assert summary.content == next(e for e in result.trace.events if isinstance(e, Cleanup)).summary
    assert "(Yui Yuigahama, has pet, Sablé)" in summary.content and "Her pet is Sablé." in summary.content
    assert len(after_step_1) == 4 and after_step_1[3].content.startswith("Step 2.")

    final_call = model.calls[-1].messages
    assert final_call[:2] == (system, question) and len(final_call) == 3
    assert "Sablé is a dachshund." in final_call[2].content and "Her pet is Sablé." in final_call[2].content
