"""What accuracy alone hides, per system: gold evidence found and cited, grounding, abstention trade-offs.

Computed from the records of a results file (no model calls): evidence and grounding were measured
when each question was answered (arkg.eval.evidence, arkg.eval.grounding); grounded abstention is
applied afterwards (an answer citing no fact counts as None); the risk-coverage curve varies the
agreement a system's runs need before their shared answer counts.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arkg.agents.abstention import agreed_answer
from arkg.eval.metrics import Scores, score_runs
from arkg.eval.results import Record
from arkg.eval.scoring import definite, gold_answer, is_correct, outcome

# Agreement thresholds of the risk-coverage curve: from "any majority" to "all runs agree".
AGREEMENT_STEPS = (0.34, 0.5, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class EvidenceSummary:
    questions: int  # records with gold triples and a measurement
    retrieved_recall: float
    cited_recall: float
    citation_precision: float | None  # over records that cited something; None when none did
    hops: float
    unmatched_gold: int  # gold triples absent from the KG, over all records


@dataclass(frozen=True)
class GroundingSummary:
    checked: int  # records with a grounding check
    violations: int
    records_with_violations: int
    basis: dict[str, int]


@dataclass(frozen=True)
class CoveragePoint:
    agreement: float
    answer_rate: float
    conditional_accuracy: float | None


def evidence_summary(records: Sequence[Record]) -> EvidenceSummary | None:
    measured = [record.evidence for record in records if record.evidence is not None and record.evidence.gold]
    if not measured:
        return None
    precisions = [e.citation_precision for e in measured if e.citation_precision is not None]
    return EvidenceSummary(
        questions=len(measured),
        retrieved_recall=statistics.fmean(e.retrieved_recall for e in measured),
        cited_recall=statistics.fmean(e.cited_recall for e in measured),
        citation_precision=statistics.fmean(precisions) if precisions else None,
        hops=statistics.fmean(e.hops for e in measured),
        unmatched_gold=sum(len(e.unmatched_gold) for e in measured),
    )


def grounding_summary(records: Sequence[Record]) -> GroundingSummary | None:
    checked = [record.grounding for record in records if record.grounding is not None]
    if not checked:
        return None
    return GroundingSummary(
        checked=len(checked),
        violations=sum(len(g.violations) for g in checked),
        records_with_violations=sum(bool(g.violations) for g in checked),
        basis=dict(Counter(g.basis for g in checked)),
    )


def grounded_scores(runs: Sequence[Mapping[str, Record]]) -> Scores | None:
    """The paper's metrics when every answer that cites no fact counts as None."""
    if any(record.grounding is None and record.error is None for run in runs for record in run.values()):
        return None  # a file of an older version: citations were not recorded (a failed question has none)
    outcomes = [{qid: _grounded(record) for qid, record in run.items()} for run in runs]
    return score_runs(outcomes, dict.fromkeys(runs[0], True))


def risk_coverage(runs: Sequence[Mapping[str, Record]]) -> list[CoveragePoint]:
    """Answer rate and conditional accuracy when a question counts as answered only if its runs agree
    on one answer at least that often (self-consistency over the runs of a T > 0 evaluation)."""
    points = []
    questions = list(runs[0])
    for step in AGREEMENT_STEPS:
        decided = {qid: agreed_answer([_vote(run[qid]) for run in runs], step) for qid in questions}
        answered = [qid for qid, answer in decided.items() if answer is not None]
        correct = sum(is_correct(decided[qid], gold_answer(runs[0][qid].gold)) for qid in answered)
        points.append(
            CoveragePoint(
                agreement=step,
                answer_rate=len(answered) / len(questions),
                conditional_accuracy=correct / len(answered) if answered else None,
            )
        )
    return points


def _vote(record: Record) -> bool | str | None:
    """The record's answer as a vote: None unless definite; text compared case-insensitively."""
    if not definite(record.answer, gold_answer(record.gold)):
        return None
    return record.answer if isinstance(record.answer, bool) else str(record.answer).strip().casefold()


def _grounded(record: Record) -> bool | None:
    result = outcome(record.answer, record.correct, record.gold)
    return None if result is not None and not record.cited_triples else result
