"""Turn a graph spec (what a user types after --db) into a KnowledgeGraph."""

from __future__ import annotations

from pathlib import Path

from arkg.data import sample_graph_path
from arkg.graph.bolt import BoltGraph, is_bolt_spec
from arkg.graph.model import KnowledgeGraph
from arkg.graph.sparql import SCHEMAS, SparqlGraph
from arkg.graph.sqlite_store import SQLiteGraph

SAMPLE = "sample"
"""The spec that names the bundled sample KG (a store file called so is `./sample`)."""


def open_graph(spec: str | Path | None, *, read_only: bool = False) -> KnowledgeGraph:
    """Open the KG a spec names.

    - None or "sample": the bundled sample KG, loaded into an in-memory store;
    - `wikidata:URL` or `rdf:URL`: a SPARQL endpoint read with that schema (English labels);
    - `bolt://HOST:PORT` (also bolt+s, neo4j, neo4j+s, ...): a Bolt server (Neo4j, Memgraph, FalkorDB),
      only ever read (see arkg.graph.bolt);
    - a path: an existing arkg SQLite store (never created here: a typo must not yield an empty KG),
      opened so that nothing can write to it when `read_only` (SPARQL endpoints are only ever read).
    """
    if spec is None or (isinstance(spec, str) and spec == SAMPLE):
        graph = SQLiteGraph()
        graph.load(sample_graph_path())
        return graph
    if is_bolt_spec(spec):
        return BoltGraph(str(spec))
    schema, _, endpoint = str(spec).partition(":")
    if schema in SCHEMAS and endpoint:
        return SparqlGraph(endpoint, schema)
    return SQLiteGraph(spec, create=False, read_only=read_only)
