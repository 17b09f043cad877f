"""A KG whose entity searches are remembered: a chain's strategies search the same question text
again and again (each mode, each variant), and a fuzzy search over a large store is by far the
slowest call they make."""

from __future__ import annotations

from functools import lru_cache

from arkg.graph.model import Direction, KGStats, KnowledgeGraph, Match, Triple

# Searches run at least this deep and are cut to the k asked for: ranking is a total order over a
# candidate set that does not depend on k, so the best k are the first k of the best 64.
_DEPTH = 64


class SearchMemo:
    def __init__(self, kg: KnowledgeGraph, size: int = 1024) -> None:
        self.kg = kg
        self._search = lru_cache(maxsize=size)(lambda text, depth: tuple(kg.search_entities(text, depth)))

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        return list(self._search(text, max(k, _DEPTH))[:k])

    def is_head(self, entity: str) -> bool:
        return self.kg.is_head(entity)

    def has_entity(self, entity: str) -> bool:
        return self.kg.has_entity(entity)

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        return self.kg.relations(entity, direction)

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        return self.kg.triples(entity, relation, direction)

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        return self.kg.search_relations(entity, text, k, direction)

    def stats(self) -> KGStats:
        return self.kg.stats()

    def close(self) -> None:
        """The wrapped graph belongs to the caller and stays open."""
