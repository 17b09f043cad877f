"""Aggregate results files into a results table (cf. the paper's Table III where the protocol matches),
open-question metrics, and a breakdown by CoLoTa reasoning strategy.

One row ("system") per strategy, model, selection mode, KG and temperature. Only questions answered
in every run of a system are scored, so that runs stay comparable; the rest are counted in `notes`.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from arkg.agents import PaperProtocol, follows_protocol
from arkg.eval.labels import system_labels
from arkg.eval.metrics import Scores, describe_undefined, reliability, score_runs
from arkg.eval.open_metrics import OpenScores, answer_set_score, score_open_runs
from arkg.eval.quality import (
    CoveragePoint,
    EvidenceSummary,
    GroundingSummary,
    evidence_summary,
    grounded_scores,
    grounding_summary,
    risk_coverage,
)
from arkg.eval.results import Record, RunConfig, read_results
from arkg.eval.scoring import gold_answer, outcome
from arkg.eval.setup import PER_QUESTION_KG


@dataclass(frozen=True)
class StrategyAccuracy:
    """Accuracy on the questions tagged with one CoLoTa reasoning strategy (mean over runs)."""

    questions: int
    overall_accuracy: float
    answer_rate: float


@dataclass
class SystemReport:
    label: str
    config: RunConfig
    scores: Scores
    # Per-question reliability (empty with a single run).
    reliabilities: list[float]
    calls_per_question: float
    tokens_per_question: float
    failed: int
    by_reasoning_strategy: dict[str, StrategyAccuracy]
    # The open-question metrics over the system's open questions (gold: names or a number); None without any.
    open_scores: OpenScores | None = None
    # Answers to yes/no questions, summed over runs: True, False, None (no definite answer).
    yes_no_answers: Counter[bool | None] = field(default_factory=Counter)
    evidence: EvidenceSummary | None = None
    grounding: GroundingSummary | None = None
    # The metrics again with grounded abstention (an answer citing no fact counts as None).
    grounded: Scores | None = None
    # Share of definite answers whose cited facts support them; None when no record says (older files).
    supported_share: float | None = None
    # The metrics with support as the selector (an unsupported answer counts as None): answer rate is the
    # coverage, conditional accuracy the accuracy among supported answers.
    supported: Scores | None = None
    # Self-consistency over the runs (several runs only): answer rate vs conditional accuracy.
    coverage: list[CoveragePoint] = field(default_factory=list)
    # The records scored, by (question, run), for comparisons between systems (perturbations, paired tests).
    records: dict[tuple[str, int], Record] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def question_ids(self) -> frozenset[str]:
        return frozenset(question_id for question_id, _ in self.records)


def follows_paper(config: RunConfig) -> PaperProtocol | None:
    """The paper whose protocol a run follows, if any: its strategy's paper settings (`--protocol
    paper`), an untuned backbone, and each question's own unaltered graph (the papers searched each
    question's neighbourhood, not one KG made of every question's gold facts)."""
    per_question = config.kg == PER_QUESTION_KG or config.kg.startswith(PER_QUESTION_KG + ":")
    if not per_question or config.perturbation != "none" or _tuned(config):
        return None
    return follows_protocol(config.strategy, config.settings)


def _tuned(config: RunConfig) -> bool:
    """A LoRA adapter on the model (arkg.data.TUNED_ADAPTERS or any other): llama.cpp names it after the
    base as `BASE.gguf+ADAPTER.gguf`, and its identity ends in the adapter's hash."""
    name = config.model.lower()
    return "+lora:" in config.model_identity or (name.startswith("llamacpp:") and ".gguf+" in name)


def build_report(paths: Iterable[Path], on_unscored: Callable[[Path], None] | None = None) -> list[SystemReport]:
    """One SystemReport per system found in the files (files of the same system are merged); a file
    without any gold answer (a batch of questions) is passed to `on_unscored` instead.

    A system is the label's parts plus the model's identity (two adapters both named adapter.gguf are
    two systems) and every setting (compare_values on and off are two systems); where such systems share
    a label, what tells them apart is added to it (labels.system_labels)."""
    groups: dict[tuple, tuple[RunConfig, dict[tuple[str, int], Record]]] = {}
    for path in paths:
        results = read_results(path)
        if results.records and all(record.gold is None for record in results.records):
            if on_unscored is not None:  # questions asked without gold answers: nothing to score
                on_unscored(path)
            continue
        config = results.config
        settings = json.dumps(config.settings, sort_keys=True, default=str)
        key = (config.strategy, config.model, config.kg, config.perturbation, config.model_identity or config.model,
               settings, config.temperature, config.dataset_sha256)  # fmt: skip
        groups.setdefault(key, (config, {}))[1].update(results.latest())
    kept = [(config, records) for config, records in groups.values() if records]
    labels = system_labels([config for config, _ in kept])
    return [_system(config, records, label) for (config, records), label in zip(kept, labels)]


def _system(config: RunConfig, records: dict[tuple[str, int], Record], label: str) -> SystemReport:
    by_run: dict[int, dict[str, Record]] = defaultdict(dict)
    for (question_id, run), record in records.items():
        by_run[run][question_id] = record
    runs = [by_run[run] for run in sorted(by_run)]
    common = set.intersection(*(set(run) for run in runs))
    notes = []
    partial = set.union(*(set(run) for run in runs)) - common
    if partial:
        notes.append(f"{len(partial)} question(s) answered in only some of the {len(runs)} runs are left out")
    kept = [{qid: run[qid] for qid in common} for run in runs]
    answers = [{qid: _outcome(record) for qid, record in run.items()} for run in kept]
    # Outcomes are True when right: scored against True everywhere (see scoring.outcome).
    gold = dict.fromkeys(kept[0], True)
    scores = score_runs(answers, gold)
    notes += describe_undefined(scores)
    everything = [record for run in kept for record in run.values()]
    failed = sum(record.error is not None for record in everything)
    if failed:
        notes.append(f"{failed} answer(s) failed with an error and count as None")
    return SystemReport(
        label=label,
        config=config,
        scores=scores,
        reliabilities=[reliability([a[qid] for a in answers]) for qid in sorted(common)] if len(runs) > 1 else [],
        calls_per_question=statistics.fmean(r.usage.total_calls for r in everything),
        tokens_per_question=statistics.fmean(r.usage.total_tokens for r in everything),
        failed=failed,
        by_reasoning_strategy=_by_reasoning_strategy(kept),
        open_scores=_open_scores(kept),
        yes_no_answers=Counter(record.answer for record in everything if isinstance(record.gold, bool)),
        evidence=evidence_summary(everything),
        grounding=grounding_summary(everything),
        grounded=grounded_scores(kept),
        supported_share=_supported_share(everything),
        supported=_supported_scores(kept),
        coverage=risk_coverage(kept) if len(runs) > 1 else [],
        records={(qid, record.run): record for run in kept for qid, record in run.items()},
        notes=notes,
    )


def _outcome(record: Record) -> bool | None:
    return outcome(record.answer, record.correct, record.gold)


def _supported_share(records: list[Record]) -> float | None:
    answered = [record for record in records if _outcome(record) is not None and record.support is not None]
    return sum(record.support.supported for record in answered if record.support) / len(answered) if answered else None


def _supported_scores(runs: list[dict[str, Record]]) -> Scores | None:
    """Risk-coverage with support as the selector: only answers their cited facts support count."""
    if any(record.support is None and record.error is None for run in runs for record in run.values()):
        return None  # a file of an older version: support was not checked (a failed question has none)
    outcomes = [
        {qid: _outcome(record) if record.support is not None and record.support.supported else None for qid, record in run.items()}
        for run in runs
    ]
    return score_runs(outcomes, dict.fromkeys(runs[0], True))


def _open_scores(runs: list[dict[str, Record]]) -> OpenScores | None:
    """The open-question metrics, recomputed from each answer and its gold names (or number)."""
    scored = [
        {
            qid: answer_set_score(record.answer, gold_answer(record.gold))
            for qid, record in run.items()
            if record.gold is not None and not isinstance(record.gold, bool)
        }
        for run in runs
    ]
    return score_open_runs(scored) if scored[0] else None


def _by_reasoning_strategy(runs: list[dict[str, Record]]) -> dict[str, StrategyAccuracy]:
    tagged: dict[str, list[str]] = defaultdict(list)
    for qid, record in runs[0].items():
        for label in record.reasoning_strategies:
            tagged[label].append(qid)
    result = {}
    for label, qids in sorted(tagged.items()):
        overall = [statistics.fmean(run[qid].correct for qid in qids) for run in runs]
        answered = [statistics.fmean(_outcome(run[qid]) is not None for qid in qids) for run in runs]
        result[label] = StrategyAccuracy(len(qids), statistics.fmean(overall), statistics.fmean(answered))
    return result


@dataclass(frozen=True)
class PerturbationEffect:
    """How a system's answers moved when each question's KG was perturbed, against the same system
    on the unperturbed KG (same questions and runs)."""

    system: SystemReport
    baseline: SystemReport
    compared: int  # (question, run) pairs in both, where the perturbation applied
    not_applied: int  # pairs where it could not apply (no gold triple in the KG, no wrong tail)
    abstained: int  # answered on the original KG, None on the perturbed one
    changed: int  # a different answer (None included)
    correct: int  # still right by the gold answer


def perturbation_effects(systems: list[SystemReport]) -> list[PerturbationEffect]:
    """Pair each perturbed system with its unperturbed twin and compare their answers."""
    def twin_key(system: SystemReport) -> tuple:
        config = system.config
        return (config.strategy, config.model, config.kg, config.temperature, config.dataset_sha256,
                tuple(sorted((k, str(v)) for k, v in config.settings.items())))

    baselines = {twin_key(system): system for system in systems if system.config.perturbation == "none"}
    effects = []
    for system in systems:
        baseline = baselines.get(twin_key(system))
        if system.config.perturbation == "none" or baseline is None:
            continue
        common = system.records.keys() & baseline.records.keys()
        applied = [key for key in common if system.records[key].perturbation]
        before = {key: _outcome_answer(baseline.records[key]) for key in applied}
        after = {key: _outcome_answer(system.records[key]) for key in applied}
        effects.append(
            PerturbationEffect(
                system=system,
                baseline=baseline,
                compared=len(applied),
                not_applied=len(common) - len(applied),
                abstained=sum(before[key] is not None and after[key] is None for key in applied),
                changed=sum(before[key] != after[key] for key in applied),
                correct=sum(system.records[key].correct for key in applied),
            )
        )
    return effects


def _outcome_answer(record: Record) -> bool | str | None:
    """The record's answer when definite for its question, else None."""
    return record.answer if outcome(record.answer, record.correct, record.gold) is not None else None
