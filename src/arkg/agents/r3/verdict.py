"""The answer of an axiom from its premise judgements (paper Section 3.2.4), computed, not asked.

A premise set is a conjunction that implies yes. So one premise shown unsatisfied by a cited fact
violates the set; every premise shown satisfied by cited facts satisfies it; anything else (a premise
unknown, or judged without a fact to rest on) leaves it open. An axiom is one set, or several
alternatives (a disjunction of sets): any satisfied set makes the answer True; False needs every set
violated; otherwise the answer is undetermined, and the search goes on to ground the premises of the
sets still open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arkg.agents.r3.trace import PremiseJudgement
from arkg.agents.strategy import Answer


@dataclass(frozen=True)
class Verdict:
    answer: Answer  # True, False, or None (undetermined)
    rests_on: tuple[PremiseJudgement, ...]  # the judgements the answer rests on
    unknown: tuple[str, ...]  # premises not grounded

    @property
    def cited_keys(self) -> list[str]:
        return list(dict.fromkeys(key for judgement in self.rests_on for key in judgement.cited_keys))


def decide(judgements: Sequence[PremiseJudgement], premise_sets: Sequence[Sequence[str]] | None = None) -> Verdict:
    """True / False / None from one judgement per premise (see the module doc). `premise_sets` holds
    the premise ids of each alternative; None: the premises judged are one set."""
    by_premise = {judgement.premise: judgement for judgement in judgements}
    sets = [[by_premise[premise] for premise in premises] for premises in premise_sets or [list(by_premise)]]
    violations = [tuple(j for j in judged if j.grounded and j.status == "unsatisfied") for judged in sets]
    open_sets = [judged for judged, violated in zip(sets, violations) if not violated]
    for judged in open_sets:
        if judged and all(j.grounded for j in judged):
            return Verdict(True, tuple(judged), ())
    if not open_sets:
        return Verdict(False, tuple(j for violated in violations for j in violated), ())
    return Verdict(None, (), tuple(j.premise for judged in open_sets for j in judged if not j.grounded))
