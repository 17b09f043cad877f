"""A handful of facts as a KnowledgeGraph: what a prompt showed, for the program to read.

A label is read from the facts of one prompt, thousands of times per run; an in-memory SQLite
store would cost more to create than the program costs to run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from arkg.agents.triple_keys import identity
from arkg.graph.matching import rank
from arkg.graph.model import Direction, KGStats, Match, Triple


class FactsGraph:
    def __init__(self, triples: Iterable[Triple]) -> None:
        self._out: dict[str, list[Triple]] = defaultdict(list)
        self._in: dict[str, list[Triple]] = defaultdict(list)
        seen: set[tuple] = set()
        for triple in triples:
            if identity(triple) not in seen:
                seen.add(identity(triple))
                self._out[triple.head].append(triple)
                self._in[triple.tail].append(triple)
        self._count = len(seen)

    def _edges(self, entity: str, direction: Direction) -> list[Triple]:
        out = self._out.get(entity, []) if direction != Direction.IN else []
        into = self._in.get(entity, []) if direction != Direction.OUT else []
        return out + into

    def is_head(self, entity: str) -> bool:
        return entity in self._out

    def has_entity(self, entity: str) -> bool:
        return entity in self._out or entity in self._in

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        return sorted({triple.relation for triple in self._edges(entity, direction)})

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        return [triple for triple in self._edges(entity, direction) if triple.relation == relation]

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        return rank(text, {*self._out, *self._in}, k)

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        return rank(text, self.relations(entity, direction), k)

    def stats(self) -> KGStats:
        return KGStats(self._count, len({*self._out, *self._in}), len(self._out), len({t.relation for ts in self._out.values() for t in ts}))

    def close(self) -> None:
        """Nothing to release."""
