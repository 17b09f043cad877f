"""The metrics of open-question KGQA (WebQSP, CWQ, MetaQA: gold answers are sets of names), from each
answer's names against the gold names (arkg.eval.scoring.match_names).

Per question: Hits@1 as RoG counts it (any name given is gold), strict Hits@1 (the first name given is
gold), exact match (the names and the gold names pair up exactly), and precision, recall and F1 of
the answer's names against the gold set. An answer naming nothing (None, an error, a yes/no answer)
scores 0 on all of them, as RoG's evaluation counts it. Each is averaged over the questions (macro)
per run, then summarised over runs as the paper's metrics are (arkg.eval.metrics).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arkg.agents.strategy import Answer
from arkg.eval.dataset import GoldAnswer
from arkg.eval.metrics import Spread, spread
from arkg.eval.scoring import match_names


@dataclass(frozen=True)
class AnswerSetScore:
    """One answer to an open question."""

    hit: bool
    strict_hit: bool
    exact: bool
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class OpenScores:
    """A system's open-question metrics over its runs; the three hit rates carry Wilson intervals."""

    runs: int
    questions: int
    hits_at_1: Spread
    strict_hits_at_1: Spread
    exact_match: Spread
    precision: Spread
    recall: Spread
    f1: Spread


def answer_set_score(answer: Answer | Sequence[str], gold: GoldAnswer) -> AnswerSetScore:
    match = match_names(answer, gold)
    precision = match.matched / len(match.named) if match.named else 0.0
    recall = match.matched / len(match.gold) if match.gold else 0.0
    return AnswerSetScore(
        hit=match.matched > 0,
        strict_hit=match.first_is_gold,
        exact=match.exact,
        precision=precision,
        recall=recall,
        f1=2 * precision * recall / (precision + recall) if precision + recall else 0.0,
    )


def score_open_runs(runs: Sequence[Mapping[str, AnswerSetScore]]) -> OpenScores:
    """Macro averages per run (the same open questions in every run), summarised over runs."""
    if not runs or not runs[0]:
        raise ValueError("no open question to score")
    questions = len(runs[0])

    def over_runs(value, interval: bool = False) -> Spread:  # type: ignore[no-untyped-def]
        per_run = [sum(value(score) for score in run.values()) / len(run) for run in runs]
        return spread(per_run, questions if interval else None)

    return OpenScores(
        runs=len(runs),
        questions=questions,
        hits_at_1=over_runs(lambda score: score.hit, interval=True),
        strict_hits_at_1=over_runs(lambda score: score.strict_hit, interval=True),
        exact_match=over_runs(lambda score: score.exact, interval=True),
        precision=over_runs(lambda score: score.precision),
        recall=over_runs(lambda score: score.recall),
        f1=over_runs(lambda score: score.f1),
    )
