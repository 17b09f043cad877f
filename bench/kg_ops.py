"""Benchmark the embedded SQLite KG store: load rate, file size, lookup and search latency.

    python bench/kg_ops.py                 # 1,000,000 triples
    python bench/kg_ops.py --n 10000000    # fits in 24 GB of memory
    python bench/kg_ops.py --backend sparql  # also time lookups on a local oxigraph SPARQL server

A synthetic graph shaped like a Wikidata neighbourhood dump is written to a JSON Lines file and
loaded through `SQLiteGraph.load` (the real loader path: read, validate, intern, insert, index).
Shape: n/5 head entities with heavy-tailed out-degree (Pareto, mean ~5), edges grouped by head; ~1,000 relations
with Zipf-like popularity; 80% of tails are fresh names (so 1M triples carry over 1M entity
names), 12% point back at heads (incoming-edge hubs), 8% are dates or numbers; 10% of edges
have props. The store is then reopened and every operation is timed on its own sample of names.
With `--backend sparql` the same graph is also served as Wikidata-shaped RDF by a local oxigraph
server and the lookups are timed through `SparqlGraph` beside SQLite, on the same samples.
Prints one table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from rich.console import Console
from rich.table import Table
from sparql_backend import served_as_wikidata

from arkg.graph import Direction, KnowledgeGraph, SQLiteGraph

ONSETS = "b c d f g h j k l m n p r s t v w z br ch dr gr kh pl st sh tr th".split()
VOWELS = "a e i o u ai ou ia é ö".split()
CODAS = ["", "", "n", "r", "s", "l", "k"]
MONTHS = "January February March April May June July August September October November December".split()


@dataclass
class SyntheticGraph:
    """Writes the graph and remembers samples of names to query."""

    n: int
    rng: random.Random
    heads: list[str] = field(default_factory=list)
    heads_written: int = 0
    tail_sample: list[str] = field(default_factory=list)
    name_sample: list[str] = field(default_factory=list)

    def word(self) -> str:
        syllables = "".join(self.rng.choice(ONSETS) + self.rng.choice(VOWELS) for _ in range(self.rng.randint(1, 3)))
        return (syllables + self.rng.choice(CODAS)).capitalize()

    def name(self) -> str:
        return " ".join(self.word() for _ in range(self.rng.choice((1, 2, 2, 2, 3, 3))))

    def literal(self) -> str:
        if self.rng.random() < 0.5:
            return f"{self.rng.randint(1, 28)} {self.rng.choice(MONTHS)} {self.rng.randint(1500, 2024)}"
        return str(self.rng.randint(0, 10_000_000))

    def write(self, path: Path) -> None:
        self.heads = [self.name() for _ in range(max(self.n // 5, 1))]
        relations = [f"{self.word().lower()} {self.word().lower()}" for _ in range(1_000)]
        with path.open("w", encoding="utf-8") as out:
            for record in islice(self.records(relations), self.n):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")

    def records(self, relations: list[str]) -> Iterator[dict[str, object]]:
        rng = self.rng
        while True:
            for index, head in enumerate(self.heads):
                self.heads_written = max(self.heads_written, index + 1)
                for _ in range(min(int(rng.paretovariate(1.3) * 1.2), 5_000)):
                    yield self.record(head, relations[int(len(relations) * rng.random() ** 3)])

    def record(self, head: str, relation: str) -> dict[str, object]:
        rng = self.rng
        roll = rng.random()
        if roll < 0.80:
            tail = self.name()
            if rng.random() < 0.001:
                self.name_sample.append(tail)
        elif roll < 0.92:
            tail = self.heads[int(len(self.heads) * rng.random() ** 3)]
            if rng.random() < 0.01:
                self.tail_sample.append(tail)
        else:
            tail = self.literal()
        record: dict[str, object] = {"head": head, "relation": relation, "tail": tail}
        if rng.random() < 0.10:
            start = rng.randint(1800, 2020)
            record["props"] = {"start time": str(start), "end time": str(start + rng.randint(1, 40))}
        return record


@dataclass(frozen=True)
class Elapsed:
    wall: float
    cpu: float  # this process only: on a shared machine wall time also counts other processes' turns

    def __add__(self, other: Elapsed) -> Elapsed:
        return Elapsed(self.wall + other.wall, self.cpu + other.cpu)


def rates(triples: int, elapsed: Elapsed) -> str:
    return f"{triples / elapsed.wall:,.0f} / {triples / elapsed.cpu:,.0f} ({elapsed.wall:.1f} s / {elapsed.cpu:.1f} s)"


def timed(work: Callable[[], object]) -> Elapsed:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return Elapsed(time.perf_counter() - wall, time.process_time() - cpu)


def percentiles(call: Callable[[object], object], arguments: list[object]) -> tuple[float, float]:
    """p50 and p99 latency in milliseconds, one call per argument."""
    timings = []
    for argument in arguments:
        started = time.perf_counter_ns()
        call(argument)
        timings.append((time.perf_counter_ns() - started) / 1e6)
    cuts = statistics.quantiles(timings, n=100)
    return cuts[49], cuts[98]


def lookup_latencies(
    graph: KnowledgeGraph,
    heads: list[str],
    head_relations: list[tuple[str, str]],
    tails: list[str],
    queries: list[tuple[str, str, str]],
) -> list[tuple[str, tuple[float, float]]]:
    return [
        ("is_head", percentiles(graph.is_head, heads)),
        ("relations(out)", percentiles(graph.relations, heads)),
        ("relations(in)", percentiles(lambda tail: graph.relations(tail, Direction.IN), tails)),
        ("triples(h, r)", percentiles(lambda pair: graph.triples(*pair), head_relations)),
        ("search_entities", percentiles(lambda query: graph.search_entities(query[1], 5), queries)),
    ]


def same_answers(one: KnowledgeGraph, other: KnowledgeGraph, head: str, relation: str) -> bool:
    def canonical(graph: KnowledgeGraph) -> list[str]:
        return sorted(json.dumps(t.as_dict(), sort_keys=True) for t in graph.triples(head, relation))

    return one.relations(head) == other.relations(head) and canonical(one) == canonical(other)


def search_queries(names: list[str], rng: random.Random) -> list[tuple[str, str, str]]:
    """(kind, query, meant): exact names, folded ones, one word of a longer name, one typo."""
    queries = []
    for index, name in enumerate(names):
        kind = ("exact", "folded", "one word", "typo")[index % 4]
        if kind == "exact":
            query = name
        elif kind == "folded":
            query = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).lower()
        elif kind == "one word":
            query = max(name.split(), key=len)
        else:
            position = rng.randrange(len(name))
            query = name[:position] + rng.choice("aeiourstn") + name[position + 1 :]
        queries.append((kind, query, name))
    return queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of triples (default 1,000,000)")
    parser.add_argument("--queries", type=int, default=2_000, help="timed calls per lookup operation")
    parser.add_argument("--searches", type=int, default=400, help="timed search_entities calls")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, help="where to write the JSONL and the store (default: a temp dir)")
    parser.add_argument("--backend", choices=("sqlite", "sparql"), default="sqlite", help="sparql: also time oxigraph")
    parser.add_argument("--sparql-queries", type=int, default=200, help="timed SPARQL calls per lookup operation")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        rng = random.Random(args.seed)
        source, db = Path(scratch) / "graph.jsonl", Path(scratch) / "graph.db"
        graph = SyntheticGraph(args.n, rng)
        started = time.perf_counter()
        graph.write(source)
        generated = time.perf_counter() - started
        source_bytes = source.stat().st_size

        with SQLiteGraph(db) as store:
            loaded = timed(lambda: store.load(source))
            indexed = timed(store.build_search_index)

        with SQLiteGraph(db, create=False) as store:
            stats = store.stats()
            heads = rng.choices(graph.heads[: graph.heads_written], k=args.queries)
            head_relations = [(head, rng.choice(store.relations(head))) for head in heads]
            tails = rng.choices(graph.tail_sample, k=args.queries)
            queries = search_queries(rng.sample(graph.name_sample, min(args.searches, len(graph.name_sample))), rng)
            rows = lookup_latencies(store, heads, head_relations, tails, queries)
            results_per_call = (
                statistics.mean(len(store.relations(head)) for head in heads),
                statistics.mean(len(store.relations(tail, Direction.IN)) for tail in tails),
                statistics.mean(len(store.triples(*pair)) for pair in head_relations),
            )
            hits = {kind: [0, 0] for kind, _, _ in queries}
            for kind, query, meant in queries:
                found = [match.name for match in store.search_entities(query, 5)]
                hits[kind][0] += bool(found) and found[0] == meant
                hits[kind][1] += meant in found
            sparql_rows, agreeing = [], 0
            if args.backend == "sparql":
                m = args.sparql_queries
                with served_as_wikidata(source, Path(scratch)) as sparql:
                    sample = (heads[:m], head_relations[:m], tails[:m], queries[: max(m // 10, 4)])
                    sparql_rows = lookup_latencies(sparql, *sample)
                    agreeing = sum(same_answers(store, sparql, *pair) for pair in head_relations[:m])
        size = db.stat().st_size

    table = Table(title=f"KG store benchmark: {args.n:,} triples (seed {args.seed})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("entities / heads / relations", f"{stats.entities:,} / {stats.heads:,} / {stats.relations:,}")
    table.add_row("JSONL file (generated in)", f"{source_bytes / 2**20:,.0f} MiB ({generated:.0f} s)")
    table.add_row("load from JSONL: triples/s wall / CPU", rates(stats.triples, loaded))
    table.add_row("search index build: s wall / CPU", f"{indexed.wall:.1f} s / {indexed.cpu:.1f} s")
    table.add_row("load + search index: triples/s wall / CPU", rates(stats.triples, loaded + indexed))
    table.add_row("db file size", f"{size / 2**20:,.0f} MiB ({size / stats.triples:.0f} B/triple)")
    for operation, (p50, p99) in rows:
        table.add_row(f"{operation} p50 / p99", f"{p50:.3f} ms / {p99:.3f} ms")
    table.add_row("mean results: relations out / in, triples", " / ".join(f"{size:.1f}" for size in results_per_call))
    for kind, (top1, top5) in hits.items():
        count = sum(1 for k, _, _ in queries if k == kind)
        table.add_row(f"search '{kind}': top-1 / top-5 hits", f"{top1}/{count} / {top5}/{count}")
    for operation, (p50, p99) in sparql_rows:
        table.add_row(f"SPARQL {operation} p50 / p99", f"{p50:.3f} ms / {p99:.3f} ms")
    if sparql_rows:
        table.add_row("SPARQL answers = SQLite's", f"{agreeing}/{min(args.sparql_queries, len(heads))}")
    Console().print(table)


if __name__ == "__main__":
    main()
