"""Bolt servers (Neo4j, Memgraph, FalkorDB) as knowledge graphs: a read-only store and a separate writer.

The `neo4j` driver is imported only when a server is reached, so that arkg works without the `bolt`
extra until a bolt:// spec is used.
"""

from arkg.graph.bolt.connection import BoltConnection, BoltError, BoltQueryError
from arkg.graph.bolt.mapping import Mapping
from arkg.graph.bolt.spec import BoltSpec, is_bolt_spec, parse_bolt_spec, redact_spec
from arkg.graph.bolt.store import BoltGraph
from arkg.graph.bolt.writer import BoltWriter

__all__ = [
    "BoltConnection",
    "BoltError",
    "BoltGraph",
    "BoltQueryError",
    "BoltSpec",
    "BoltWriter",
    "Mapping",
    "is_bolt_spec",
    "parse_bolt_spec",
    "redact_spec",
]
