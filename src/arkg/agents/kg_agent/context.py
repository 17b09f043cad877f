"""What a tool implementation may use: the KG (lookups cached), the settings, the question."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from operator import attrgetter

from cachetools import LRUCache, cachedmethod

from arkg.graph.model import Direction, KnowledgeGraph, Match, Triple


@dataclass(frozen=True)
class ToolSettings:
    type_relations: tuple[str, ...] = ("instance of", "type", "is a")  # what get_entity_by_type follows
    type_cap: int = 500  # get_entity_by_type keeps at most this many entities
    candidates: int = 5  # get_candidate_entity returns at most this many matches


def _tagged(lookup: str) -> Callable[..., Hashable]:
    """Cache keys of one lookup: the four lookups share one cache, so a key names its lookup."""
    return lambda graph, *args: (lookup, *args)


class CachedGraph:
    """A KnowledgeGraph's lookups, remembered (least recently used first out): a program reads the
    same relations again and again while the planner's options are enumerated. Each executor has
    its own (one per query or per replayed program), used by one thread: no lock."""

    def __init__(self, kg: KnowledgeGraph, maxsize: int = 20_000) -> None:
        self.kg = kg
        self._cache: LRUCache[Hashable, object] = LRUCache(maxsize)

    @cachedmethod(attrgetter("_cache"), key=_tagged("has"))
    def has_entity(self, entity: str) -> bool:
        return self.kg.has_entity(entity)

    @cachedmethod(attrgetter("_cache"), key=_tagged("relations"))
    def relations(self, entity: str, direction: Direction) -> tuple[str, ...]:
        return tuple(self.kg.relations(entity, direction))

    @cachedmethod(attrgetter("_cache"), key=_tagged("triples"))
    def triples(self, entity: str, relation: str, direction: Direction) -> tuple[Triple, ...]:
        return tuple(self.kg.triples(entity, relation, direction))

    @cachedmethod(attrgetter("_cache"), key=_tagged("search"))
    def search_entities(self, text: str, k: int) -> tuple[Match, ...]:
        return tuple(self.kg.search_entities(text, k))


@dataclass
class ToolContext:
    kg: CachedGraph
    settings: ToolSettings = field(default_factory=ToolSettings)
    question: str = ""
