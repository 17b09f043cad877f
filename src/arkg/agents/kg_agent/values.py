"""What a program variable holds, each item traceable to the KG triples that produced it.

- Entities: an ordered set of names (KG entities or literal tail values); each name carries the
  triples that put it there (empty for names written in the program itself).
- Relations: an ordered set of (relation, direction); each item carries the entities on whose edges
  it was seen (following it with get_tail_entity / get_head_entity fetches those edges).
- Number (from count) and Boolean (True, False, or None when the graph does not settle it), each
  with the triples it rests on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

from arkg.graph.model import Direction, Triple, merge_triples
from arkg.text import clip, one_line

NAME_LIMIT = 80  # longer KG names are clipped where the memory shows them


class ValueKind(str, Enum):
    ENTITIES = "entities"
    RELATIONS = "relations"
    NUMBER = "number"
    BOOLEAN = "boolean"


@dataclass(frozen=True)
class Entities:
    items: tuple[str, ...] = ()
    support: Mapping[str, tuple[Triple, ...]] = field(default_factory=dict)
    truncated: bool = False  # a capped tool kept only the first items
    kind: ClassVar[ValueKind] = ValueKind.ENTITIES

    @classmethod
    def collect(cls, pairs: Iterable[tuple[str, Iterable[Triple]]], truncated: bool = False) -> Entities:
        """Entities from (name, supporting triples) pairs; a repeated name merges its support."""
        support: dict[str, tuple[Triple, ...]] = {}
        for name, triples in pairs:
            support[name] = merge_triples(support.get(name, ()), triples)
        return cls(tuple(support), support, truncated)

    @property
    def size(self) -> int:
        return len(self.items)

    def support_of(self, name: str) -> tuple[Triple, ...]:
        return self.support.get(name, ())

    def triples(self) -> tuple[Triple, ...]:
        return merge_triples(*(self.support[name] for name in self.items))

    def texts(self) -> list[str]:
        return list(self.items)


@dataclass(frozen=True, order=True)
class RelationItem:
    name: str
    direction: Direction = Direction.OUT

    @property
    def label(self) -> str:
        """How the program memory shows it: `r` or `r (incoming)`."""
        return f"{self.name} (incoming)" if self.direction == Direction.IN else self.name


@dataclass(frozen=True)
class Relations:
    items: tuple[RelationItem, ...] = ()
    seen_on: Mapping[RelationItem, tuple[str, ...]] = field(default_factory=dict)
    kind: ClassVar[ValueKind] = ValueKind.RELATIONS

    @classmethod
    def collect(cls, pairs: Iterable[tuple[RelationItem, Iterable[str]]]) -> Relations:
        seen: dict[RelationItem, tuple[str, ...]] = {}
        for item, entities in pairs:
            seen[item] = tuple(dict.fromkeys((*seen.get(item, ()), *entities)))
        return cls(tuple(seen), seen)

    @property
    def size(self) -> int:
        return len(self.items)

    def triples(self) -> tuple[Triple, ...]:
        return ()

    def texts(self) -> list[str]:
        return [item.label for item in self.items]


@dataclass(frozen=True)
class _Scalar:
    """One value and the triples it was computed from."""

    value: object
    support: tuple[Triple, ...] = ()

    @property
    def size(self) -> int:
        return 1

    def triples(self) -> tuple[Triple, ...]:
        return self.support

    def texts(self) -> list[str]:
        return [str(self.value)]


@dataclass(frozen=True)
class Number(_Scalar):
    value: int | float
    kind: ClassVar[ValueKind] = ValueKind.NUMBER


@dataclass(frozen=True)
class Boolean(_Scalar):
    value: bool | None
    kind: ClassVar[ValueKind] = ValueKind.BOOLEAN


Value = Entities | Relations | Number | Boolean


def single_value(value: Value) -> str | int | float | bool | None:
    """The one value a variable stands for in a comparison, or None when it is empty or ambiguous."""
    if isinstance(value, Entities):
        return value.items[0] if value.size == 1 else None
    if isinstance(value, (Number, Boolean)):
        return value.value
    return None


_NOUNS = {ValueKind.ENTITIES: ("entity", "entities"), ValueKind.RELATIONS: ("relation", "relations")}


def summary(value: Value, sample: int = 5) -> str:
    """A short one-line description for the program listing: `2 entities: Warsaw, Paris`, `3`, `None`.

    KG names go through one_line, so a name cannot break the listing into forged lines.
    """
    if isinstance(value, Boolean) and value.value is None:
        return "None (the graph does not settle it)"
    if isinstance(value, (Number, Boolean)):
        return str(value.value)
    singular, plural = _NOUNS[value.kind]
    texts = [clip(one_line(text), NAME_LIMIT) for text in value.texts()]
    if not texts:
        return f"0 {plural}"
    shown = ", ".join(texts[:sample]) + (", …" if len(texts) > sample else "")
    capped = " (capped)" if isinstance(value, Entities) and value.truncated else ""
    return f"{value.size} {singular if value.size == 1 else plural}{capped}: {shown}"
