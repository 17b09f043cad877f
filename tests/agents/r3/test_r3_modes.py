"""Constrained mode (valid choices by grammar) and free mode (names and keys checked afterwards, with
feedback): entity naming, axioms, the model's pick of facts, and missing evidence."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError
from r3_helpers import CORGI, FREE, HAS_PET, OCCUPATION, PET_BREED, YUI, axiom, judged, kinds, missing, picked, purposes, run

from arkg.agents.r3 import R3Settings
from arkg.llm.grammar import schema_grammar


def enum(schema: dict, *path: str | int) -> list[str]:
    """The allowed values at a path of a JSON schema: property names, "items" of a list, or the
    position in a fixed-length array (through $defs; values from enum or const)."""
    node = schema
    for step in path:
        node = node["items"] if step == "items" else node["prefixItems"][step] if isinstance(step, int) else node["properties"][step]
        if "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node["enum"] if "enum" in node else [node["const"]]


def test_constrained_schemas_admit_only_this_steps_entities_premises_and_keys():
    replies = [
        {"entities": ["Yukino Yukinoshita"]},
        CORGI,
        judged(("P1", "unknown", [])),
        missing("P1", "the breed of Sablé", "Sablé"),
        judged(("P1", "unsatisfied", [PET_BREED])),
    ]
    result, model = run(*replies, settings=R3Settings())
    assert purposes(result) == ["entities", "axiom", "judgement", "missing", "judgement"]
    named, axiom_spec, first, gap, second = (call.output for call in model.calls)
    candidates = result.trace.events[0].candidates
    assert enum(named.model_json_schema(), "entities", "items") == candidates and YUI in candidates
    # The entity the model named joins the anchors; premises may be about anchors only.
    anchors = result.trace.events[1].anchors
    assert anchors == [YUI, "Yukino Yukinoshita"] and result.trace.events[1].named == ["Yukino Yukinoshita"]
    assert enum(axiom_spec.model_json_schema(), "premises", "items", "entity") == anchors
    shown = result.trace.events[4].shown
    assert enum(first.model_json_schema(), "judgements", 0, "cited_keys", "items") == shown
    assert enum(first.model_json_schema(), "judgements", 0, "premise") == ["P1"]
    assert enum(gap.model_json_schema(), "entity") == result.trace.events[6].candidates == ["Sablé", "Kamakura"]
    assert enum(second.model_json_schema(), "judgements", 0, "cited_keys", "items") == result.trace.events[8].shown
    # The schema rejects what the grammar cannot produce, and the grammar names only the keys shown.
    with pytest.raises(ValidationError):
        first.model_validate({"judgements": [{"premise": "P1", "status": "satisfied", "cited_keys": ["T9"]}]})
    with pytest.raises(ValidationError):
        gap.model_validate({"premise": "P1", "missing": "x", "entity": "Scottish Fold"})
    assert set(re.findall(r"T\d+", schema_grammar(first))) == set(shown)


def test_constrained_judgements_are_exactly_one_per_premise_in_order():
    rule = axiom("A student with a pet.", (YUI, "has a pet", "holds", ""), (YUI, "occupation", "=", "high school student"))
    result, model = run(rule, judged(("P1", "satisfied", [HAS_PET]), ("P2", "satisfied", [OCCUPATION])),
                        question="Is Yui Yuigahama a student with a pet?")  # fmt: skip
    spec = model.calls[1].output
    schema = spec.model_json_schema()
    assert schema["properties"]["judgements"]["minItems"] == schema["properties"]["judgements"]["maxItems"] == 2
    assert [enum(schema, "judgements", position, "premise") for position in (0, 1)] == [["P1"], ["P2"]]
    one = {"status": "unknown", "cited_keys": []}
    for judgements in ([{"premise": "P1", **one}], [{"premise": "P2", **one}, {"premise": "P1", **one}]):
        with pytest.raises(ValidationError):
            spec.model_validate({"judgements": judgements})
    assert result.answer is True


def test_the_model_picks_facts_among_the_next_ranked_and_only_those_join():
    settings = R3Settings(max_named=0, top_k=1, pick_from=5)
    replies = [CORGI, picked(PET_BREED), judged(("P1", "unsatisfied", [PET_BREED]))]
    result, model = run(*replies, settings=settings, question="Is Yui Yuigahama's pet Sablé a corgi?")
    assert kinds(result) == ["anchors", "axiom", "ranked", "pick", "judgement", "verdict", "answer"]
    ranked, pick = result.trace.events[2], result.trace.events[3]
    offered = [record.key for record in ranked.offered]
    assert enum(model.calls[1].output.model_json_schema(), "picked_keys", "items") == offered
    assert len(ranked.top) == 1 and pick.valid and pick.picked[0] in offered
    judgement = result.trace.events[4]
    assert judgement.shown == [ranked.top[0].key, pick.picked[0]]
    unpicked = [record for record in ranked.offered if record.key not in pick.picked]
    request = model.calls[2].messages[-1].content
    assert all(f"{record.key}: " not in request for record in unpicked)
    assert result.answer is False


def test_free_mode_retries_a_pick_of_keys_not_offered_then_keeps_the_top_facts():
    settings = R3Settings(max_named=0, mode="free", top_k=1, pick_from=5, c_max=2, max_depth=1, max_breadth=1)
    replies = [CORGI, {"picked_keys": ["T1"]}, {"picked_keys": ["T7"]}, judged(("P1", "unknown", []))]
    result, model = run(*replies, settings=settings)
    first, second = result.trace.events[3], result.trace.events[4]
    assert first.invalid_keys == ["T1"] and "cite only these keys: T2, T3" in first.feedback
    assert first.feedback in model.calls[2].messages[-1].content
    assert second.invalid_keys == ["T7"]
    assert result.trace.events[5].shown == ["T1"]


def test_free_mode_axioms_are_checked_and_what_is_wrong_is_fed_back():
    replies = [
        axiom("", ("Komachi", "breed of pet", "=", "corgi"), (YUI, "", "=", "")),
        axiom(""),
        axiom("<the rule>", (YUI, "breed of pet", "=", "corgi")),
        axiom("Yui's pet must be a corgi.", ("yui yuigahama", "breed of pet", "=", "corgi")),
        judged(("P1", "unsatisfied", [HAS_PET])),
    ]
    result, model = run(*replies, settings=R3Settings(max_named=0, mode="free", c_max=4))
    first, empty, echoed, accepted = result.trace.events[1:5]
    assert first.problems == [
        "the rule is empty",
        'P1 is about "Komachi", which is not one of the entities listed',
        "P2 has no property",
        "P2 compares with no value",
    ]
    assert first.feedback in model.calls[1].messages[-1].content
    assert empty.problems == ["the rule is empty", "the rule has no premises"]
    assert echoed.problems == ['the rule "<the rule>" only repeats words of the request; state the rule itself']
    # Another case or accents name the same anchor.
    assert accepted.valid and accepted.premises[0].entity == YUI
    assert result.answer is False


def test_free_mode_missing_evidence_must_name_a_candidate_and_an_unsettled_premise():
    replies = [
        CORGI,
        judged(("P1", "unknown", [])),
        missing("P3", "", "Komachi"),
        missing("P1", "the breed of Sablé", "sable"),
        judged(("P1", "unsatisfied", [PET_BREED])),
    ]
    result, model = run(*replies, settings=FREE)
    rejected, accepted = result.trace.events[5], result.trace.events[6]
    assert rejected.problems == [
        "P3 is not among the premises to settle (P1)",
        '"Komachi" is not in the list of entities',
        "the missing information is empty",
    ]
    assert rejected.feedback in model.calls[3].messages[-1].content
    assert accepted.valid and accepted.entity == "Sablé"
    assert result.answer is False


def test_free_mode_entity_names_resolve_through_the_kg_and_unknown_ones_get_the_closest():
    settings = R3Settings(mode="free", max_breadth=1, max_depth=1)
    replies = [
        {"entities": ["Yukino Yukinoshta", "Komachi"]},
        {"entities": []},
        CORGI,
        judged(("P1", "unknown", [])),
    ]
    result, model = run(*replies, settings=settings)
    first, second, anchors = result.trace.events[:3]
    assert first.resolved == {"Yukino Yukinoshta": "Yukino Yukinoshita"} and first.unresolved == ["Komachi"]
    assert '"Komachi" is not an entity of the graph (closest: ' in first.feedback
    assert first.feedback in model.calls[1].messages[-1].content
    assert second.valid
    # Names resolved by an earlier attempt are kept.
    assert anchors.named == ["Yukino Yukinoshita"] and anchors.anchors == [YUI, "Yukino Yukinoshita"]
    assert anchors.facts == 4


def test_the_dense_ranker_is_a_setting():
    pytest.importorskip("wordllama")
    result, _ = run(CORGI, judged(("P1", "unsatisfied", [HAS_PET])), settings=R3Settings(max_named=0, ranker="dense", top_k=2, pick_from=0))
    ranked = result.trace.events[2]
    assert ranked.ranker.value == "dense" and len(ranked.top) == 2 and ranked.considered == 3
    assert ranked.top[0].relation == "has pet"
