"""What the support check asks the KG, each question once: an entity's relations, the edges of one of
them, its types. Cited names are the KG's own, so every lookup is an exact one."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from weakref import WeakKeyDictionary

from arkg.agents.support.fit import STEM, relation_words
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.graph.sqlite_store import SQLiteGraph

# Relations that say what kind of thing an entity is (Wikidata's P31 among them).
TYPE_RELATIONS = frozenset({"instance of", "type", "is a", "isa", "rdf:type", "p31", "kind", "a"})


def is_type_relation(relation: str) -> bool:
    name = relation.strip().lower()
    return name in TYPE_RELATIONS or name.endswith(("#type", "/p31", "/type", "/instanceof"))


# Each SQLite store's relation names by the first letters of their words, read once (a store keeps
# them in a table of its own): a question then looks at the few relations sharing a word stem with it.
_RELATIONS_BY_STEM: WeakKeyDictionary[SQLiteGraph, dict[str, tuple[str, ...]]] = WeakKeyDictionary()


class GraphLookups:
    """Cached exact lookups on the KG for one check."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self.relations = cache(self._relations)
        self.edges = cache(self._edges)
        self.has = cache(kg.has_entity)

    def _relations(self, entity: str) -> tuple[tuple[str, Direction], ...]:
        """Every relation at the entity, leaving it and arriving at it."""
        return tuple(
            (relation, direction)
            for direction in (Direction.OUT, Direction.IN)
            for relation in self.kg.relations(entity, direction)
        )

    def _edges(self, entity: str, relation: str, direction: Direction) -> tuple[Triple, ...]:
        return tuple(self.kg.triples(entity, relation, direction))

    def relations_sharing(self, words: Iterable[str]) -> list[str]:
        """The KG's relations with a word of the same stem as one of `words`, where the store lists its
        relations cheaply (SQLite); else none."""
        if not isinstance(self.kg, SQLiteGraph):
            return []
        by_stem = _RELATIONS_BY_STEM.get(self.kg)
        if by_stem is None:
            grouped: dict[str, list[str]] = {}
            for count in self.kg.relation_counts():
                for word in relation_words(count.name):
                    grouped.setdefault(word[:STEM], []).append(count.name)
            by_stem = _RELATIONS_BY_STEM[self.kg] = {stem: tuple(names) for stem, names in grouped.items()}
        return list(dict.fromkeys(name for word in words for name in by_stem.get(word[:STEM], ())))

    def types(self, entity: str) -> list[str]:
        """What the KG says the entity is (the tails of its type relations)."""
        return [
            triple.tail
            for relation, direction in self.relations(entity)
            if direction is Direction.OUT and is_type_relation(relation)
            for triple in self.edges(entity, relation, direction)
        ]

    def is_type(self, entity: str) -> bool:
        """Whether some entity is of this kind (a type relation arrives at it)."""
        return any(direction is Direction.IN and is_type_relation(relation) for relation, direction in self.relations(entity))
