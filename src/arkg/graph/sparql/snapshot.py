"""Snapshots: copy the N-hop neighbourhood of some entities from a SPARQL endpoint into SQLite.

The snapshot is written to a temporary file beside the target and renamed into place only once
complete, so an interrupted or failed fetch leaves no half-written store behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arkg.errors import ArkgError, EntityNotFound
from arkg.graph.model import Direction, KGStats, Triple
from arkg.graph.sparql.client import Row
from arkg.graph.sparql.store import SparqlGraph
from arkg.graph.sparql.terms import Term
from arkg.graph.sqlite_store import SQLiteGraph

# Called after each batch of nodes: (hop, nodes done in this hop, nodes in this hop).
Progress = Callable[[int, int, int], None]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Where a snapshot was written, from how many seed nodes, and what it holds."""

    path: Path
    seeds: int
    stats: KGStats


def fetch_snapshot(
    graph: SparqlGraph,
    entities: Sequence[str],
    hops: int,
    db: str | Path,
    *,
    progress: Progress | None = None,
) -> Snapshot:
    """Write every edge (out and in, with props) within `hops` of the entities into a new store at `db`.

    Hop 1 is the edges of the entities themselves; hop n+1 adds the edges of the nodes hop n reached.
    Only IRI nodes are expanded: literal values (dates, numbers, text) are leaves. An existing file
    at `db` is replaced.
    """
    if hops < 1:
        raise ArkgError(f"--hops must be at least 1, not {hops}")
    seeds = _resolve(graph, entities)
    claims = _neighbourhood_claims(graph, seeds, hops, progress)
    return Snapshot(Path(db), len(seeds), _write_atomically(graph.edges_from_claims(claims), Path(db)))


def _resolve(graph: SparqlGraph, entities: Sequence[str]) -> list[Term]:
    seeds: dict[Term, None] = {}
    for name in entities:
        found = [term for term in graph.nodes(name) if term.is_iri]
        if not found or not graph.has_entity(name):  # literal values cannot be started from
            raise EntityNotFound(name, [match.name for match in graph.search_entities(name, 5)])
        seeds.update(dict.fromkeys(found))
    return list(seeds)


def _neighbourhood_claims(graph: SparqlGraph, seeds: list[Term], hops: int, progress: Progress | None) -> list[Row]:
    claims: dict[tuple[Term, Term, Term], Row] = {}  # an edge between two reached nodes comes twice
    seen = set(seeds)
    frontier = seeds
    for hop in range(1, hops + 1):
        reached: dict[Term, None] = {}
        for start in range(0, len(frontier), graph.batch_size):
            batch = frontier[start : start + graph.batch_size]
            for direction, far_end in ((Direction.OUT, "o"), (Direction.IN, "s")):
                found = graph.claims(batch, direction)
                claims.update(((row["s"], row["p"], row["o"]), row) for row in found)
                reached.update(dict.fromkeys(row[far_end] for row in found if row[far_end].is_iri))
            if progress is not None:
                progress(hop, min(start + graph.batch_size, len(frontier)), len(frontier))
        frontier = [term for term in reached if term not in seen]
        seen.update(frontier)
    return list(claims.values())


def _write_atomically(triples: list[Triple], target: Path) -> KGStats:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    os.close(handle)
    try:
        store = SQLiteGraph(temporary)
        try:
            store.add_triples(triples)
            stats = store.stats()
        finally:
            store.close()
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return stats
