"""Time `arkg questions` on a large SQLite store: 1,000 questions from 1,000,000 triples by default.

    python bench/questions_speed.py                          # builds the store in a temp dir
    python bench/questions_speed.py --store /tmp/q/kg.db     # reuses (or builds) that store

The store is kg_ops.py's synthetic Wikidata-shaped graph (heavy-tailed out-degrees, ~1,000 relations,
dates and numbers, props on 10% of edges), loaded with `arkg kg load`. The timed command runs in its
own process, as a user runs it; its wall time includes opening the store and writing the file.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from kg_ops import SyntheticGraph

ARKG = [sys.executable, "-m", "arkg"]


def build(store: Path, n: int, seed: int) -> None:
    source = store.with_suffix(".jsonl")
    SyntheticGraph(n, random.Random(seed)).write(source)
    subprocess.run([*ARKG, "kg", "load", str(source), "--db", str(store)], check=True, stdout=subprocess.DEVNULL)
    source.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="triples in the store it builds (default 1,000,000)")
    parser.add_argument("--limit", type=int, default=1_000, help="questions to make (default 1,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--store", type=Path, help="the store to use, built first when missing (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = args.store or Path(folder) / "kg.db"
        if not store.exists():
            started = time.perf_counter()
            build(store, args.n, args.seed)
            print(f"built {store} ({args.n:,} triples) in {time.perf_counter() - started:.0f} s")
        out = Path(folder) / "questions.jsonl"
        command = [*ARKG, "questions", "--db", str(store), "--out", str(out), "--limit", str(args.limit)]
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        questions = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    templates = Counter(question["template"] for question in questions)
    print(f"| questions | wall s | per template |\n| --- | --- | --- |")
    print(f"| {len(questions):,} | {wall:.1f} | {', '.join(f'{name} {count}' for name, count in templates.items())} |")


if __name__ == "__main__":
    main()
