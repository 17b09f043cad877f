"""The answer of an axiom from its premise judgements (paper Section 3.2.4), computed, not asked.

The premises are a conjunction that implies yes. So one premise shown unsatisfied by a cited fact
makes the answer False; every premise shown satisfied by cited facts makes it True; anything else
(a premise unknown, or judged without a fact to rest on) leaves it undetermined, and the search
goes on. Disjunctive axioms are not asked for.
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


def decide(judgements: Sequence[PremiseJudgement]) -> Verdict:
    """True / False / None from one judgement per premise (see the module doc)."""
    unsatisfied = tuple(j for j in judgements if j.grounded and j.status == "unsatisfied")
    if unsatisfied:
        return Verdict(False, unsatisfied, ())
    unknown = tuple(j.premise for j in judgements if not j.grounded)
    if judgements and not unknown:
        return Verdict(True, tuple(judgements), ())
    return Verdict(None, (), unknown)
