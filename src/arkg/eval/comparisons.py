"""Systems of one report against each other and against chance: which ran on other questions, what
answering the same thing every time scores, and which differences are larger than chance (paired
exact McNemar over the questions both systems ran)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from arkg.eval.metrics import Scores, score_runs
from arkg.eval.report import SystemReport
from arkg.eval.stats import mcnemar_p


@dataclass(frozen=True)
class Baseline:
    """A constant answer to every yes/no question of a question set."""

    label: str
    answer: bool
    scores: Scores


@dataclass(frozen=True)
class PairedComparison:
    first: SystemReport
    second: SystemReport
    shared: int  # questions both systems ran
    first_accuracy: float  # over the shared questions
    second_accuracy: float
    only_first: int  # shared questions only the first system got right
    only_second: int
    p: float  # exact two-sided McNemar


def question_sets(systems: list[SystemReport]) -> list[list[SystemReport]]:
    """The systems grouped by the set of question ids they were scored on, in order of first appearance."""
    groups: dict[frozenset[str], list[SystemReport]] = {}
    for system in systems:
        groups.setdefault(system.question_ids, []).append(system)
    return list(groups.values())


def question_set_warning(systems: list[SystemReport]) -> str | None:
    """Names the rows when they ran on different question sets (their accuracies are then not comparable)."""
    groups = question_sets(systems)
    if len(groups) < 2:
        return None
    described = "; ".join(
        f"{len(group[0].question_ids)} questions: " + ", ".join(system.label for system in group) for group in groups
    )
    return (
        f"the rows ran on {len(groups)} different question sets ({described}); their accuracies are not "
        "comparable, and paired tests use only the questions both systems ran."
    )


def constant_baselines(systems: list[SystemReport]) -> list[Baseline]:
    """Always True and always False over each question set whose questions are all yes/no: the floor a
    system must clear (on 10 questions split 5/5, a coin's 50% ties always True)."""
    groups = question_sets(systems)
    baselines = []
    for group in groups:
        gold = {qid: record.gold for (qid, _), record in group[0].records.items()}
        if not all(isinstance(answer, bool) for answer in gold.values()):
            continue
        where = f" · questions of {group[0].label}" if len(groups) > 1 else ""
        for constant in (True, False):
            scores = score_runs([dict.fromkeys(gold, constant)], gold)  # type: ignore[arg-type]
            baselines.append(Baseline(f"always {constant}{where}", constant, scores))
    return baselines


def paired_comparisons(systems: list[SystemReport]) -> list[PairedComparison]:
    """Every two single-run systems, over the questions both ran (a question's `correct`, None counting
    as wrong); pairs sharing no question are left out."""
    single = [system for system in systems if system.scores.runs == 1]
    correct = {id(system): {qid: record.correct for (qid, _), record in system.records.items()} for system in single}
    comparisons = []
    for first, second in itertools.combinations(single, 2):
        a, b = correct[id(first)], correct[id(second)]
        shared = a.keys() & b.keys()
        if not shared:
            continue
        only_first = sum(a[qid] and not b[qid] for qid in shared)
        only_second = sum(b[qid] and not a[qid] for qid in shared)
        comparisons.append(
            PairedComparison(
                first=first,
                second=second,
                shared=len(shared),
                first_accuracy=sum(a[qid] for qid in shared) / len(shared),
                second_accuracy=sum(b[qid] for qid in shared) / len(shared),
                only_first=only_first,
                only_second=only_second,
                p=mcnemar_p(only_first, only_second),
            )
        )
    return comparisons
