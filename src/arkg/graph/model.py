"""The property-graph data model (paper eq. 1) and the protocol every KG backend implements."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

PropValue = str | int | float | bool | None


class Direction(str, Enum):
    """Which edges of an entity to look at: those leaving it, those arriving at it, or both."""

    OUT = "out"
    IN = "in"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class Triple:
    """One edge (head, relation, tail, props) of the property graph.

    Parallel edges are distinct triples: the same (head, tail) pair may be joined by several
    relations, and the same (head, relation, tail) may occur with different props.
    """

    head: str
    relation: str
    tail: str
    props: dict[str, PropValue] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"head": self.head, "relation": self.relation, "tail": self.tail, "props": dict(self.props)}


def triple_key(triple: Triple) -> tuple[str, str, str, str]:
    """Identity of an edge: parallel edges differ in relation or props, so both are part of it."""
    return triple.head, triple.relation, triple.tail, json.dumps(triple.props, sort_keys=True, default=str)


def merge_triples(*groups: Iterable[Triple]) -> tuple[Triple, ...]:
    """The triples of all groups, each edge once, in first-seen order."""
    seen: dict[tuple[str, str, str, str], Triple] = {}
    for group in groups:
        for triple in group:
            seen.setdefault(triple_key(triple), triple)
    return tuple(seen.values())


@dataclass(frozen=True, slots=True)
class Match:
    """A ranked close match for a name the caller asked about (score in 0..100, higher is closer)."""

    name: str
    score: float


@dataclass(frozen=True, slots=True)
class KGStats:
    triples: int
    entities: int
    heads: int
    relations: int


@dataclass(frozen=True, slots=True)
class EntityCount:
    """An entity and how many edges leave it and arrive at it (a self-loop counts in both)."""

    name: str
    outgoing: int
    incoming: int

    @property
    def edges(self) -> int:
        return self.outgoing + self.incoming


@dataclass(frozen=True, slots=True)
class RelationCount:
    name: str
    edges: int


@runtime_checkable
class GraphInventory(Protocol):
    """Listing what a KG holds, for people inspecting it (agents use KnowledgeGraph).

    Stores that can count cheaply implement it (the SQLite store); others do not, and callers say so.
    """

    def entity_counts(self, search: str | None = None, limit: int | None = None) -> list[EntityCount]:
        """Entities (those whose name contains `search`, ignoring case and accents) by edge count, most first."""
        ...

    def relation_counts(self) -> list[RelationCount]:
        """Every relation with its number of edges, most first, then by name."""
        ...


@runtime_checkable
class KnowledgeGraph(Protocol):
    """What an agent may ask of a knowledge graph. Backends: SQLite (embedded), SPARQL endpoints."""

    def is_head(self, entity: str) -> bool:
        """True iff the entity has at least one outgoing edge (it is in E_head, paper eq. 2)."""
        ...

    def has_entity(self, entity: str) -> bool:
        """True iff the entity occurs as head or tail of some edge."""
        ...

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        """Distinct relation labels on the entity's edges in that direction, sorted."""
        ...

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        """All edges with that relation leaving (OUT), arriving at (IN) or touching (BOTH) the entity.

        Triples keep their stored orientation: for an incoming edge the entity is the tail.
        """
        ...

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        """The k entity names closest to `text`, best first."""
        ...

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        """The k relations of `entity` (in that direction) closest to `text`, best first."""
        ...

    def stats(self) -> KGStats: ...

    def close(self) -> None: ...

