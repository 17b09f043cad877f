"""Time `arkg kg load` of synthetic JSON Lines through the real command line, search index included.

    python bench/kg_load.py                  # 1,000,000 triples, 3 runs
    python bench/kg_load.py --n 200000 --runs 5
    python bench/kg_load.py --baseline-rev 4b0eb34 --runs 5   # against that commit's arkg, paired
    python bench/kg_load.py --floor          # and after each load, what SQLite alone spends on its rows

The graph is bench/kg_ops.py's synthetic Wikidata-like neighbourhood (heavy-tailed out-degree,
1,000 relations, 80% fresh tail names, 10% of edges with props), written once into a temp dir.
Each run loads it into a new store with `arkg kg load FILE --db STORE` in a subprocess, so the
figures include starting Python and importing the command line, as a user sees them, then once more
with `--defer-index`. CPU time is the child's user + system time (resource.getrusage(RUSAGE_CHILDREN)):
on a shared machine wall time also counts other processes' turns. Prints each run and the medians.

With --baseline-rev, each run also loads the file with the arkg of that git revision (its src/ exported
with `git archive` into the temp dir, run with PYTHONPATH pointing there, in this virtualenv), in turn
with this checkout's loads (the order rotates from run to run), so that the machine's speed of the
moment weighs on both alike; each run's ratio is the baseline's time over this checkout's, and the
medians of these ratios are printed.

With --floor, each load's rows (edges as ids, entities with their edge counts, folded names) are
read back into Python lists and written into a new store with no per-record Python work but the
binding of each row's values: the edge and entity inserts, the four lookup indexes, the FTS5
trigram index and the folded-name table, in one transaction as a load does. Entities go in with
their counts in one pass, cheaper than the load's names-then-count. That CPU time, split evenly over
2 cores with nothing else to do, bounds the triples per second of any loader of this schema from
above; measured right after each load, the two are compared on the machine's speed of the moment.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from kg_ops import SyntheticGraph

from arkg.graph import SQLiteGraph, sqlite_store

ARKG = [sys.executable, "-m", "arkg"]
_FLOOR_BATCH = 20_000  # rows a floor executemany takes at once, as the loader's batches
REPOSITORY = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def exported(revision: str, into: Path) -> Path:
    """The src/ folder of a git revision of this repository, written under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", "--format=tar", revision, "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # 3.11.4+ checks paths
    return into / "src"


def timed_load(source: Path, db: Path, *options: str, src: Path | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s, the command's summary line) of one `arkg kg load`, by the arkg in `src` if given."""
    env = {**os.environ, "COLUMNS": "1000"}  # the summary on one line
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [os.environ.get("PYTHONPATH")])])
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [*ARKG, "kg", "load", str(source), "--db", str(db), *options], capture_output=True, text=True, env=env
    )
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"arkg kg load failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return wall, cpu, done.stdout.strip().splitlines()[-1]


def rows_of(store: Path) -> tuple[list[tuple[int, int, int, str]], list[tuple[int, str, int, int]], list[tuple[int, str]]]:
    """A store's rows as a load binds them: edges as ids, entities with their counts, folded names."""
    conn = sqlite3.connect(store)
    edges = conn.execute("SELECT head, rel, tail, props FROM edges ORDER BY id").fetchall()
    entities = conn.execute("SELECT id, name, outgoing, incoming FROM entities ORDER BY id").fetchall()
    folded = conn.execute("SELECT id, folded FROM entity_folded ORDER BY id").fetchall()
    conn.close()
    return edges, entities, folded


def timed_steps(db: Path, edges: list, entities: list, folded: list) -> dict[str, float]:
    """CPU seconds of each step of writing the rows into a new store (the store's own schema and settings)."""
    store = SQLiteGraph(db)  # a new store: its schema, and its connection's settings
    conn = store._conn
    spent: dict[str, float] = {}

    def step(name: str, statement: str, rows: list | None = None) -> None:
        start = time.process_time()
        if rows is None:
            conn.execute(statement)
        else:
            for first in range(0, len(rows), _FLOOR_BATCH):
                conn.executemany(statement, rows[first : first + _FLOOR_BATCH])
        spent[name] = time.process_time() - start

    conn.execute("BEGIN IMMEDIATE")
    for index in sqlite_store._LOOKUP_INDEXES:
        conn.execute(f"DROP INDEX {index}")
    step("edges: insert (executemany)", "INSERT INTO edges(head, rel, tail, props) VALUES (?, ?, ?, ?)", rows=edges)
    step("entities: insert with counts", "INSERT INTO entities(id, name, outgoing, incoming) VALUES (?, ?, ?, ?)", rows=entities)
    for name, sql in sqlite_store._LOOKUP_INDEXES.items():
        step(f"index {name}", sql)
    conn.execute("CREATE TEMP TABLE new_folded (id INTEGER PRIMARY KEY, folded TEXT NOT NULL)")
    conn.executemany("INSERT INTO temp.new_folded VALUES (?, ?)", folded)
    step("FTS5 trigram index", "INSERT INTO entity_search(rowid, name) SELECT id, folded FROM temp.new_folded")
    step("folded-name table", "INSERT INTO entity_folded SELECT folded, id FROM temp.new_folded ORDER BY folded, id")
    start = time.process_time()
    conn.execute("COMMIT")
    spent["commit"] = time.process_time() - start
    store.close()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of triples (default 1,000,000)")
    parser.add_argument("--runs", type=int, default=3, help="loads to time (default 3; the medians are reported)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, help="where to write the JSONL and the stores (default: a temp dir)")
    parser.add_argument("--floor", action="store_true", help="after each load, time SQLite's own work on its rows")
    parser.add_argument("--baseline-rev", help="also time the arkg of this git revision, paired with this checkout's")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        source = Path(scratch) / "graph.jsonl"
        SyntheticGraph(args.n, random.Random(args.seed)).write(source)
        kinds: dict[str, tuple[list[str], Path | None]] = {"eager": ([], None), "deferred": (["--defer-index"], None)}
        if args.baseline_rev:
            kinds = {"baseline": ([], exported(args.baseline_rev, Path(scratch) / "baseline")), **kinds}
        timings: dict[str, list[tuple[float, float]]] = defaultdict(list)
        floor: dict[str, list[float]] = defaultdict(list)
        for run in range(1, args.runs + 1):
            order = list(kinds)[run - 1 :] + list(kinds)[: run - 1]  # rotated: none always goes first
            for kind in order:
                options, src = kinds[kind]
                db = Path(scratch) / f"run{run}-{kind}.db"
                wall, cpu, summary = timed_load(source, db, *options, src=src)
                timings[kind].append((wall, cpu))
                print(f"run {run} {kind}: {wall:.2f} s wall, {cpu:.2f} s CPU, {args.n / wall:,.0f} / {args.n / cpu:,.0f} triples/s")
                print(f"  arkg: {summary}")
                if kind != "eager":
                    db.unlink()
            db = Path(scratch) / f"run{run}-eager.db"
            if args.floor:
                cpu = timings["eager"][-1][1]
                steps = timed_steps(Path(scratch) / "floor.db", *rows_of(db))
                (Path(scratch) / "floor.db").unlink()
                spent = sum(steps.values())
                for name, seconds in {**steps, "sum": spent, "load CPU / floor": cpu / spent}.items():
                    floor[name].append(seconds)
                print(f"  floor: {spent:.2f} s CPU of SQLite's own work; the eager load took {cpu / spent:.2f}x that")
            db.unlink()
    print(f"medians of {args.runs} runs, {args.n:,} triples:")
    for kind, pairs in timings.items():
        wall, cpu = statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)
        ratios = ""
        if "baseline" in timings and kind != "baseline":
            by_wall = statistics.median(b[0] / t[0] for b, t in zip(timings["baseline"], pairs, strict=True))
            by_cpu = statistics.median(b[1] / t[1] for b, t in zip(timings["baseline"], pairs, strict=True))
            ratios = f"; {by_wall:.2f}x the baseline's speed in wall time, {by_cpu:.2f}x in CPU time"
        name = f"baseline ({args.baseline_rev})" if kind == "baseline" else kind
        print(
            f"  {name:20s} {wall:6.2f} s wall / {cpu:6.2f} s CPU = {args.n / wall:9,.0f} triples/s wall,"
            f" {args.n / cpu:9,.0f} triples/s CPU{ratios}"
        )
    if args.floor:
        print("floor, CPU seconds (medians):")
        for name, values in floor.items():
            print(f"  {name:32s} {statistics.median(values):6.2f}")
        total = statistics.median(floor["sum"])
        print(
            f"bound: {args.n / total:,.0f} triples per CPU second; split evenly over 2 cores,"
            f" {args.n / (total / 2):,.0f} triples/s wall before any reading, parsing or interning"
        )


if __name__ == "__main__":
    main()
