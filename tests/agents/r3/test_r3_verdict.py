"""The verdict rule: computed from the premise judgements, never asked of the model."""

from __future__ import annotations

import pytest

from arkg.agents.r3.trace import PremiseJudgement
from arkg.agents.r3.verdict import decide


def j(premise: str, status: str, *keys: str) -> PremiseJudgement:
    return PremiseJudgement(premise=premise, status=status, cited_keys=list(keys))


@pytest.mark.parametrize(
    ("judgements", "answer", "rests_on", "unknown"),
    [
        ([j("P1", "satisfied", "T1"), j("P2", "satisfied", "T2")], True, ["P1", "P2"], []),
        ([j("P1", "satisfied", "T1"), j("P2", "unsatisfied", "T2")], False, ["P2"], []),
        # One grounded unsatisfied premise settles the conjunction even when another is unknown.
        ([j("P1", "unknown"), j("P2", "unsatisfied", "T2")], False, ["P2"], []),
        ([j("P1", "satisfied", "T1"), j("P2", "unknown")], None, [], ["P2"]),
        # Judged without a fact to rest on: not grounded, so it counts as unknown.
        ([j("P1", "satisfied"), j("P2", "satisfied", "T2")], None, [], ["P1"]),
        ([j("P1", "unsatisfied")], None, [], ["P1"]),
        ([], None, [], []),
    ],
)
def test_the_answer_follows_from_the_judgements(judgements, answer, rests_on, unknown):
    verdict = decide(judgements)
    assert verdict.answer is answer
    assert [judgement.premise for judgement in verdict.rests_on] == rests_on
    assert list(verdict.unknown) == unknown


def test_the_cited_keys_are_those_of_the_premises_the_answer_rests_on_each_once():
    verdict = decide([j("P1", "satisfied", "T1", "T3"), j("P2", "satisfied", "T3", "T2")])
    assert verdict.cited_keys == ["T1", "T3", "T2"]
    assert decide([j("P1", "satisfied", "T1"), j("P2", "unsatisfied", "T4")]).cited_keys == ["T4"]


# A disjunctive axiom: P1 and P2 are one way to yes, P3 the other.
SETS = [["P1", "P2"], ["P3"]]


@pytest.mark.parametrize(
    ("judgements", "answer", "rests_on", "unknown"),
    [
        # The first set fails, the second holds: the answer rests on the second alone.
        ([j("P1", "unsatisfied", "T1"), j("P2", "satisfied", "T2"), j("P3", "satisfied", "T3")], True, ["P3"], []),
        ([j("P1", "satisfied", "T1"), j("P2", "satisfied", "T2"), j("P3", "unknown")], True, ["P1", "P2"], []),
        # Every set fails: each set's unsatisfied premises are what the answer rests on.
        ([j("P1", "satisfied", "T1"), j("P2", "unsatisfied", "T2"), j("P3", "unsatisfied", "T3")], False, ["P2", "P3"], []),
        ([j("P1", "unknown"), j("P2", "unsatisfied", "T2"), j("P3", "unsatisfied", "T3")], False, ["P2", "P3"], []),
        # One set fails and the other is open: undetermined, and only the open set's premises are worth grounding.
        ([j("P1", "unknown"), j("P2", "unsatisfied", "T2"), j("P3", "unknown")], None, [], ["P3"]),
        ([j("P1", "satisfied", "T1"), j("P2", "unknown"), j("P3", "unsatisfied", "T3")], None, [], ["P2"]),
        ([j("P1", "unknown"), j("P2", "satisfied"), j("P3", "unknown")], None, [], ["P1", "P2", "P3"]),
    ],
)
def test_a_disjunctive_axiom_holds_when_any_set_holds_and_fails_only_when_every_set_fails(judgements, answer, rests_on, unknown):
    verdict = decide(judgements, SETS)
    assert verdict.answer is answer
    assert [judgement.premise for judgement in verdict.rests_on] == rests_on
    assert list(verdict.unknown) == unknown


def test_one_premise_set_decides_as_the_premises_judged_without_sets():
    judgements = [j("P1", "unknown"), j("P2", "unsatisfied", "T2")]
    assert decide(judgements, [["P1", "P2"]]) == decide(judgements)
