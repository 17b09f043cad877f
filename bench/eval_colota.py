"""Benchmark the CoLoTa adapter and the evaluation path per strategy on the bundled model.

    python bench/eval_colota.py PATH/TO/CR-LT-QA.json             # adapter only
    python bench/eval_colota.py PATH/TO/CR-LT-QA.json --limit 3   # plus seconds per question per strategy

Prints one table: what the adapter made of the file (median load time over 5 loads), then, with
--limit, the median seconds per question, model calls and tokens of each strategy at temperature 0
(no response cache, so every call reaches the model).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arkg.eval.colota import Effect, load_dataset
from arkg.eval.report import build_report
from arkg.eval.results import read_results
from arkg.eval.runner import run_evaluation
from arkg.eval.setup import plan_evaluation

STRATEGIES = (("cot", "constrained"), ("cot-fewshot", "constrained"), ("ark", "constrained"), ("ark", "free"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="questions per strategy (0: adapter only)")
    args = parser.parse_args()

    table = Table(title=f"CoLoTa evaluation path ({args.dataset.name})")
    table.add_column("What")
    table.add_column("Value", justify="right")
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        dataset = load_dataset(args.dataset)
        timings.append(time.perf_counter() - started)
    skipped = {p.id for p in dataset.problems if p.effect is Effect.QUESTION_SKIPPED}
    rows = [
        ("entries", f"{dataset.entries}"),
        ("usable questions", f"{len(dataset.questions)}"),
        ("questions skipped", f"{len(skipped)} ({', '.join(sorted(skipped))})"),
        ("triple items parsed", f"{dataset.items_parsed}"),
        ("items skipped", f"{sum(p.effect is Effect.ITEM_SKIPPED for p in dataset.problems)}"),
        ("distinct triples in the KG", f"{len(dataset.triples)}"),
        ("notes (entity not in triples)", f"{sum(p.effect is Effect.NOTE for p in dataset.problems)}"),
        ("load time, median of 5 (ms)", f"{statistics.median(timings) * 1000:.1f}"),
    ]
    if args.limit:
        rows += [row for strategy, mode in STRATEGIES for row in _strategy_rows(args.dataset, strategy, mode, args.limit)]
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _strategy_rows(dataset: Path, strategy: str, mode: str, limit: int) -> list[tuple[str, str]]:
    plan = plan_evaluation(dataset, strategy, None, limit=limit, mode=mode, cache=False)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.jsonl"
        try:
            run_evaluation(plan.questions, plan.factory, plan.config, out, show_progress=False)
        finally:
            plan.close()
        [system] = build_report([out])
        seconds = statistics.median(record.elapsed_s for record in read_results(out).records)
    label = strategy if strategy != "ark" else f"ark {mode}"
    return [
        (f"{label}: s/question, median of {limit}", f"{seconds:.1f}"),
        (f"{label}: model calls / tokens per question", f"{system.calls_per_question:.1f} / {system.tokens_per_question:,.0f}"),
    ]


if __name__ == "__main__":
    main()
