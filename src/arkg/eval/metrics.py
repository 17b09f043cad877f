"""The ARK-V1 paper's four metrics (Section IV-B) for yes/no questions answered True, False or None.

Answers are given per run: `runs[r][question_id]` is the answer of run r (None = no definite answer).
Accuracy-type metrics are computed per run and summarised as mean ± sample standard deviation
(ddof = 1) over runs; the deviation is None for a single run. Accuracies also carry a 95% Wilson
interval over the questions they count: how far a figure measured on this many questions may lie from
the system's accuracy on questions like them. With several runs it is placed at the mean over runs
and sized by the questions (not questions × runs: a question's runs are no independent draws).
Reliability needs several runs and is None for one.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from arkg.eval.stats import Interval, wilson

Answer = bool | None
RunAnswers = Mapping[str, Answer]

# The answer classes of the reliability score: True, False and None (paper: K = 3).
ANSWER_CLASSES = 3


@dataclass(frozen=True)
class RunScores:
    """Metrics of one run, as fractions in 0..1. Conditional accuracy is None when nothing was answered."""

    questions: int
    answer_rate: float
    conditional_accuracy: float | None
    overall_accuracy: float


@dataclass(frozen=True)
class Spread:
    """Mean and sample standard deviation (ddof = 1) over runs; std is None with fewer than two values.
    A proportion may carry its 95% interval (see the module's note)."""

    mean: float
    std: float | None
    runs: int
    interval: Interval | None = None


@dataclass(frozen=True)
class Scores:
    """A system's metrics over all its runs. Fields are None where undefined (see `describe_undefined`)."""

    runs: int
    questions: int
    answer_rate: Spread
    # Mean over the runs in which at least one question was answered; None if no run answered any.
    conditional_accuracy: Spread | None
    overall_accuracy: Spread
    # Mean per-question reliability; None for a single run (stability across runs is undefined).
    reliability: float | None


def score_run(answers: RunAnswers, gold: Mapping[str, bool]) -> RunScores:
    """Answer rate, conditional and overall accuracy of one run over the questions in `answers`."""
    if not answers:
        raise ValueError("cannot score a run without answers")
    missing = answers.keys() - gold.keys()
    if missing:
        raise ValueError(f"no gold answer for {sorted(missing)[:5]}")
    definite = [qid for qid, answer in answers.items() if answer is not None]
    correct = sum(answers[qid] == gold[qid] for qid in definite)
    return RunScores(
        questions=len(answers),
        answer_rate=len(definite) / len(answers),
        conditional_accuracy=correct / len(definite) if definite else None,
        overall_accuracy=correct / len(answers),
    )


def reliability(answers: Sequence[Answer]) -> float:
    """1 - H / log2(K) of one question's answers over runs: 1 when all agree, 0 when spread evenly over K=3."""
    if len(answers) < 2:
        raise ValueError("reliability needs answers from at least two runs")
    counts = Counter(answers)
    entropy = -sum(n / len(answers) * math.log2(n / len(answers)) for n in counts.values())
    return 1.0 - entropy / math.log2(ANSWER_CLASSES)


def spread(values: Sequence[float], questions: float | None = None) -> Spread:
    """Mean and deviation of per-run values; with `questions` (how many each value counts, a mean over
    runs) also the Wilson interval of the mean as a proportion of them."""
    mean = statistics.fmean(values)
    return Spread(
        mean=mean,
        std=statistics.stdev(values) if len(values) > 1 else None,
        runs=len(values),
        interval=wilson(mean * questions, questions) if questions else None,
    )


def score_runs(runs: Sequence[RunAnswers], gold: Mapping[str, bool]) -> Scores:
    """Scores over N runs of the same questions (N = 1 for the T = 0 protocol, N > 1 for T > 0)."""
    if not runs:
        raise ValueError("cannot score zero runs")
    question_ids = set(runs[0])
    for index, run in enumerate(runs[1:], start=2):
        if set(run) != question_ids:
            raise ValueError(f"run {index} answered other questions than run 1; score complete runs only")
    per_run = [score_run(run, gold) for run in runs]
    answering = [s for s in per_run if s.conditional_accuracy is not None]
    answered = statistics.fmean(s.answer_rate * s.questions for s in answering) if answering else 0
    return Scores(
        runs=len(runs),
        questions=len(question_ids),
        answer_rate=spread([s.answer_rate for s in per_run]),
        conditional_accuracy=spread([s.conditional_accuracy for s in answering], answered) if answering else None,
        overall_accuracy=spread([s.overall_accuracy for s in per_run], len(question_ids)),
        reliability=(
            statistics.fmean(reliability([run[qid] for run in runs]) for qid in sorted(question_ids))
            if len(runs) > 1
            else None
        ),
    )


def describe_undefined(scores: Scores) -> list[str]:
    """Plain-language reasons for each metric that is undefined (None) in `scores`."""
    reasons = []
    if scores.conditional_accuracy is None:
        reasons.append("conditional accuracy is undefined: no question received a definite answer")
    if scores.reliability is None:
        reasons.append("reliability is undefined: it measures agreement across runs and there is only one run")
    return reasons
