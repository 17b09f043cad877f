"""A synthesis report as tables (for the command line and the benchmark notes): what each source
gave, the pairs by strategy, decision, mode and variant, and every question that failed, by reason."""

from __future__ import annotations

from collections import Counter, defaultdict

from arkg.synth.pipeline import Variant
from arkg.synth.run import SynthReport
from arkg.tables import Table


def sources_table(report: SynthReport) -> Table:
    rows = [
        [s.name, str(s.questions), str(s.kept), str(s.chains), str(s.programs), str(s.pairs)] for s in report.sources
    ]
    return Table(
        "Sources",
        ["source", "questions", "kept by split", "grounded chains", "programs", "pairs"],
        rows,
        "programs: chains whose KG-Agent program, replayed on the KG, reproduces the gold answer",
    )


def pairs_table(report: SynthReport) -> Table:
    by_row: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for (strategy, decision, mode, variant), count in report.counts.items():
        by_row[(strategy, decision, mode)][variant] += count
    variants = [variant.value for variant in Variant]
    rows = [
        [strategy, decision, mode, *(str(counts[v]) for v in variants), str(sum(counts.values()))]
        for (strategy, decision, mode), counts in sorted(by_row.items())
    ]
    rows.append(["all", "", "", *(str(sum(c[v] for c in by_row.values())) for v in variants), str(report.pairs)])
    return Table(
        "Pairs",
        ["strategy", "decision", "mode", *variants, "total"],
        rows,
        "mode `any`: the same prompt and reply in every selection mode",
    )


def failures_table(report: SynthReport, max_ids: int | None = 12) -> Table:
    grouped: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for source in report.sources:
        for item in source.unusable:
            grouped[(source.name, item.stage, item.reason.value)].append(item.id)
    rows = []
    for (source, stage, reason), ids in sorted(grouped.items(), key=lambda pair: (pair[0][0], _stage_order(pair[0][1]), -len(pair[1]))):
        shown = ids if max_ids is None or len(ids) <= max_ids else [*ids[:max_ids], f"+{len(ids) - max_ids} more"]
        rows.append([source, stage, reason, str(len(ids)), ", ".join(shown)])
    return Table("Questions not used, by stage and reason", ["source", "stage", "reason", "questions", "ids"], rows)


def _stage_order(stage: str) -> tuple[int, str]:
    first = {"chain": 0, "program": 1}
    return first.get(stage, 2), stage
