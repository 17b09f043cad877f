"""Every path of R³'s search, driven by a scripted model; each test asserts the exact events and calls."""

from __future__ import annotations

import pytest
from r3_helpers import (
    CORGI,
    FREE,
    HAS_PET,
    OCCUPATION,
    PET_BREED,
    YUI,
    axiom,
    judged,
    kinds,
    missing,
    purposes,
    run,
    sample_kg,
    scripted,
)

from arkg.agents.r3 import R3, R3Settings
from arkg.agents.r3.trace import BranchEnd, StopReason
from arkg.agents.run import BUDGET_SPENT, Budget, RunOptions
from arkg.errors import ArkgError
from arkg.graph.model import Triple
from arkg.llm.base import Sampling

JUDGE = ["anchors", "axiom", "ranked", "judgement", "verdict"]


def test_all_premises_satisfied_answer_true_citing_their_facts():
    rule = axiom(
        "A high school student with a pet must have both to count.",
        (YUI, "occupation", "=", "high school student"),
        (YUI, "has a pet", "holds", ""),
    )
    result, model = run(rule, judged(("P1", "satisfied", [OCCUPATION]), ("P2", "satisfied", [HAS_PET])),
                        question="Is Yui Yuigahama a high school student with a pet?")  # fmt: skip
    assert kinds(result) == [*JUDGE, "answer"]
    assert purposes(result) == ["axiom", "judgement"]
    assert result.answer is True and result.stop_reason == StopReason.DECIDED.value
    assert result.cited_triples == [
        Triple(YUI, "occupation", "high school student").as_dict(),
        Triple(YUI, "has pet", "Sablé").as_dict(),
    ]
    verdict = result.trace.events[-2]
    assert verdict.answer is True and verdict.rests_on == ["P1", "P2"] and verdict.unknown == []
    assert "P2 (Yui Yuigahama: has a pet) satisfied" in result.explanation
    # The answer rests on the cited facts and on the axiom, stated as commonsense.
    assert result.commonsense == ["A high school student with a pet must have both to count."]
    assert result.basis == "kg+commonsense"
    assert all(triple in result.retrieved_triples for triple in result.cited_triples)


def test_one_grounded_unsatisfied_premise_answers_false_citing_only_its_facts():
    rule = axiom("A teacher with a pet.", (YUI, "has a pet", "holds", ""), (YUI, "occupation", "=", "teacher"))
    replies = [rule, judged(("P1", "satisfied", [HAS_PET]), ("P2", "unsatisfied", [OCCUPATION]))]
    result, _ = run(*replies, question="Is Yui Yuigahama a teacher with a pet?")
    assert kinds(result) == [*JUDGE, "answer"]
    assert result.answer is False
    assert result.cited_triples == [Triple(YUI, "occupation", "high school student").as_dict()]
    assert result.trace.events[-2].rests_on == ["P2"]


def test_an_unknown_premise_names_missing_evidence_whose_entity_joins_and_settles_it():
    replies = [
        CORGI,
        judged(("P1", "unknown", [])),
        missing("P1", "the breed of Sablé", "Sablé"),
        judged(("P1", "unsatisfied", [HAS_PET, PET_BREED])),
    ]
    result, model = run(*replies)
    assert kinds(result) == [*JUDGE, "missing", "ranked", "judgement", "verdict", "answer"]
    assert purposes(result) == ["axiom", "judgement", "missing", "judgement"]
    events = result.trace.events
    first_verdict, gap, expanded, second = events[4], events[5], events[6], events[7]
    assert first_verdict.answer is None and first_verdict.unknown == ["P1"]
    # Yui's own facts are all shown, and only Sablé of the entities met has facts: the only candidate.
    assert gap.candidates == ["Sablé"] and gap.new_entity and gap.valid
    assert expanded.depth == 2 and expanded.entity == "Sablé" and expanded.against.startswith("the breed of Sablé")
    assert {(record.head, record.relation) for record in expanded.top} == {("Sablé", "animal breed"), ("Sablé", "sex or gender")}
    assert second.depth == 2 and len(second.shown) == 5
    assert "(Sablé, animal breed, dachshund)" in model.calls[3].messages[-1].content
    assert result.answer is False and result.stop_reason == StopReason.DECIDED.value
    assert result.cited_triples == [Triple(YUI, "has pet", "Sablé").as_dict(), Triple("Sablé", "animal breed", "dachshund").as_dict()]


def test_missing_evidence_may_ask_for_more_facts_of_an_anchor():
    """The paper's other case: facts pruned by mistake. The anchor's unseen facts are ranked against the gap."""
    replies = [
        CORGI,
        judged(("P1", "unknown", [])),
        missing("P1", "the pet of Yui Yuigahama", YUI),
        judged(("P1", "unknown", [])),
    ]
    result, model = run(*replies, settings=R3Settings(max_named=0, top_k=1, pick_from=0, max_breadth=1))
    gap, expanded = result.trace.events[5], result.trace.events[6]
    assert YUI in gap.candidates and not gap.new_entity
    assert expanded.entity == YUI and expanded.considered == 2 and len(expanded.top) == 1
    assert kinds(result) == [*JUDGE, "missing", "ranked", "judgement", "verdict", "branch_end", "answer"]
    assert result.trace.events[-2].reason is BranchEnd.MAX_DEPTH
    assert len(result.trace.events[7].shown) == 2


def test_a_branch_without_an_entity_left_to_expand_ends_before_asking():
    result, _ = run(
        axiom("A cat must be of a cat breed.", ("Kamakura", "animal breed", "=", "a cat breed")),
        judged(("P1", "unknown", [])),
        question="Is Kamakura a cat?",
        settings=R3Settings(max_named=0, max_breadth=1),
    )
    assert kinds(result) == [*JUDGE, "branch_end", "answer"]
    assert result.trace.events[-2].reason is BranchEnd.NO_ENTITY_LEFT
    assert result.answer is None and result.stop_reason == StopReason.EXHAUSTED.value


def test_depth_exhausted_opens_a_new_branch_with_a_warmer_axiom_conditioned_on_the_first():
    second = axiom("Yui's pet must be a dog of the corgi breed.", (YUI, "has a pet", "holds", ""))
    replies = [CORGI, judged(("P1", "unknown", [])), second, judged(("P1", "satisfied", [HAS_PET]))]
    options = RunOptions(sampling=Sampling(seed=5, max_tokens=64))
    result, model = run(*replies, settings=R3Settings(max_named=0, max_depth=1), options=options)
    assert kinds(result) == [*JUDGE, "branch_end", "axiom", "ranked", "judgement", "verdict", "answer"]
    assert purposes(result) == ["axiom", "judgement", "axiom", "judgement"]
    assert result.trace.events[5].reason is BranchEnd.MAX_DEPTH
    # Only the new branch's axiom is sampled warmer; every call keeps the run's seed + call number.
    assert [call.sampling.temperature for call in model.calls] == [0.0, 0.0, 0.7, 0.0]
    assert [call.sampling.seed for call in model.calls] == [5, 6, 7, 8]
    assert result.trace.events[6].temperature == 0.7
    request = model.calls[2].messages[-1].content
    assert "These rules were tried already" in request
    assert "1. Yui's pet must be a corgi for the answer to be yes. (breed of pet of Yui Yuigahama = corgi)" in request
    assert [a.rule for a in result.trace.axioms] == [CORGI["rule"], second["rule"]]
    assert [a.branch for a in result.trace.axioms] == [1, 2]
    assert result.answer is True


def test_breadth_exhausted_answers_none():
    replies = [CORGI, judged(("P1", "unknown", [])), CORGI, judged(("P1", "unknown", []))]
    result, _ = run(*replies, settings=R3Settings(max_named=0, max_depth=1, max_breadth=2))
    assert kinds(result) == [*JUDGE, "branch_end", "axiom", "ranked", "judgement", "verdict", "branch_end", "answer"]
    assert result.answer is None and result.cited_triples == [] and result.explanation == ""
    assert result.stop_reason == StopReason.EXHAUSTED.value == "no branch settled the answer within max_depth and max_breadth"


def test_a_premise_citing_a_key_not_shown_is_rejected_and_retried():
    replies = [CORGI, judged(("P1", "unsatisfied", ["T9"])), judged(("P1", "unsatisfied", [HAS_PET]))]
    result, model = run(*replies, settings=FREE)
    assert kinds(result) == ["anchors", "axiom", "ranked", "judgement", "judgement", "verdict", "answer"]
    rejected, accepted = result.trace.events[3], result.trace.events[4]
    assert rejected.invalid_keys == ["T9"] and not rejected.valid
    assert "cite only these keys: T1, T2, T3" in rejected.feedback
    assert rejected.feedback in model.calls[2].messages[-1].content
    assert accepted.valid and accepted.attempt == 2 and result.answer is False


def test_a_key_shown_only_for_picking_cannot_be_cited_in_the_judgement():
    """A premise may cite only facts shown with the judgement's own request."""
    settings = R3Settings(max_named=0, mode="free", top_k=1, pick_from=5, max_depth=1, max_breadth=1)
    replies = [CORGI, {"picked_keys": []}, judged(("P1", "satisfied", ["T2"])), judged(("P1", "unknown", []))]
    result, model = run(*replies, settings=settings)
    assert kinds(result) == ["anchors", "axiom", "ranked", "pick", "judgement", "judgement", "verdict", "branch_end", "answer"]
    ranked, rejected = result.trace.events[2], result.trace.events[4]
    assert [record.key for record in ranked.top] == ["T1"] and [record.key for record in ranked.offered] == ["T2", "T3"]
    assert "T2: " in model.calls[1].messages[-1].content and "T2: " not in model.calls[2].messages[-1].content
    assert rejected.shown == ["T1"] and rejected.invalid_keys == ["T2"]


def test_c_max_invalid_judgements_end_the_branch():
    replies = [CORGI, judged(("P1", "satisfied", ["T9"])), judged(("P2", "satisfied", []))]
    result, _ = run(*replies, settings=R3Settings(max_named=0, mode="free", c_max=2, max_breadth=1))
    assert kinds(result) == ["anchors", "axiom", "ranked", "judgement", "judgement", "branch_end", "answer"]
    second = result.trace.events[4]
    assert second.problems == ["P2 is not a premise of the rule", "P1 not judged"]
    assert result.trace.events[5].reason is BranchEnd.C_MAX_JUDGEMENT
    assert result.answer is None and result.trace.invalid_attempts == 2


def test_a_premise_judged_twice_is_rejected():
    replies = [CORGI, judged(("P1", "unknown", []), ("P1", "unsatisfied", [HAS_PET])), judged(("P1", "unknown", []))]
    result, _ = run(*replies, settings=R3Settings(max_named=0, mode="free", max_depth=1, max_breadth=1))
    assert result.trace.events[3].problems == ["P1 is judged more than once"]
    assert result.trace.events[4].valid


def test_a_satisfied_premise_citing_nothing_counts_as_unknown():
    replies = [CORGI, judged(("P1", "satisfied", []))]
    result, _ = run(*replies, settings=R3Settings(max_named=0, max_depth=1, max_breadth=1))
    assert result.trace.events[4].answer is None and result.trace.events[4].unknown == ["P1"]
    assert result.answer is None


def test_the_run_budget_stops_the_search_with_its_own_reason():
    options = RunOptions(budget=Budget(max_calls=2))
    result, model = run(CORGI, judged(("P1", "unknown", [])), options=options)
    assert len(model.calls) == 2 and result.usage.calls == 2
    assert kinds(result) == [*JUDGE, "answer"]
    final = result.trace.events[-1]
    assert result.answer is None and result.stop_reason == StopReason.BUDGET.value == BUDGET_SPENT
    assert final.stop_reason is StopReason.BUDGET and "max_calls=2" in final.note


def test_claims_are_verified_and_every_request_says_claim():
    claim = "Yui Yuigahama's pet is a corgi."
    replies = [CORGI, judged(("P1", "unknown", [])), missing("P1", "the breed of Sablé", "Sablé"),
               judged(("P1", "unsatisfied", [PET_BREED]))]  # fmt: skip
    result, model = run(*replies, question=claim)
    assert result.claim and result.trace.claim and result.answer is False
    for call in model.calls:
        assert call.messages[0].content.startswith("You check a claim")
        assert call.messages[-1].content.startswith(f"Claim: {claim}")
    assert "that decides whether the claim is true" in model.calls[0].messages[-1].content


def test_an_open_question_is_refused_before_any_call():
    model = scripted()
    with pytest.raises(ArkgError, match="settles yes/no questions and claims"):
        R3(sample_kg(), model).ask("Which pet does Yui Yuigahama have?")
    assert model.calls == []


def test_a_query_naming_no_entity_of_the_kg_stops_without_a_call():
    # R³'s own stop, when it explores a question naming what the KG lacks (by default it stops before).
    result, model = run(question="Is Zanzibar an island?", options=RunOptions(stop_on_missing_names=False))
    assert kinds(result) == ["anchors", "answer"] and model.calls == []
    assert result.answer is None and result.stop_reason == StopReason.NO_ENTITY.value


def test_entities_without_facts_stop_without_a_call():
    result, model = run(question="Is Scottish Fold a breed of cat?")
    assert result.trace.events[0].anchors == ["Scottish Fold"] and result.trace.events[0].facts == 0
    assert model.calls == [] and result.stop_reason == StopReason.NO_FACTS.value


def test_a_branch_ends_when_its_axiom_or_its_missing_evidence_runs_out_of_attempts():
    settings = R3Settings(max_named=0, mode="free", c_max=1)
    replies = [axiom("Yui's pet must be a corgi."), CORGI, judged(("P1", "unknown", [])), missing("P1", "a breed", "Komachi")]
    result, model = run(*replies, settings=settings)
    assert kinds(result) == ["anchors", "axiom", "branch_end", "axiom", "ranked", "judgement", "verdict", "missing",
                             "branch_end", "answer"]  # fmt: skip
    ends = [event for event in result.trace.events if event.kind == "branch_end"]
    assert [(end.branch, end.depth, end.reason) for end in ends] == [
        (1, 0, BranchEnd.C_MAX_AXIOM),
        (2, 1, BranchEnd.C_MAX_MISSING),
    ]
    # No valid axiom came before, so the second branch is conditioned on none.
    assert "tried already" not in model.calls[1].messages[-1].content
    assert result.answer is None and result.stop_reason == StopReason.EXHAUSTED.value
