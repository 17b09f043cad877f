"""ArkSettings.visit_named_entities: a model that stops before reaching an entity the question names
explores one more step, whose anchor the agent names: that entity, once per entity. An entity reached as
an anchor or in a cited fact needs no step; a model that declines the named anchor's relations picks
another anchor itself."""

from __future__ import annotations

import pytest
from ark_helpers import answer, reasoning, sample_kg

from arkg.agents.ark import ArkAgent
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.ark.trace import AnchorAttempt, Cleanup, StopReason, TriplesRetrieved
from arkg.agents.ark.agent import ANOTHER_ANCHOR
from arkg.agents.ark.view import anchor as anchor_view, cleanup
from arkg.agents.candidates import named_in_question
from arkg.llm.scripted import ScriptedModel

BOTH_PETS = "Do Yui Yuigahama and Yukino Yukinoshita have pets of one breed?"
ON = ArkSettings(visit_named_entities=True)


def _run(question: str, replies: list, settings: ArkSettings = ON):
    model = ScriptedModel.from_replies(replies)
    return ArkAgent(sample_kg(), model, settings).ask(question), model


def test_a_named_entity_not_reached_gets_one_more_step_anchored_on_it() -> None:
    replies = [
        "Yui Yuigahama", "has pet", reasoning(["T1"], "Her pet is Sablé."),
        "has pet", reasoning(["T2"], "Her pet is Kamakura."),  # the anchor of step 2 is the agent's
        answer("no"),
    ]  # fmt: skip
    result, model = _run(BOTH_PETS, replies)
    cleanups = [event for event in result.trace.events if isinstance(event, Cleanup)]
    assert [event.continued_for for event in cleanups] == [["Yukino Yukinoshita"], []]
    anchors = [event for event in result.trace.events if isinstance(event, AnchorAttempt)]
    assert [(event.proposed, event.call is None) for event in anchors] == [("Yui Yuigahama", False), ("Yukino Yukinoshita", True)]
    assert anchors[1].candidates[0] == "Yukino Yukinoshita"
    assert [(event.anchor, event.relation) for event in result.trace.events if isinstance(event, TriplesRetrieved)] == [
        ("Yui Yuigahama", "has pet"),
        ("Yukino Yukinoshita", "has pet"),
    ]
    # The context of step 2's relation choice reads as if the model had named the anchor.
    relation_context = model.calls[3].messages
    assert [message.role for message in relation_context[-3:]] == ["user", "assistant", "user"]
    assert "- Yukino Yukinoshita" in relation_context[-3].content and relation_context[-2].content == "Yukino Yukinoshita"
    assert result.trace.stop_reason == StopReason.DONE.value
    assert len(model.calls) == 6
    assert "the question names Yukino Yukinoshita, not reached yet: one more step" in str(cleanup(cleanups[0]))
    assert "anchor named by the agent" in str(anchor_view(anchors[1]))


def test_a_model_that_declines_the_named_anchor_picks_another() -> None:
    replies = [
        "Yui Yuigahama", "has pet", reasoning(["T1"], "Her pet is Sablé."),
        ANOTHER_ANCHOR, "Sablé", "animal breed", reasoning(["T2"], "Sablé is a dachshund."),
        answer("no"),
    ]  # fmt: skip
    result, model = _run(BOTH_PETS, replies)
    anchors = [event for event in result.trace.events if isinstance(event, AnchorAttempt)]
    assert [(event.step, event.proposed, event.call is None) for event in anchors] == [
        (1, "Yui Yuigahama", False),
        (2, "Yukino Yukinoshita", True),
        (2, "Sablé", False),
    ]
    assert "Yukino Yukinoshita" not in anchors[2].candidates
    # Yukino Yukinoshita had its step: the run ends when the model stops again.
    assert [event.continued_for for event in result.trace.events if isinstance(event, Cleanup)] == [["Yukino Yukinoshita"], []]
    assert len(model.calls) == 8


def test_off_the_run_stops_when_the_model_does() -> None:
    replies = ["Yui Yuigahama", "has pet", reasoning(["T1"], "Her pet is Sablé."), answer("no")]
    result, model = _run(BOTH_PETS, replies, ArkSettings())
    assert [event.continued_for for event in result.trace.events if isinstance(event, Cleanup)] == [[]]
    assert len(model.calls) == 4


def test_at_k_max_no_step_follows_and_none_is_claimed() -> None:
    replies = ["Yui Yuigahama", "has pet", reasoning(["T1"], "Her pet is Sablé."), answer("no")]
    result, model = _run(BOTH_PETS, replies, ArkSettings(visit_named_entities=True, k_max=1))
    assert [event.continued_for for event in result.trace.events if isinstance(event, Cleanup)] == [[]]
    assert len(model.calls) == 4


def test_an_entity_in_a_cited_fact_is_reached() -> None:
    replies = ["Yui Yuigahama", "has pet", reasoning(["T1"], "Her pet is Sablé."), answer("yes")]
    result, model = _run("Is Sablé the pet of Yui Yuigahama?", replies)
    assert [event.continued_for for event in result.trace.events if isinstance(event, Cleanup)] == [[]]
    assert len(model.calls) == 4


@pytest.mark.parametrize(
    ("question", "named"),
    [
        (BOTH_PETS, ["Yui Yuigahama", "Yukino Yukinoshita"]),
        ("Is Sablé Yui Yuigahama's pet?", ["Sablé", "Yui Yuigahama"]),
        ("Did Paris Saint-Germain play in Paris?", ["Paris Saint-Germain", "Paris"]),
        ("Is Paris Saint-Germain a club?", ["Paris Saint-Germain"]),
        ("Is Kamakura a Scottish Fold?", ["Kamakura"]),
    ],
)
def test_named_entities_are_whole_names_in_the_order_the_question_names_them(question: str, named: list[str]) -> None:
    names = {"Yui Yuigahama", "Yukino Yukinoshita", "Sablé", "Paris", "Paris Saint-Germain", "Saint", "Kamakura"}
    assert named_in_question(question, names.__contains__) == named
