"""Did a strategy find the gold evidence, and cite it? Measured per question against CoLoTa's gold triples.

    evidence = assess_evidence(question, result, kg)
    evidence.retrieved_recall, evidence.cited_recall, evidence.citation_precision, evidence.hops

A gold triple matches a triple the strategy saw exactly (same head, relation and tail) or, where the
KG was not built from the gold triples (a Wikidata neighbourhood, say), fuzzily: names and relation
labels that differ only in case, accents, spacing or a typo, and numbers written differently
("59,449" and "59449"). Gold triples with no counterpart in the KG at all are listed, never dropped:
no strategy could have found them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, computed_field

from arkg.agents.strategy import Result
from arkg.graph.matching import fold, same_name, same_value
from arkg.graph.model import Direction, KnowledgeGraph, Triple


class Evidence(BaseModel):
    gold: int  # gold triples of the question
    unmatched_gold: list[str] = []  # gold triples with no counterpart in the KG, as text
    retrieved: int  # distinct triples the strategy showed the model
    cited: int  # distinct triples it cited
    retrieved_gold: int  # gold triples among those retrieved
    cited_gold: int  # gold triples among those cited
    cited_non_gold: int  # cited triples that are no gold triple
    hops: int  # the farthest a retrieved triple lies from the question's entities (0: none retrieved)

    @computed_field
    @property
    def retrieved_recall(self) -> float | None:
        return self.retrieved_gold / self.gold if self.gold else None

    @computed_field
    @property
    def cited_recall(self) -> float | None:
        return self.cited_gold / self.gold if self.gold else None

    @computed_field
    @property
    def citation_precision(self) -> float | None:
        cited = self.cited_gold + self.cited_non_gold
        return self.cited_gold / cited if cited else None


def assess_evidence(gold: Sequence[Triple], entities: Iterable[str], result: Result, kg: KnowledgeGraph | None) -> Evidence:
    """Compare what the strategy retrieved and cited with the gold triples (and the KG, when given)."""
    retrieved = _distinct(result.retrieved_triples)
    cited = _distinct(result.cited_triples)
    return Evidence(
        gold=len(gold),
        unmatched_gold=[_text(triple) for triple in gold if kg is not None and not in_graph(triple, kg)],
        retrieved=len(retrieved),
        cited=len(cited),
        retrieved_gold=sum(any(same_fact(g, t) for t in retrieved) for g in gold),
        cited_gold=sum(any(same_fact(g, t) for t in cited) for g in gold),
        cited_non_gold=sum(not any(same_fact(g, t) for g in gold) for t in cited),
        hops=hops_reached(entities, retrieved),
    )


def same_fact(gold: Triple, seen: Triple) -> bool:
    """Whether a triple the strategy saw is the gold triple, perhaps written differently."""
    if (gold.head, gold.relation, gold.tail) == (seen.head, seen.relation, seen.tail):
        return True
    return same_name(gold.head, seen.head) and same_name(gold.relation, seen.relation) and same_value(gold.tail, seen.tail)


def in_graph(triple: Triple, kg: KnowledgeGraph) -> bool:
    """Whether the KG holds the triple, or one written slightly differently (a head matched by search)."""
    heads = [triple.head] if kg.has_entity(triple.head) else [match.name for match in kg.search_entities(triple.head, 3)]
    for head in heads:
        for relation in kg.relations(head, Direction.OUT):
            if same_name(triple.relation, relation):
                if any(same_fact(triple, candidate) for candidate in kg.triples(head, relation, Direction.OUT)):
                    return True
    return False


def hops_reached(entities: Iterable[str], retrieved: Sequence[Triple]) -> int:
    """How far exploration went: over the retrieved triples, in either direction, the breadth-first
    distance from the question's entities to the farthest retrieved triple (a triple touching an entity
    of the question is hop 1). Triples not connected to the question's entities are not counted."""
    neighbours: dict[str, set[str]] = {}
    for triple in retrieved:
        neighbours.setdefault(fold(triple.head), set()).add(fold(triple.tail))
        neighbours.setdefault(fold(triple.tail), set()).add(fold(triple.head))
    distance = {fold(name): 0 for name in entities if fold(name) in neighbours}
    frontier = list(distance)
    while frontier:
        following = []
        for node in frontier:
            for neighbour in neighbours[node] - distance.keys():
                distance[neighbour] = distance[node] + 1
                following.append(neighbour)
        frontier = following
    hops = [
        min(distance[end] for end in (fold(triple.head), fold(triple.tail)) if end in distance) + 1
        for triple in retrieved
        if fold(triple.head) in distance or fold(triple.tail) in distance
    ]
    return max(hops, default=0)


def _distinct(triples: Iterable[dict[str, Any]]) -> list[Triple]:
    seen: dict[tuple[str, str, str], Triple] = {}
    for item in triples:
        triple = Triple(item["head"], item["relation"], item["tail"], dict(item.get("props") or {}))
        seen.setdefault((triple.head, triple.relation, triple.tail), triple)
    return list(seen.values())


def _text(triple: Triple) -> str:
    return f"({triple.head}, {triple.relation}, {triple.tail})"
