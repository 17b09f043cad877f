"""What a relation holds, read off the edges of the sampled entities (never the whole relation):
values to compare (numbers or dates), entities to follow, or kinds.

A relation is type-like by its shape, not its name: most entities have it, and they point along it
to a few hub tails that themselves have few outgoing edges (`instance of` to `human`, `rdf:type` to
`Person`). A relation named `type` whose tails are ordinary entities is not one, nor is `employer`
from people to a few small companies (people are not most entities); a type relation named in
another language is one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arkg.graph.literals import as_date, as_number
from arkg.synth.kg_questions.sample import Sample, is_value
from arkg.synth.kg_questions.view import KGView
from arkg.synth.kg_questions.wording import wording

PROFILE_HEADS = 40  # sampled heads read per relation
_MIN_KIND_HEADS = 4
_KIND_COVER = 0.5  # share of the sampled entities with outgoing edges that a type-like relation leaves
_KIND_SPREAD = 0.34  # at most this many distinct tails per head of a type-like relation
_KIND_TAIL_OUT = 5  # a kind's own outgoing edges, at most
_VALUES = 0.9  # share of tails that must be numbers or dates for a value relation


class Holds(str, Enum):
    ENTITIES = "entities"
    NUMBERS = "numbers"
    DATES = "dates"
    KINDS = "kinds"


@dataclass(frozen=True)
class Profile:
    relation: str
    holds: Holds
    heads: tuple[str, ...]  # sampled heads that have the relation
    kinds: tuple[str, ...] = ()  # for a type-like relation: the hub tails seen


class Profiles:
    """Each sampled relation's profile, computed on first use."""

    def __init__(self, view: KGView, sample: Sample) -> None:
        self.view = view
        self.sample = sample
        self._known: dict[str, Profile] = {}

    def __getitem__(self, relation: str) -> Profile:
        if relation not in self._known:
            self._known[relation] = self._profile(relation)
        return self._known[relation]

    def of(self, holds: Holds) -> list[Profile]:
        return [self[relation] for relation in sorted(self.sample.heads) if self[relation].holds is holds]

    def _profile(self, relation: str) -> Profile:
        heads = tuple(self.sample.heads.get(relation, ())[:PROFILE_HEADS])
        tails = [edge.tail for head in heads for edge in self.view.edges(head, relation)]
        values = [tail for tail in tails if is_value(tail)]
        if tails and len(values) >= _VALUES * len(tails):
            dated = all(as_date(value) is not None for value in values) and (
                wording(relation).dated or not all(as_number(value) is not None for value in values)
            )
            return Profile(relation, Holds.DATES if dated else Holds.NUMBERS, heads)
        distinct = sorted(set(tails) - set(values))
        if (
            len(heads) >= _MIN_KIND_HEADS
            and len(self.sample.heads[relation]) >= _KIND_COVER * self.sample.with_edges_out
            and len(distinct) <= _KIND_SPREAD * len(heads)
            and all(self.view.out_degree(kind, _KIND_TAIL_OUT + 1) <= _KIND_TAIL_OUT for kind in distinct)
        ):
            return Profile(relation, Holds.KINDS, heads, tuple(distinct))
        return Profile(relation, Holds.ENTITIES, heads)
