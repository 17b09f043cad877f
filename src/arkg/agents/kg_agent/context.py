"""What a tool implementation may use: the KG (lookups cached), the settings, the question."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar

from arkg.graph.model import Direction, KnowledgeGraph, Match, Triple

T = TypeVar("T")


@dataclass(frozen=True)
class ToolSettings:
    type_relations: tuple[str, ...] = ("instance of", "type", "is a")  # what get_entity_by_type follows
    type_cap: int = 500  # get_entity_by_type keeps at most this many entities
    candidates: int = 5  # get_candidate_entity returns at most this many matches


class CachedGraph:
    """A KnowledgeGraph's lookups, remembered (least recently used first out): a program reads the
    same relations again and again while the planner's options are enumerated."""

    def __init__(self, kg: KnowledgeGraph, maxsize: int = 20_000) -> None:
        self.kg = kg
        self._maxsize = maxsize
        self._cache: OrderedDict[Hashable, object] = OrderedDict()

    def _cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]  # type: ignore[return-value]
        value = compute()
        self._cache[key] = value
        if len(self._cache) > self._maxsize:
            self._cache.popitem(last=False)
        return value

    def has_entity(self, entity: str) -> bool:
        return self._cached(("has", entity), lambda: self.kg.has_entity(entity))

    def relations(self, entity: str, direction: Direction) -> tuple[str, ...]:
        return self._cached(("rel", entity, direction), lambda: tuple(self.kg.relations(entity, direction)))

    def triples(self, entity: str, relation: str, direction: Direction) -> tuple[Triple, ...]:
        return self._cached(("tri", entity, relation, direction), lambda: tuple(self.kg.triples(entity, relation, direction)))

    def search_entities(self, text: str, k: int) -> tuple[Match, ...]:
        return self._cached(("search", text, k), lambda: tuple(self.kg.search_entities(text, k)))


@dataclass
class ToolContext:
    kg: CachedGraph
    settings: ToolSettings = field(default_factory=ToolSettings)
    question: str = ""
