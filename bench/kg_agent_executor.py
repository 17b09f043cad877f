"""Benchmark the KG-Agent executor on the geography KG: build time and size, question counts, and
the time of one executor call (per tool) and of one enumeration of the valid next calls.

    python bench/kg_agent_executor.py                      # every generated question
    python bench/kg_agent_executor.py --questions 500      # the first 500

Builds the KG into a temporary directory (needs the `geo` extra), generates the questions with
seed 0, then replays every gold program step by step on a fresh Executor over the SQLite store,
timing `Executor.execute` and `next_calls` at each step. Prints tables.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arkg.agents.kg_agent import Executor, next_calls, parse_call
from arkg.datasets.geo import build_geo_kg, generate_questions
from arkg.graph import SQLiteGraph


def counts_table(title: str, counts: Counter[str] | Counter[int]) -> Table:
    table = Table(title=title)
    table.add_column(title.split(" by ")[-1])
    table.add_column("questions", justify="right")
    for key, count in sorted(counts.items(), key=lambda item: str(item[0])):
        table.add_row(str(key), f"{count:,}")
    table.add_row("all", f"{sum(counts.values()):,}")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=0, help="replay only the first N questions (0: all)")
    args = parser.parse_args()
    console = Console()
    console.print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    with tempfile.TemporaryDirectory() as folder:
        build = build_geo_kg(Path(folder) / "geo.db")
        stats = build.stats
        console.print(
            f"Geography KG: {stats.triples:,} triples, {stats.entities:,} entities, {stats.relations} relations;"
            f" built in {build.seconds:.2f} s"
        )
        with SQLiteGraph(build.path, create=False) as graph:
            started = time.perf_counter()
            questions = generate_questions(graph.iter_triples(), seed=0)
            console.print(f"{len(questions):,} questions generated in {time.perf_counter() - started:.2f} s")
            console.print(counts_table("Questions by template", Counter(q.template for q in questions)))
            console.print(counts_table("Questions by kind", Counter(q.kind for q in questions)))
            console.print(counts_table("Questions by hops", Counter(q.hops for q in questions)))
            replayed = questions[: args.questions] if args.questions else questions
            execute: dict[str, list[float]] = defaultdict(list)
            options: list[float] = []
            executor = Executor(graph)
            for question in replayed:
                memory = executor.start(question.question, question.entities)
                for line in question.program:
                    started = time.perf_counter()
                    next_calls(executor, memory)
                    options.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    executor.execute(memory, line)
                    execute[parse_call(line).tool].append(time.perf_counter() - started)
    table = Table(title=f"Per call, {len(replayed):,} gold programs replayed (milliseconds)")
    for column in ("operation", "calls", "median", "p90"):
        table.add_column(column, justify="left" if column == "operation" else "right")

    def row(name: str, seconds: list[float]) -> None:
        ordered = sorted(seconds)
        table.add_row(name, f"{len(ordered):,}", f"{statistics.median(ordered) * 1e3:.3f}", f"{ordered[int(0.9 * (len(ordered) - 1))] * 1e3:.3f}")

    for tool, seconds in sorted(execute.items()):
        row(f"execute {tool}", seconds)
    row("execute (all tools)", [s for seconds in execute.values() for s in seconds])
    row("next_calls (cap 256)", options)
    console.print(table)


if __name__ == "__main__":
    main()
