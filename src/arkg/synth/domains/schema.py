"""What a domain is: its entity types, the relations between them, the values they carry, and how
questions about each relation are worded.

A wording is a format string: `{x}` is the entity (or noun phrase) the question starts from, `{y}`
the other end of the edge, `{a}` / `{b}` the two sides of a comparison, `{options}` the alternatives
of an open comparison ("A or B", "A, B or C"). Several wordings per slot: each question draws one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ValueKind = Literal["date", "year", "quantity"]


@dataclass(frozen=True)
class NameStyle:
    """How a type's fictional names are made: a pattern is drawn, `{word}` becomes an invented word,
    `{key}` an item of `pools[key]`. A type whose patterns use pools only has a fixed set of names."""

    patterns: tuple[str, ...]
    pools: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class EntityType:
    name: str
    count: int
    names: NameStyle


@dataclass(frozen=True)
class Link:
    """An edge between two entities: (head of type `head`, name, tail of type `tail`).

    Edges are drawn per head (`per_head` tails each) or, for relations read backwards ("Who founded
    C?" over (P, founded, C)), per tail (`per_tail` heads each)."""

    name: str
    head: str
    tail: str
    per_head: tuple[int, int] | None = None
    per_tail: tuple[int, int] | None = None
    ask: tuple[str, ...] = ()  # about the tails of {x}
    ask_in: tuple[str, ...] = ()  # about the heads of {y}
    of: tuple[str, ...] = ()  # a noun phrase for the one tail of {x} ("the director of {x}")
    of_in: tuple[str, ...] = ()  # a noun phrase for the one head of {y} ("the founder of {y}")
    check: tuple[str, ...] = ()  # yes/no: is {y} among the tails of {x}?
    count: tuple[str, ...] = ()  # how many tails {x} has
    count_in: tuple[str, ...] = ()  # how many heads {y} has
    check_kind: tuple[str, ...] = ()  # yes/no: is some tail of {x} of the kind {y} (a kind link away)?

    def __post_init__(self) -> None:
        if (self.per_head is None) == (self.per_tail is None):
            raise ValueError(f"link {self.name!r}: give exactly one of per_head and per_tail")


@dataclass(frozen=True)
class Value:
    """A literal each entity of type `head` has once: a date, a year, or a number with a unit."""

    name: str
    head: str
    kind: ValueKind
    low: float
    high: float
    unit: str | None = None
    decimals: int = 0
    ask: tuple[str, ...] = ()  # the value of {x}
    less: tuple[str, ...] = ()  # yes/no, true when the value of {a} is below that of {b} ("Was {a} released before {b}?")
    more: tuple[str, ...] = ()  # yes/no, true when it is above
    least: tuple[str, ...] = ()  # open: which of {options} has the lowest value
    most: tuple[str, ...] = ()  # open: which has the highest


@dataclass(frozen=True)
class Domain:
    """A domain's schema. `kind_types` and `kind_links` add kinds of things that a question may name
    instead of a thing ("Does X play a string instrument?"): the links reaching such things carry
    `check_kind` wordings (in `links` or `kind_links`), and a kind link (per_head=(1, 1)) gives each
    thing its kind. They are drawn after the rest on their own random stream, so the rest of the KG
    does not depend on them."""

    name: str
    types: tuple[EntityType, ...]
    links: tuple[Link, ...]
    values: tuple[Value, ...]
    kind_types: tuple[EntityType, ...] = ()
    kind_links: tuple[Link, ...] = ()

    @property
    def all_types(self) -> tuple[EntityType, ...]:
        return (*self.types, *self.kind_types)

    @property
    def all_links(self) -> tuple[Link, ...]:
        return (*self.links, *self.kind_links)

    def __post_init__(self) -> None:
        known = {kind.name for kind in self.all_types}
        for relation in (*self.all_links, *self.values):
            ends = (relation.head, relation.tail) if isinstance(relation, Link) else (relation.head,)
            missing = [end for end in ends if end not in known]
            if missing:
                raise ValueError(f"domain {self.name!r}, relation {relation.name!r}: no entity type {missing[0]!r}")

    @property
    def relations(self) -> frozenset[str]:
        return frozenset(relation.name for relation in (*self.all_links, *self.values))

    @property
    def type_names(self) -> frozenset[str]:
        return frozenset(kind.name for kind in self.all_types)

    def type(self, name: str) -> EntityType:
        return next(kind for kind in self.all_types if kind.name == name)

    def kind_link(self, link: Link) -> Link | None:
        """The link that gives the kind of what `link` reaches, if a kind link leaves its tail type."""
        return next((kind for kind in self.kind_links if kind.head == link.tail and not kind.check_kind), None)
