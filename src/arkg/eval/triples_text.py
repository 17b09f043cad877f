"""Parse CoLoTa's free-text `KG Triples` field into property-graph triples.

The field reads `1- (head, relation, tail {key, value}), 2- (...)`, but commas are ambiguous:
relation labels and tails may contain them, qualifiers are written inline, and some items miss a
parenthesis or share one pair of parentheses. Parsing therefore runs in two passes:

1. `split_items` cuts each field into items and each item into comma-separated parts plus its
   qualifiers (no decisions about which comma separates head, relation and tail yet);
2. `Resolver` decides those commas using evidence gathered from *all* items of the file: known
   entity names and how often a candidate relation label recurs.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from arkg.graph.model import Triple

# "12- (" or "2-(" at the start or after a separator: the numbering of an item.
_NUMBERING = re.compile(r"(?:^|(?<=[\s,]))\d+\s*-\s*(?=\()")
_BRACED_QUALIFIER = re.compile(r"\{([^{}]*)\}")
# A trailing "(key, value)" is a qualifier; "(English)" or "(1946–2009)" without a comma is part of a name.
_PARENTHESISED_QUALIFIER = re.compile(r"\s*\(([^()]*,[^()]*)\)\s*$")
# A comma between digits followed by three digits is a thousands separator ("59,449"), never a field separator.
_FIELD_COMMA = re.compile(r",(?!(?<=\d,)\d{3}(?!\d))")


class ItemError(ValueError):
    """One item of a `KG Triples` field could not be turned into a triple."""


@dataclass(frozen=True)
class RawItem:
    """An item cut into comma-separated parts; which commas separate the fields is decided later."""

    text: str
    parts: tuple[str, ...]
    # One dict per statement: a repeated qualifier key starts the next statement (S76 lists four terms).
    qualifier_sets: tuple[dict[str, str], ...]
    unkeyed_qualifiers: tuple[str, ...] = ()


@dataclass
class SplitField:
    items: list[RawItem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def split_items(text: str) -> SplitField:
    """Cut a `KG Triples` field into raw items; unusable pieces are listed in `errors`."""
    result = SplitField()
    chunks = [chunk for chunk in _NUMBERING.split(text) if chunk.strip(" ,\n")]
    for chunk in chunks:
        for body in _parenthesised_groups(chunk.strip(" ,\n")):
            try:
                result.items.append(_split_item(body))
            except ItemError as error:
                result.errors.append(f"item ({body}): {error}")
    return result


def _parenthesised_groups(chunk: str) -> list[str]:
    """The bodies of the top-level (...) groups of one numbered chunk.

    A group still open when the chunk ends is closed there (items missing their `)`); a doubled
    opening `((` is read as one.
    """
    chunk = re.sub(r"^\(+", "(", chunk)
    if not chunk.startswith("("):
        return [chunk]
    groups: list[str] = []
    depth = 0
    start = 0
    for position, char in enumerate(chunk):
        if char == "(":
            if depth == 0:
                start = position + 1
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append(chunk[start:position])
    if depth > 0:
        groups.append(chunk[start:])
    return [group for group in groups if group.strip()]


def _split_item(body: str) -> RawItem:
    braced = _BRACED_QUALIFIER.findall(body)
    rest = _BRACED_QUALIFIER.sub(" ", body)
    trailing = _PARENTHESISED_QUALIFIER.search(rest)
    if trailing:
        braced.append(trailing.group(1))
        rest = rest[: trailing.start()]
    parts = tuple(part.strip() for part in _FIELD_COMMA.split(rest.strip(" ,")))
    if len(parts) < 3 or not all(parts):
        raise ItemError(f"expected (head, relation, tail), found {len(parts)} comma-separated part(s)")
    keyed: list[tuple[str, str]] = []
    unkeyed: list[str] = []
    for qualifier in braced:
        key, comma, value = qualifier.partition(",")
        if comma:
            keyed.append((key.strip(), value.strip()))
        else:
            unkeyed.append(qualifier.strip())
    return RawItem(body.strip(), parts, _statements(keyed), tuple(unkeyed))


def _statements(qualifiers: Iterable[tuple[str, str]]) -> tuple[dict[str, str], ...]:
    statements: list[dict[str, str]] = [{}]
    for key, value in qualifiers:
        if key in statements[-1]:
            statements.append({})
        statements[-1][key] = value
    return tuple(statements)


class Resolver:
    """Decides which commas of an item separate head, relation and tail.

    Evidence, gathered from every item of the file:
    - known entities (the questions' `KG Entities` and the heads of unambiguous 3-part items)
      mark where the head ends;
    - a relation label recurs across items, while tails rarely do: the candidate relation seen in
      the most items wins ("description" beats "description, city in Ontario"). When a longer
      label recurs exactly as often as its prefix, and in more than one item, the commas belong to
      the label ("dissolved, abolished or demolished date").
    - qualifier keys written with a comma elsewhere split qualifiers written without one
      (`{represents People Power Party}`).
    """

    def __init__(self, items: Iterable[RawItem], entities: Iterable[str]) -> None:
        items = list(items)
        self.entities = set(entities) | {item.parts[0] for item in items if len(item.parts) == 3}
        self.relation_support: Counter[tuple[str, ...]] = Counter()
        for item in items:
            self.relation_support.update(set(_candidate_relations(item.parts)))
        self.qualifier_keys = sorted(
            {key for item in items for statement in item.qualifier_sets for key in statement}, key=len, reverse=True
        )

    def resolve(self, item: RawItem, entities: Iterable[str] = ()) -> list[Triple]:
        """The triples of one item (one per qualifier statement); ItemError if a qualifier is unreadable."""
        head_end = self._head_end(item.parts, set(entities))
        relation_end = self._relation_end(item.parts, head_end)
        head = ", ".join(item.parts[:head_end])
        relation = ", ".join(item.parts[head_end:relation_end])
        tail = ", ".join(item.parts[relation_end:])
        statements = [dict(statement) for statement in item.qualifier_sets]
        for qualifier in item.unkeyed_qualifiers:
            key = next((key for key in self.qualifier_keys if qualifier.startswith(key + " ")), None)
            if key is None:
                raise ItemError(f"qualifier {{{qualifier}}} has no comma and starts with no known qualifier key")
            statements[-1][key] = qualifier[len(key) :].strip()
        return [Triple(head, relation, tail, statement) for statement in statements]

    def _head_end(self, parts: tuple[str, ...], question_entities: set[str]) -> int:
        known = self.entities | question_entities
        for end in range(1, len(parts) - 1):
            if ", ".join(parts[:end]) in known:
                return end
        return 1

    def _relation_end(self, parts: tuple[str, ...], head_end: int) -> int:
        # A longer run never recurs more often than its prefix, so only equal support can extend the label.
        end = head_end + 1
        while end < len(parts) - 1:
            support = self.relation_support[parts[head_end : end + 1]]
            if support < 2 or support != self.relation_support[parts[head_end:end]]:
                break
            end += 1
        return end


def _candidate_relations(parts: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
    """Every run of parts that could be the relation: something before it (head), something after (tail)."""
    for start in range(1, len(parts) - 1):
        for end in range(start + 1, len(parts)):
            yield parts[start:end]
