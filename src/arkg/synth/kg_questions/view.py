"""The KG as the question generator reads it: through the KnowledgeGraph protocol only, each lookup
asked once, so that a store of any size (or an endpoint far away) is read no further than the
questions reach."""

from __future__ import annotations

from arkg.datasets.geo.reasoning import GraphIndex
from arkg.graph.matching import fold
from arkg.graph.model import Direction, KnowledgeGraph, Triple


class _Edges(dict[tuple[str, str], list[Triple]]):
    """(entity, relation) -> its edges in one direction, fetched from the KG on first use."""

    def __init__(self, kg: KnowledgeGraph, direction: Direction) -> None:
        super().__init__()
        self._kg = kg
        self._direction = direction

    def __missing__(self, key: tuple[str, str]) -> list[Triple]:
        edges = self[key] = self._kg.triples(key[0], key[1], self._direction)
        return edges

    def get(self, key: tuple[str, str], default: object = None) -> list[Triple]:  # type: ignore[override]
        return self[key]


class LazyIndex(GraphIndex):
    """A GraphIndex whose edges come from the KG on demand, so that the gold answers and evidence are
    computed by the same reasoning helpers as the geography and domain questions."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.out = _Edges(kg, Direction.OUT)
        self.into = _Edges(kg, Direction.IN)


class KGView:
    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self.index = LazyIndex(kg)
        self._relations: dict[tuple[str, Direction], list[str]] = {}
        self._unique: dict[str, bool] = {}

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        key = (entity, direction)
        if key not in self._relations:
            self._relations[key] = self.kg.relations(entity, direction)
        return self._relations[key]

    def edges(self, entity: str, relation: str, incoming: bool = False) -> list[Triple]:
        return (self.index.into if incoming else self.index.out)[(entity, relation)]

    def out_degree(self, entity: str, cap: int) -> int:
        """How many edges leave the entity, counted up to `cap` (a hub's are not all read)."""
        count = 0
        for relation in self.relations(entity):
            count += len(self.edges(entity, relation))
            if count >= cap:
                break
        return count

    def unique_name(self, name: str) -> bool:
        """Whether no other entity bears the name up to case, accents and spacing: a question naming
        one of two such entities does not say which it means."""
        if name not in self._unique:
            folded = fold(name)
            self._unique[name] = not any(match.name != name and fold(match.name) == folded for match in self.kg.search_entities(name, 5))
        return self._unique[name]
