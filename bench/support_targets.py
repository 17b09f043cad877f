"""Does "supported" predict "right"? The support verdict, re-checked with today's check, against the gold.

    python bench/support_targets.py bench/heldout_kgs/*/results/*--default.jsonl
    python bench/support_targets.py --default kg-agent --repeats 5 RESULTS.jsonl [...]

Each results file is `arkg eval`'s, written under `<KG folder>/results/` (bench/heldout_eval.py's layout),
so the KG it ran on is `<KG folder>/kg.db` (or --db). Every definite answer's support is checked again
with the current `arkg.agents.support` and that KG (the same inputs the run had: the answer, the cited
triples, the entities and computations its trace records), so that a change of the check is measured on
the same answers. Records of questions the file's folder lists in `unknown_entity.jsonl` count apart: they
must end in None naming the missing name.

Prints, per strategy and over all: right and wrong answers and how many of each the check calls supported,
the accuracy among supported answers, the risk-coverage points with support as the selector (all answers;
supported ones only), the unknown-entity questions answered None with the name, and the check's cost per
answer (median and p95 over `--repeats` timings of each).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from arkg.agents.strategy import read_trace
from arkg.agents.support import check_support
from arkg.eval.results import read_results
from arkg.graph import open_graph
from arkg.graph.model import Triple

UNKNOWN_FILE = "unknown_entity.jsonl"


@dataclass
class Tally:
    questions: int = 0
    right: int = 0
    wrong: int = 0
    right_supported: int = 0
    wrong_supported: int = 0
    unknown: int = 0
    unknown_named: int = 0
    costs: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("questions", "right", "wrong", "right_supported", "wrong_supported", "unknown", "unknown_named"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.costs += other.costs


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def unknown_names(folder: Path) -> dict[str, list[str]]:
    path = folder / UNKNOWN_FILE
    if not path.exists():
        return {}
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {entry["id"]: entry.get("unknown", []) for entry in entries}


def tally(path: Path, db: Path | None, repeats: int) -> tuple[str, Tally]:
    folder = path.parent.parent
    kg = open_graph(str(db or folder / "kg.db"), read_only=True)
    missing = unknown_names(folder)
    results = read_results(path)
    counts = Tally()
    for (question_id, _), record in results.latest().items():
        if question_id in missing:
            counts.unknown += 1
            named = record.grounding is not None and record.grounding.support is not None and record.grounding.support.missing
            counts.unknown_named += record.answer is None and bool(named) and set(named) == set(missing[question_id])
            continue
        counts.questions += 1
        if record.answer is None or record.trace is None:
            continue
        trace = read_trace(record.strategy, record.trace)
        cited = [Triple(t["head"], t["relation"], t["tail"], dict(t.get("props") or {})) for t in record.cited_triples]
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            support = check_support(
                answer=record.answer, question=trace.question, cited=cited, entities=trace.linked_entities(),
                computations=trace.computations(), kg=kg,
            )  # fmt: skip
            timings.append(time.perf_counter() - started)
        counts.costs.append(statistics.median(timings))
        if record.correct:
            counts.right += 1
            counts.right_supported += support.supported
        else:
            counts.wrong += 1
            counts.wrong_supported += support.supported
    kg.close()
    return results.config.strategy, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--db", type=Path, help="The KG of every file (default: <folder>/kg.db beside its results/).")
    parser.add_argument("--default", default="kg-agent", help="The default strategy, whose supported accuracy is a target.")
    parser.add_argument("--repeats", type=int, default=5, help="Timings of each check (its median counts).")
    args = parser.parse_args()
    by_strategy: dict[str, Tally] = defaultdict(Tally)
    for path in args.results:
        strategy, counts = tally(path, args.db, args.repeats)
        by_strategy[strategy].add(counts)
    overall = Tally()
    print("| strategy | questions | right: supported | wrong: supported | accuracy among supported "
          "| risk-coverage: all answers · supported only | unknown entity: None naming it |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for strategy, counts in sorted(by_strategy.items()):
        overall.add(counts)
        print(f"| {strategy} | {counts.questions} | {share(counts.right_supported, counts.right)} "
              f"| {share(counts.wrong_supported, counts.wrong)} "
              f"| {share(counts.right_supported, counts.right_supported + counts.wrong_supported)} "
              f"| {coverage(counts.right, counts.wrong, counts.questions)} · "
              f"{coverage(counts.right_supported, counts.wrong_supported, counts.questions)} "
              f"| {share(counts.unknown_named, counts.unknown)} |")  # fmt: skip
    default = by_strategy.get(args.default, Tally())
    costs = sorted(overall.costs)
    p95 = costs[min(len(costs) - 1, int(0.95 * len(costs)))] * 1000 if costs else float("nan")
    print()
    print("| measure | all strategies | target |")
    print("| --- | --- | --- |")
    print(f"| wrong answers labelled supported | {share(overall.wrong_supported, overall.wrong)} | <= 5% |")
    print(f"| right answers labelled supported | {share(overall.right_supported, overall.right)} | >= 85% |")
    accuracy = share(default.right_supported, default.right_supported + default.wrong_supported)
    print(f"| accuracy among supported answers ({args.default}) | {accuracy} | >= 97% |")
    print(f"| a question naming an entity not in the KG: None, naming it | {share(overall.unknown_named, overall.unknown)} | 100% |")
    median = statistics.median(costs) * 1000 if costs else float("nan")
    print(f"| support check cost per answer | {median:.2f} ms median, {p95:.2f} ms p95 ({len(costs)} answers) | <= 5 ms p95 |")


def coverage(right: int, wrong: int, questions: int) -> str:
    """Coverage (answers counted / questions) and risk (wrong among them)."""
    answered = right + wrong
    if not questions:
        return "-"
    risk = f"{100 * wrong / answered:.0f}%" if answered else "-"
    return f"{100 * answered / questions:.0f}% at risk {risk}"


if __name__ == "__main__":
    main()
