"""Knowledge graphs: the property-graph model, the embedded SQLite store, loaders."""

from arkg.data import SAMPLE_QUESTIONS, sample_graph_path
from arkg.graph.loaders import read_triples
from arkg.graph.model import Direction, KGStats, KnowledgeGraph, Match, Triple
from arkg.graph.open import open_graph
from arkg.graph.sqlite_store import SQLiteGraph

__all__ = [
    "SAMPLE_QUESTIONS",
    "Direction",
    "KGStats",
    "KnowledgeGraph",
    "Match",
    "SQLiteGraph",
    "Triple",
    "open_graph",
    "read_triples",
    "sample_graph_path",
]
