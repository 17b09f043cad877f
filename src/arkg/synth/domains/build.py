"""A domain's KG: fictional entities of each type, the links drawn between them, and their values.

The same domain, seed and `taken` names give the same triples. Quantities are bare numbers with
their unit in the edge's props (as the geography KG stores areas), so that they compare as numbers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arkg.graph.model import Triple
from arkg.synth.domains.names import make_names
from arkg.synth.domains.schema import Domain, Link, Value

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)  # fmt: skip


@dataclass(frozen=True)
class DomainGraph:
    domain: Domain
    entities: dict[str, list[str]]  # entity type -> its names
    triples: list[Triple]


def build_domain(domain: Domain, seed: int, taken: set[str] | None = None, kinds: bool = True) -> DomainGraph:
    """The domain's entities and triples; `taken` (case-folded names other domains use) is extended
    with its own, so that domains built one after the other into one KG never share a name.
    Without `kinds`, the domain's kind types and links are left for `add_kinds`."""
    rng = random.Random(f"domain:{seed}:{domain.name}")
    taken = set() if taken is None else taken
    entities = {kind.name: make_names(kind, rng, taken) for kind in domain.types}
    triples: list[Triple] = []
    for link in domain.links:
        triples += _link_triples(link, entities, rng)
    for value in domain.values:
        triples += [_value_triple(value, head, rng) for head in entities[value.head]]
    graph = DomainGraph(domain, entities, triples)
    return add_kinds(graph, seed, taken) if kinds else graph


def add_kinds(graph: DomainGraph, seed: int, taken: set[str]) -> DomainGraph:
    """The graph with its domain's kind types and links, drawn on their own random stream."""
    domain = graph.domain
    if not domain.kind_types and not domain.kind_links:
        return graph
    rng = random.Random(f"domain-kinds:{seed}:{domain.name}")
    entities = {**graph.entities, **{kind.name: make_names(kind, rng, taken) for kind in domain.kind_types}}
    triples = list(graph.triples)
    for link in domain.kind_links:
        triples += _link_triples(link, entities, rng)
    return DomainGraph(domain, entities, triples)


def _link_triples(link: Link, entities: dict[str, list[str]], rng: random.Random) -> list[Triple]:
    heads, tails = entities[link.head], entities[link.tail]
    triples = []
    if link.per_head is not None:
        for head in heads:
            for tail in _some(rng, [t for t in tails if t != head], link.per_head):
                triples.append(Triple(head, link.name, tail))
    else:
        assert link.per_tail is not None
        for tail in tails:
            for head in _some(rng, [h for h in heads if h != tail], link.per_tail):
                triples.append(Triple(head, link.name, tail))
    return triples


def _some(rng: random.Random, pool: list[str], bounds: tuple[int, int]) -> list[str]:
    return rng.sample(pool, min(len(pool), rng.randint(*bounds)))


def _value_triple(value: Value, head: str, rng: random.Random) -> Triple:
    if value.kind == "date":
        year = rng.randint(int(value.low), int(value.high))
        return Triple(head, value.name, f"{rng.randint(1, 28)} {rng.choice(_MONTHS)} {year}")
    if value.kind == "year":
        return Triple(head, value.name, str(rng.randint(int(value.low), int(value.high))))
    number = round(rng.uniform(value.low, value.high), value.decimals)
    text = f"{number:.{value.decimals}f}" if value.decimals else str(int(number))
    return Triple(head, value.name, text, {"unit": value.unit} if value.unit else {})
