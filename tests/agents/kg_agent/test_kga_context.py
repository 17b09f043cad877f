"""The executor's cached graph: a lookup asked again is answered from the cache, the least recently
used is dropped first, and the four lookups never answer for one another."""

from __future__ import annotations

from typing import Any

from arkg.agents.kg_agent.context import CachedGraph
from arkg.graph import Direction, KnowledgeGraph


class Counting:
    """The sample KG, counting the lookups that reach it."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.calls.append(name)
        return getattr(self.kg, name)


def test_lookups_are_cached_least_recently_used_first_out(sample_kg: KnowledgeGraph) -> None:
    counting = Counting(sample_kg)
    graph = CachedGraph(counting, maxsize=2)  # type: ignore[arg-type]
    relations = graph.relations("Marie Curie", Direction.OUT)
    assert "place of birth" in relations and graph.relations("Marie Curie", Direction.OUT) == relations
    assert graph.has_entity("Marie Curie") and graph.has_entity("Marie Curie")
    assert counting.calls == ["relations", "has_entity"]

    graph.relations("Marie Curie", Direction.OUT)  # now the most recently used
    graph.triples("Marie Curie", "place of birth", Direction.OUT)  # evicts has_entity
    graph.relations("Marie Curie", Direction.OUT)
    graph.has_entity("Marie Curie")
    assert counting.calls == ["relations", "has_entity", "triples", "has_entity"]


def test_the_lookups_do_not_share_answers(sample_kg: KnowledgeGraph) -> None:
    graph = CachedGraph(sample_kg)
    assert graph.relations("Warsaw", Direction.IN) != graph.relations("Warsaw", Direction.OUT)
    assert [match.name for match in graph.search_entities("Marie Curie", 1)] == ["Marie Curie"]
    assert graph.has_entity("Marie Curie") is True
