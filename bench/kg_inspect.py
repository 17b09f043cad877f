"""Time `arkg kg entities --search`, `kg entities` and `kg relations` on stores of 1M and 10M edges.

    python bench/kg_inspect.py                       # 1M and 10M edges
    python bench/kg_inspect.py --sizes 1000000       # 1M only

Stores are bench/kg_ops.py's synthetic graph, built once with `arkg kg load` and kept in
CACHE (printed; a temp dir named after this script) so later runs time the commands only: the 10M
store takes minutes to build and about 1.5 GiB. Each command runs in a subprocess, as a user runs
it (Python start and imports included), 5 times; medians are printed beside the time of
`arkg kg --help`, which is that start-up alone.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kg_ops import SyntheticGraph

from arkg.graph import SQLiteGraph

ARKG = [sys.executable, "-m", "arkg", "kg"]
CACHE = Path(tempfile.gettempdir()) / "arkg-bench-kg-inspect"


def store(n: int, seed: int) -> Path:
    """The cached store of n synthetic edges, built when missing."""
    db = CACHE / f"synthetic-{n}-seed{seed}.db"
    if not db.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        source = CACHE / f"synthetic-{n}.jsonl"
        print(f"building {db} (once) ...", flush=True)
        SyntheticGraph(n, random.Random(seed)).write(source)
        partial = db.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        subprocess.run([*ARKG, "load", str(source), "--db", str(partial)], check=True, capture_output=True)
        partial.rename(db)
        source.unlink()
    with SQLiteGraph(db, create=False) as opened:  # a store of an older arkg is upgraded here, not timed below
        if opened.upgraded is not None:
            print(f"upgraded {db} to this arkg's store format")
    return db


def median_seconds(arguments: list[str], runs: int) -> tuple[float, str]:
    timings, output = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([*ARKG, *arguments], capture_output=True, text=True)
        timings.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"arkg kg {' '.join(arguments)} failed:\n{done.stdout}{done.stderr}")
        output = done.stdout
    return statistics.median(timings), output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"stores cached in {CACHE}")
    for n in args.sizes:
        db = str(store(n, args.seed))
        baseline, _ = median_seconds(["--help"], args.runs)
        print(f"\n{n:,} edges; `arkg kg --help` (start-up): {baseline:.2f} s")
        for label, arguments in (
            ("entities --search 'brai' (common)", ["entities", "--search", "brai", "--json", "--db", db]),
            ("entities --search 'kilér s' (rare)", ["entities", "--search", "kilér s", "--json", "--db", db]),
            ("entities (no search, top 50)", ["entities", "--json", "--db", db]),
            ("relations", ["relations", "--json", "--db", db]),
        ):
            seconds, output = median_seconds(arguments, args.runs)
            rows = output.count('"edges"')
            print(f"  kg {label}: median {seconds:.2f} s ({seconds - baseline:+.2f} s over start-up), {rows} rows")


if __name__ == "__main__":
    main()
