"""Time `arkg kg load` of synthetic JSON Lines through the real command line, search index included.

    python bench/kg_load.py                  # 1,000,000 triples, 3 runs
    python bench/kg_load.py --n 200000 --runs 5

The graph is bench/kg_ops.py's synthetic Wikidata-like neighbourhood (heavy-tailed out-degree,
1,000 relations, 80% fresh tail names, 10% of edges with props), written once into a temp dir.
Each run loads it into a new store with `arkg kg load FILE --db STORE` in a subprocess, so the
figures include starting Python and importing the command line, as a user sees them. CPU time is
the child's user + system time (resource.getrusage(RUSAGE_CHILDREN)): on a shared machine wall time
also counts other processes' turns. Prints each run and the medians.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kg_ops import SyntheticGraph

ARKG = [sys.executable, "-m", "arkg"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_load(source: Path, db: Path) -> tuple[float, float, str]:
    """(wall s, CPU s, the command's summary line) of one `arkg kg load`."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [*ARKG, "kg", "load", str(source), "--db", str(db)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "1000"},  # the summary on one line
    )
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"arkg kg load failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return wall, cpu, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of triples (default 1,000,000)")
    parser.add_argument("--runs", type=int, default=3, help="loads to time (default 3; the medians are reported)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, help="where to write the JSONL and the stores (default: a temp dir)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        source = Path(scratch) / "graph.jsonl"
        SyntheticGraph(args.n, random.Random(args.seed)).write(source)
        walls, cpus = [], []
        for run in range(1, args.runs + 1):
            db = Path(scratch) / f"run{run}.db"
            wall, cpu, summary = timed_load(source, db)
            db.unlink()
            walls.append(wall)
            cpus.append(cpu)
            print(f"run {run}: {wall:.2f} s wall, {cpu:.2f} s CPU, {args.n / wall:,.0f} / {args.n / cpu:,.0f} triples/s")
            print(f"  arkg: {summary}")
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(
        f"median of {args.runs}: {args.n:,} triples in {wall:.2f} s wall / {cpu:.2f} s CPU ="
        f" {args.n / wall:,.0f} triples/s wall, {args.n / cpu:,.0f} triples/s CPU"
    )


if __name__ == "__main__":
    main()
