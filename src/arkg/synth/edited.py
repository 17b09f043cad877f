"""A KG seen with some triples taken out and others put in, the base graph left untouched.

Fact-reading pairs show a strategy a KG where a gold fact says something else (its tail replaced)
or is missing; copying a large store for each question would cost far more than this view, which
answers every KnowledgeGraph call from the base and corrects it for the few edited triples.
"""

from __future__ import annotations

from collections.abc import Iterable

from arkg.agents.triple_keys import identity
from arkg.graph.model import Direction, KGStats, KnowledgeGraph, Match, Triple


class EditedGraph:
    def __init__(self, base: KnowledgeGraph, removed: Iterable[Triple] = (), added: Iterable[Triple] = ()) -> None:
        self.base = base
        self.removed = {identity(triple) for triple in removed}
        self.added = [triple for triple in added if identity(triple) not in self.removed]
        # Entities whose edges changed: only their answers differ from the base's.
        self._touched = {name for triple in [*removed, *self.added] for name in (triple.head, triple.tail)}

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        found = self.base.triples(entity, relation, direction)
        if entity not in self._touched:
            return found
        kept = [triple for triple in found if identity(triple) not in self.removed]
        return kept + [triple for triple in self.added if triple.relation == relation and _touches(triple, entity, direction)]

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        if direction == Direction.BOTH:
            return sorted(set(self.relations(entity, Direction.OUT)) | set(self.relations(entity, Direction.IN)))
        found = self.base.relations(entity, direction)
        if entity not in self._touched:
            return found
        added = {triple.relation for triple in self.added if _touches(triple, entity, direction)}
        return sorted(relation for relation in set(found) | added if self.triples(entity, relation, direction))

    def is_head(self, entity: str) -> bool:
        return bool(self.relations(entity, Direction.OUT)) if entity in self._touched else self.base.is_head(entity)

    def has_entity(self, entity: str) -> bool:
        return bool(self.relations(entity, Direction.BOTH)) if entity in self._touched else self.base.has_entity(entity)

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        matches = self.base.search_entities(text, k + len(self._touched))
        return [match for match in matches if self.has_entity(match.name)][:k]

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        present = set(self.relations(entity, direction))
        return [match for match in self.base.search_relations(entity, text, k + len(self.added), direction) if match.name in present][:k]

    def stats(self) -> KGStats:
        """The base's counts: a few edited edges do not change what strategies show of them."""
        return self.base.stats()

    def close(self) -> None:
        """The base graph belongs to the caller and stays open."""


def _touches(triple: Triple, entity: str, direction: Direction) -> bool:
    if direction == Direction.OUT:
        return triple.head == entity
    if direction == Direction.IN:
        return triple.tail == entity
    return entity in (triple.head, triple.tail)
