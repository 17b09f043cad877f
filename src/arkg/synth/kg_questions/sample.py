"""Which entities the questions start from: a bounded random walk over the KG from a few seeds, so
that a store of millions of triples is read only around the entities it visits.

Seeds are the best connected entities where the store lists them without a scan (GraphInventory),
else the entities a few searches find. The walk follows edges both ways and jumps back to a seed now
and then; it never steps onto a value (a number or a date), which is no subject to ask about.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from arkg.graph.literals import as_date, as_number
from arkg.graph.model import Direction, GraphInventory, KnowledgeGraph
from arkg.synth.kg_questions.view import KGView

SEEDS = 50
_PROBES = ("an", "er", "on", "ar", "in", "el", "or", "is")  # common letter pairs, for stores that only search
_JUMP = 0.15
_IN_STEP = 0.35  # edges into an entity lead from a class or a country to its many members: taken less often


@dataclass
class Sample:
    """The visited entities, and for each relation the visited entities it leaves or reaches."""

    entities: list[str] = field(default_factory=list)
    heads: dict[str, list[str]] = field(default_factory=dict)  # relation -> visited entities with it outgoing
    tails: dict[str, list[str]] = field(default_factory=dict)  # relation -> visited entities with it incoming
    with_edges_out: int = 0  # visited entities with any outgoing edge


def is_value(name: str) -> bool:
    """A number or a date: a literal, not an entity to ask about."""
    return as_number(name) is not None or as_date(name) is not None


def seeds(kg: KnowledgeGraph) -> list[str]:
    if isinstance(kg, GraphInventory):
        return [count.name for count in kg.entity_counts(limit=SEEDS) if not is_value(count.name)]
    found = {match.name for probe in _PROBES for match in kg.search_entities(probe, SEEDS // len(_PROBES))}
    return sorted(name for name in found if not is_value(name))


def walk(view: KGView, visits: int, rng: random.Random, progress: Callable[[int], None] | None = None) -> Sample:
    """Visit up to `visits` entities (fewer when the KG has fewer within reach)."""
    sample = Sample()
    starts = seeds(view.kg)
    if not starts:
        return sample
    seen: set[str] = set()
    current = rng.choice(starts)
    for _ in range(visits * 4):  # steps that find nothing new are bounded too
        if current not in seen:
            seen.add(current)
            _visit(view, sample, current)
            if progress is not None:
                progress(len(sample.entities))
            if len(sample.entities) >= visits:
                break
        current = _step(view, current, rng) or rng.choice(starts if rng.random() < 0.5 else sample.entities)
    return sample


def _visit(view: KGView, sample: Sample, entity: str) -> None:
    sample.entities.append(entity)
    out = view.relations(entity, Direction.OUT)
    sample.with_edges_out += bool(out)
    for relation in out:
        sample.heads.setdefault(relation, []).append(entity)
    for relation in view.relations(entity, Direction.IN):
        sample.tails.setdefault(relation, []).append(entity)


def _step(view: KGView, entity: str, rng: random.Random) -> str | None:
    """A neighbour of the entity along a random edge, or None to jump."""
    if rng.random() < _JUMP:
        return None
    incoming = rng.random() < _IN_STEP
    relations = view.relations(entity, Direction.IN if incoming else Direction.OUT)
    if not relations:
        return None
    edge = rng.choice(view.edges(entity, rng.choice(relations), incoming))
    neighbour = edge.head if incoming else edge.tail
    return None if is_value(neighbour) else neighbour
