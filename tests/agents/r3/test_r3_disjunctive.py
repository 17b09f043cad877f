"""Disjunctive axioms ("yes if (A and B) or C"), driven by a scripted model: any premise set that holds
answers True, False needs every set to fail, and only the premises of open sets are searched for."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from r3_helpers import HAS_PET, OCCUPATION, PET_BREED, YUI, axiom, judged, kinds, missing, purposes, run
from typer.testing import CliRunner

import arkg.session
from arkg.agents.r3 import R3Settings
from arkg.agents.r3.trace import BranchEnd, R3Trace
from arkg.agents.r3.view import VIEW
from arkg.cli import app
from arkg.graph.model import Triple
from arkg.llm.scripted import ScriptedModel

QUESTION = "Is Yui Yuigahama a dog owner?"
JUDGE = ["anchors", "axiom", "ranked", "judgement", "verdict"]


def either(rule: str, first: list[tuple[str, str, str, str]], *others: list[tuple[str, str, str, str]]) -> dict:
    """An axiom reply whose premises are `first`, with `others` as its alternatives."""
    reply = axiom(rule, *first)
    reply["alternatives"] = [axiom(rule, *premises)["premises"] for premises in others]
    return reply


# P1 and P2 are one way to yes (a dog-owning teacher), P3 the other (a dachshund at home).
DOG_OWNER = either(
    "Someone owns a dog if they are a teacher who keeps a dog, or if their pet is of a dog breed.",
    [(YUI, "occupation", "=", "teacher"), (YUI, "keeps a dog", "holds", "")],
    [(YUI, "breed of pet", "=", "a dog breed")],
)
ONE_DEPTH = R3Settings(max_named=0, max_depth=1, max_breadth=1)


def test_the_first_set_fails_and_the_second_holds_so_the_answer_is_true_resting_on_the_second():
    replies = [DOG_OWNER, judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "satisfied", [HAS_PET]))]
    result, model = run(*replies, question=QUESTION)
    assert kinds(result) == [*JUDGE, "answer"] and result.answer is True
    axiom_event, verdict = result.trace.events[1], result.trace.events[4]
    # Premise ids run on across the sets, so that every judgement names one premise.
    assert [p.id for p in axiom_event.premises] == ["P1", "P2"] and [[p.id for p in ps] for ps in axiom_event.alternatives] == [["P3"]]
    assert verdict.rests_on == ["P3"] and verdict.unknown == []
    assert result.cited_triples == [Triple(YUI, "has pet", "Sablé").as_dict()]
    assert "P3 (breed of pet of Yui Yuigahama = a dog breed) satisfied" in result.explanation
    # The judgement is asked for every premise, shown set by set.
    request = model.calls[1].messages[-1].content
    assert (
        "Either all of:\nP1: occupation of Yui Yuigahama = teacher\nP2: Yui Yuigahama: keeps a dog\n"
        "Or all of:\nP3: breed of pet of Yui Yuigahama = a dog breed"
    ) in request
    assert result.trace.unverified_citations() == []


def test_every_set_failing_answers_false_resting_on_a_failed_premise_of_each():
    replies = [DOG_OWNER, judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "unsatisfied", [HAS_PET]))]
    result, _ = run(*replies, question=QUESTION)
    assert result.answer is False and result.trace.events[4].rests_on == ["P1", "P3"]
    assert result.cited_triples == [
        Triple(YUI, "occupation", "high school student").as_dict(),
        Triple(YUI, "has pet", "Sablé").as_dict(),
    ]


def test_a_set_left_unknown_leaves_the_answer_undetermined():
    replies = [DOG_OWNER, judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "unknown", []))]
    result, _ = run(*replies, question=QUESTION, settings=ONE_DEPTH)
    assert kinds(result) == [*JUDGE, "branch_end", "answer"]
    # P2 is unknown too, but its set has failed already: only P3 could still change the answer.
    assert result.trace.events[4].answer is None and result.trace.events[4].unknown == ["P3"]
    assert result.trace.events[5].reason is BranchEnd.MAX_DEPTH
    assert result.answer is None and result.cited_triples == []


def test_missing_evidence_is_sought_for_the_open_set_and_settles_it_a_depth_later():
    replies = [
        DOG_OWNER,
        judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "unknown", [])),
        missing("P3", "the breed of Sablé", "Sablé"),
        judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "satisfied", [HAS_PET, PET_BREED])),
    ]
    result, model = run(*replies, question=QUESTION)
    assert purposes(result) == ["axiom", "judgement", "missing", "judgement"]
    gap_request = model.calls[2].messages[-1].content
    assert "Not settled by the facts:\nP3: breed of pet of Yui Yuigahama = a dog breed\nFacts:" in gap_request
    assert 'Reply as JSON: {"premise": "<one of P3>"' in gap_request
    assert result.answer is True and result.trace.events[-2].depth == 2 and result.trace.events[-2].rests_on == ["P3"]
    assert result.cited_triples == [Triple(YUI, "has pet", "Sablé").as_dict(), Triple("Sablé", "animal breed", "dachshund").as_dict()]


def test_the_axiom_request_explains_alternatives_with_an_example():
    replies = [DOG_OWNER, judged(("P1", "unknown", []), ("P2", "unknown", []), ("P3", "unknown", []))]
    _, model = run(*replies, question=QUESTION, settings=ONE_DEPTH)
    request = model.calls[0].messages[-1].content
    assert 'add "alternatives": a list of the other ways (at most 1), each a list of at most 3 premises' in request
    assert '"alternatives": [[{"entity": "Tomas Alvren"' in request


def test_the_constrained_schema_bounds_the_alternatives_and_their_entities():
    replies = [DOG_OWNER, judged(("P1", "unknown", []), ("P2", "unknown", []), ("P3", "unknown", []))]
    result, model = run(*replies, question=QUESTION, settings=R3Settings(max_named=0, max_depth=1, max_breadth=1, max_alternatives=3))
    schema = model.calls[0].output.model_json_schema()
    alternatives = schema["properties"]["alternatives"]
    assert alternatives["maxItems"] == 2 and alternatives["items"]["maxItems"] == 3
    assert result.trace.events[0].anchors == [YUI]
    elsewhere = either("r", [(YUI, "keeps a dog", "holds", "")], [("Sablé", "dog breed", "holds", "")])
    with pytest.raises(ValidationError, match="alternatives.0.0.entity"):
        model.calls[0].output.model_validate(elsewhere)
    # Optional: a conjunctive axiom is a reply of the same shape as before.
    assert "alternatives" not in schema["required"]


def test_an_empty_or_surplus_alternative_is_sent_back_with_feedback():
    settings = R3Settings(max_named=0, mode="free", max_depth=1, max_breadth=1)
    empty = either("Someone owns a dog if they keep one.", [(YUI, "keeps a dog", "holds", "")], [])
    surplus = either("Someone owns a dog if they keep one.", [(YUI, "keeps a dog", "holds", "")],
                     [(YUI, "has a pet", "holds", "")], [(YUI, "occupation", "=", "dog breeder")])  # fmt: skip
    replies = [empty, surplus, DOG_OWNER, judged(("P1", "unknown", []), ("P2", "unknown", []), ("P3", "unknown", []))]
    result, model = run(*replies, question=QUESTION, settings=settings)
    first, second, third = (event for event in result.trace.events if event.kind == "axiom")
    assert first.problems == ["alternative 1 has no premises"]
    assert second.problems == ["too many alternatives (at most 1)"]
    assert "too many alternatives (at most 1)" in model.calls[2].messages[-1].content
    assert third.valid and len(result.trace.axioms) == 1


def test_a_new_branch_sees_the_earlier_axiom_with_its_alternatives():
    second = axiom("Yui must keep a dog.", (YUI, "keeps a dog", "holds", ""))
    replies = [DOG_OWNER, judged(("P1", "unknown", []), ("P2", "unknown", []), ("P3", "unknown", [])), second, judged(("P1", "unknown", []))]
    _, model = run(*replies, question=QUESTION, settings=R3Settings(max_named=0, max_depth=1, max_breadth=2))
    assert (
        "1. Someone owns a dog if they are a teacher who keeps a dog, or if their pet is of a dog breed. "
        "(occupation of Yui Yuigahama = teacher; Yui Yuigahama: keeps a dog) or (breed of pet of Yui Yuigahama = a dog breed)"
    ) in model.calls[2].messages[-1].content


def test_the_alternatives_are_kept_in_the_trace_and_read_set_by_set():
    replies = [DOG_OWNER, judged(("P1", "unsatisfied", [OCCUPATION]), ("P2", "unknown", []), ("P3", "satisfied", [HAS_PET]))]
    result, _ = run(*replies, question=QUESTION)
    exported = result.model_dump(mode="json")["trace"]["axioms"][0]
    assert [p["id"] for p in exported["premises"]] == ["P1", "P2"] and [[p["id"] for p in ps] for ps in exported["alternatives"]] == [["P3"]]
    again = R3Trace.model_validate_json(result.trace.model_dump_json())
    assert again.events == result.trace.events and again.axioms[0].alternatives == result.trace.axioms[0].alternatives
    lines = VIEW.block(result.trace.events[1]).text.splitlines()
    assert [line.strip() for line in lines[1:]] == [
        "P1: occupation of Yui Yuigahama = teacher",
        "P2: Yui Yuigahama: keeps a dog",
        "or",
        "P3: breed of pet of Yui Yuigahama = a dog breed",
    ]
    assert VIEW.block(result.trace.events[4]).text.strip() == "b1.d1 verdict: True (rests on P3)"


def test_a_one_set_axiom_reads_and_exports_as_before():
    single = axiom("Yui's pet must be a dog.", (YUI, "breed of pet", "=", "a dog breed"))
    result, _ = run(single, judged(("P1", "satisfied", [HAS_PET])), question=QUESTION)
    assert result.answer is True and result.trace.axioms[0].alternatives == []
    assert [line.strip() for line in VIEW.block(result.trace.events[1]).text.splitlines()[1:]] == [
        "P1: breed of pet of Yui Yuigahama = a dog breed"
    ]


def test_arkg_ask_prints_a_disjunctive_axiom_set_by_set(monkeypatch):
    def reply(messages, output, sampling):
        fields = output.model_json_schema()["properties"]
        if "entities" in fields:
            return {"entities": ["Pierre Curie"]}
        if "rule" in fields:
            return either(
                "Someone was born in Poland if their birthplace lies in Poland, or if Poland is their country of birth.",
                [("Pierre Curie", "country of place of birth", "=", "Poland")],
                [("Pierre Curie", "country of birth", "=", "Poland")],
            )
        if "picked_keys" in fields:
            return {"picked_keys": []}
        return judged(("P1", "unsatisfied", ["Pierre Curie, place of birth, Paris"]),
                      ("P2", "unsatisfied", ["Pierre Curie, place of birth, Paris"]))(messages[-1].content)  # fmt: skip

    monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: ScriptedModel(reply))
    outcome = CliRunner().invoke(app, ["ask", "--strategy", "r3", "Was Pierre Curie born in Poland?", "--set", "max_breadth=1"])
    assert outcome.exit_code == 0, outcome.output
    text = "\n".join(line.strip() for line in outcome.output.splitlines())
    assert "P1: country of place of birth of Pierre Curie = Poland\nor\nP2: country of birth of Pierre Curie = Poland" in text
    assert "b1.d1 verdict: False (rests on P1, P2)" in text


def test_one_premise_set_at_most_asks_for_the_conjunctive_axiom_of_old():
    """max_alternatives=1: no alternatives in the request or the grammar, a reply with some is sent back."""
    single = axiom("Yui's pet must be a dog.", (YUI, "breed of pet", "=", "a dog breed"))
    constrained = R3Settings(max_named=0, max_depth=1, max_breadth=1, max_alternatives=1)
    _, model = run(single, judged(("P1", "unknown", [])), question=QUESTION, settings=constrained)
    assert "alternatives" not in model.calls[0].messages[-1].content
    assert "alternatives" not in model.calls[0].output.model_json_schema()["properties"]
    assert "Either all of" not in model.calls[1].messages[-1].content
    free = constrained.model_copy(update={"mode": "free"})
    result, _ = run(DOG_OWNER, single, judged(("P1", "unknown", [])), question=QUESTION, settings=free)
    assert result.trace.events[1].problems == ["give one set of premises, without alternatives"]
    assert result.trace.axioms[0].alternatives == []
