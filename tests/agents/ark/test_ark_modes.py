"""Constrained selection, incoming edges, triple keys and caps, answers and the trace, with a scripted model."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from ark_helpers import QUESTION, TWO_STEPS, anchor, answer, reasoning, relation, sample_kg

from arkg.agents.ark.agent import ANOTHER_ANCHOR, ArkAgent
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.run import RunOptions
from arkg.agents.strategy import AnswerKind, Query
from arkg.agents.ark.trace import ArkTrace, Purpose, TriplesRetrieved
from arkg.agents.strategy import Result, Strategy
from arkg.errors import ModelError
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.base import Choice
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel

FREE = ArkSettings(mode=SelectionMode.FREE)
FREE_OUT = ArkSettings(mode=SelectionMode.FREE, edges=EdgeSet.OUT)
CONSTRAINED = ArkSettings(mode=SelectionMode.CONSTRAINED)


def test_constrained_mode_offers_only_valid_candidates():
    replies = [
        "Yui Yuigahama",
        "has pet",
        reasoning(["T1"], "Her pet is Sablé.", more=True),
        "Sablé",
        "animal breed",
        reasoning(["T2"], "Sablé is a dachshund."),
        answer("no"),
    ]
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(sample_kg(), model, CONSTRAINED).ask(QUESTION)

    anchor_options = model.calls[0].output
    assert isinstance(anchor_options, Choice)
    assert anchor_options.options[0] == "Yui Yuigahama"  # named in the question
    assert all(sample_kg().is_head(name) for name in anchor_options.options)
    assert set(model.calls[1].output.options) == {"has pet", "occupation", "educated at", ANOTHER_ANCHOR}
    assert model.calls[1].output.options[0] == "has pet"  # ranked by the question's words
    # Step 2 offers the entity just reached first.
    assert model.calls[3].output.options[0] == "Sablé"
    # Cited keys can only be this step's keys.
    step_2_reasoning = model.calls[5].output
    step_2_reasoning.model_validate(reasoning(["T2"]))
    with pytest.raises(ValidationError):
        step_2_reasoning.model_validate(reasoning(["T1"]))
    assert result.answer is False and result.trace.invalid_attempts == 0


def test_constrained_mode_cannot_cite_a_key_of_another_step():
    model = ScriptedModel.from_replies(["Yui Yuigahama", "has pet", reasoning(["T9"])])
    with pytest.raises(ModelError, match="cited_keys"):
        ArkAgent(sample_kg(), model, CONSTRAINED).ask(QUESTION)


def test_constrained_another_anchor_option_is_the_empty_relation_choice():
    replies = ["Yui Yuigahama", ANOTHER_ANCHOR, "Yukino Yukinoshita", "has pet", reasoning(["T1"]), answer()]
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(sample_kg(), model, CONSTRAINED).ask(QUESTION)
    assert [int(n) for n in result.trace.nodes] == [1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11]
    # The declined anchor is not offered again in this step.
    assert "Yui Yuigahama" not in model.calls[2].output.options


def test_incoming_edges_are_offered_as_marked_relations_when_edges_both():
    replies = ["dachshund", "animal breed (incoming)", reasoning(["T1"], "Sablé is a dachshund."), answer("no")]
    model = ScriptedModel.from_replies(replies)
    settings = ArkSettings(mode=SelectionMode.CONSTRAINED, edges=EdgeSet.BOTH)
    result = ArkAgent(sample_kg(), model, settings).ask("Is a dachshund someone's pet?")
    assert "dachshund" in model.calls[0].output.options  # a tail-only entity can be explored
    facts = model.calls[2].messages[-1].content
    assert 'relation "animal breed (incoming)"' in facts and "T1: (Sablé, animal breed, dachshund)" in facts
    retrieved = next(e for e in result.trace.events if isinstance(e, TriplesRetrieved))
    assert retrieved.triples[0].incoming


def test_in_free_mode_a_bare_relation_name_follows_the_incoming_edge_the_anchor_only_has():
    kg = sample_kg()
    kg.add_triples([Triple("Sablé", "has pet", "Kamakura")])
    replies = [
        anchor("dachshund"),
        relation("animal breed"),  # dachshund has it only incoming: that edge is meant
        reasoning(["T1"], "Sablé is a dachshund.", more=True),
        anchor("Sablé"),
        relation("has pet"),  # Sablé has it both ways: the bare name is the outgoing one
        reasoning(["T2"], "Sablé has a pet."),
        answer("no"),
    ]
    settings = ArkSettings(mode=SelectionMode.FREE, edges=EdgeSet.BOTH)
    result = ArkAgent(kg, ScriptedModel.from_replies(replies), settings).ask("Is a dachshund someone's pet?")
    assert result.trace.invalid_attempts == 0
    retrieved = [e.triples[0] for e in result.trace.events if isinstance(e, TriplesRetrieved)]
    assert [(t.head, t.relation, t.tail, t.incoming) for t in retrieved] == [
        ("Sablé", "animal breed", "dachshund", True),
        ("Sablé", "has pet", "Kamakura", False),
    ]
    # With outgoing edges only there is no such edge to mean.
    outgoing_only = [anchor("Sablé"), relation("has pet"), relation("animal breed"), reasoning(["T1"]), answer("no")]
    assert ArkAgent(sample_kg(), ScriptedModel.from_replies(outgoing_only), FREE_OUT).ask(QUESTION).trace.invalid_attempts == 1


def test_tail_only_entity_is_not_a_valid_anchor_with_outgoing_edges_only():
    replies = [anchor("dachshund"), anchor("Sablé"), relation("animal breed"), reasoning(["T1"]), answer()]
    result = ArkAgent(sample_kg(), ScriptedModel.from_replies(replies), FREE_OUT).ask(QUESTION)
    assert result.trace.invalid_attempts == 1


def test_triple_keys_are_stable_across_steps():
    pet = [anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"], more=True)]
    breed = [anchor("Sablé"), relation("animal breed"), reasoning(["T2"], more=True)]
    # The same edge reached again from its other end keeps its first key.
    owner = [anchor("Sablé"), relation("has pet (incoming)"), reasoning(["T1"], more=True)]
    model = ScriptedModel.from_replies([*pet, *breed, *owner, answer()])
    result = ArkAgent(sample_kg(), model, ArkSettings(mode="free", k_max=3, edges="both")).ask(QUESTION)
    keys = [
        [(t.key, t.tail) for t in event.triples] for event in result.trace.events if isinstance(event, TriplesRetrieved)
    ]
    assert keys == [[("T1", "Sablé")], [("T2", "dachshund")], [("T1", "Sablé")]]
    assert result.trace.invalid_attempts == 0


def test_props_are_shown_with_the_triples():
    replies = [anchor("Yui Yuigahama"), relation("educated at"), reasoning(["T1"]), answer()]
    model = ScriptedModel.from_replies(replies)
    ArkAgent(sample_kg(), model, FREE).ask(QUESTION)
    assert "T1: (Yui Yuigahama, educated at, Sōbu High School) [start time: 2011]" in model.calls[2].messages[-1].content


def test_many_tails_are_capped_with_a_note():
    kg = SQLiteGraph()
    kg.add_triples(Triple("Big City", "resident", f"person {n}") for n in range(30))
    replies = [anchor("Big City"), relation("resident"), reasoning(["T1"]), answer("unknown")]
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(kg, model, ArkSettings(mode="free", max_triples_shown=5)).ask("Does person 7 live in Big City?")
    prompt = model.calls[2].messages[-1].content
    assert prompt.count("person ") == 5 and "(25 more not shown)" in prompt
    assert "T1: (Big City, resident, person 7)" in prompt  # the tail named in the question is kept
    retrieved = next(e for e in result.trace.events if isinstance(e, TriplesRetrieved))
    assert retrieved.not_shown == 25


def test_result_cites_existing_triples_and_exports_the_trace_as_json():
    events = []
    agent = ArkAgent(sample_kg(), ScriptedModel.from_replies(TWO_STEPS), FREE)
    assert isinstance(agent, Strategy) and agent.name == "ark"
    result = agent.ask(QUESTION, RunOptions(on_event=events.append))
    assert result.strategy == "ark" and result.explanation == "A dachshund is not a corgi."
    kg = sample_kg()
    for cited in result.cited_triples:
        assert Triple(**cited) in kg.triples(cited["head"], cited["relation"])
        assert cited in result.retrieved_triples
    assert [(t["head"], t["tail"]) for t in result.retrieved_triples] == [("Yui Yuigahama", "Sablé"), ("Sablé", "dachshund")]
    assert events == result.trace.events  # the live callback saw every event, in order

    exported = json.loads(result.model_dump_json())
    assert exported["trace"]["invalid_attempts"] == 0
    assert exported["usage"]["calls"] == 7 and exported["trace"]["usage"]["calls"] == 7
    assert exported["trace"]["nodes"][:3] == [1, 2, 3]
    restored = ArkTrace.model_validate(exported["trace"])
    assert [call.purpose for call in restored.calls] == [
        Purpose.ANCHOR, Purpose.RELATION, Purpose.REASONING,
        Purpose.ANCHOR, Purpose.RELATION, Purpose.REASONING, Purpose.ANSWER,
    ]  # fmt: skip
    assert Result.model_validate(exported).answer is False


def test_usage_adds_up_over_the_calls():
    model = ScriptedModel.from_replies(TWO_STEPS)
    result = ArkAgent(sample_kg(), model, FREE).ask(QUESTION)
    assert result.usage.calls == 7
    assert result.usage.prompt_tokens == sum(call.usage.prompt_tokens for call in result.trace.calls) > 0


def test_each_call_gets_its_own_seed():
    model = ScriptedModel.from_replies(TWO_STEPS)
    options = RunOptions(sampling=Sampling(seed=7, temperature=0.7))
    ArkAgent(sample_kg(), model, ArkSettings(mode="free")).ask(QUESTION, options)
    assert [call.sampling.seed for call in model.calls] == list(range(7, 14))
    assert {call.sampling.temperature for call in model.calls} == {0.7}


@pytest.mark.parametrize(("reply", "expected"), [("yes", True), ("no", False), ("unknown", None)])
def test_yes_no_answers(reply, expected):
    model = ScriptedModel.from_replies([anchor("Yui"), answer(reply)])
    result = ArkAgent(sample_kg(), model, ArkSettings(mode="free", c_max=1)).ask(QUESTION)
    assert result.answer is expected


def test_open_questions_get_a_free_text_answer_with_cited_triples():
    replies = [anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"], "Her pet is Sablé."), answer("Sablé")]
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(sample_kg(), model, FREE).ask("What is the name of Yui Yuigahama's pet?")
    assert result.answer == "Sablé"
    assert result.cited_triples == [{"head": "Yui Yuigahama", "relation": "has pet", "tail": "Sablé", "props": {}}]
    assert set(model.calls[-1].output.model_json_schema()["properties"]["answer"]) >= {"type"}


def test_the_caller_can_say_the_question_is_yes_no():
    model = ScriptedModel.from_replies([anchor("Yui"), answer("yes")])
    settings = ArkSettings(mode="free", c_max=1)
    query = Query(text="Name a corgi owner", kind=AnswerKind.YES_NO)
    assert ArkAgent(sample_kg(), model, settings).ask(query).answer is True


def test_no_anchor_candidates_goes_straight_to_the_final_answer():
    model = ScriptedModel.from_replies([answer("unknown")])
    # Exploring anyway: by default a question naming what the KG lacks stops before (test_missing_names).
    result = ArkAgent(SQLiteGraph(), model, CONSTRAINED).ask(QUESTION, RunOptions(stop_on_missing_names=False))
    assert [int(n) for n in result.trace.nodes] == [1, 2, 3, 4, 11]
    assert result.answer is None and len(model.calls) == 1
    assert "No facts were found" in model.calls[0].messages[-1].content


def test_a_claim_is_verified_with_prompts_that_say_claim():
    model = ScriptedModel.from_replies([anchor("Yui Yuigahama"), relation("has pet"), reasoning(["T1"]), answer("no")])
    result = ArkAgent(sample_kg(), model, FREE).ask("Yui Yuigahama's pet is a corgi.")
    system, user = model.calls[0].messages[:2]
    assert "You answer a claim" in system.content and user.content == "Claim to verify: Yui Yuigahama's pet is a corgi."
    assert '"yes" if the claim is true' in model.calls[-1].messages[-1].content
    assert result.claim and result.answer is False and result.trace.claim
