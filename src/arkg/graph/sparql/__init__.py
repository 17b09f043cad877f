"""SPARQL 1.1 endpoints (Wikidata, or any RDF store) as knowledge graphs, and offline snapshots of them."""

from arkg.graph.sparql.client import SparqlClient, SparqlError
from arkg.graph.sparql.schema import SCHEMAS, RdfSchema, Schema, WikidataSchema, make_schema
from arkg.graph.sparql.snapshot import Snapshot, fetch_snapshot
from arkg.graph.sparql.store import SparqlGraph

__all__ = [
    "SCHEMAS",
    "RdfSchema",
    "Schema",
    "Snapshot",
    "SparqlClient",
    "SparqlError",
    "SparqlGraph",
    "WikidataSchema",
    "fetch_snapshot",
    "make_schema",
]
