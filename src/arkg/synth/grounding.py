"""Grounding a stated fact on a KG: the triples it names, found exactly or by a close match.

Sources write facts by hand: names differ from the KG's (`Ilary Blast` for `Ilary Blasi`),
relations are misspelt (`occuption`), values are written another way (`59449` for `59,449`), and
qualifiers are left out or only some are given. A fact is matched exactly when head, relation,
tail and props are the KG's; otherwise on folded names and values, close spellings and a subset
of the props, with a note for each difference. A fact that matches nothing raises Ungrounded,
whose message says which part failed and what the KG has instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rapidfuzz import fuzz

from arkg.graph.literals import as_date, as_number, same
from arkg.agents.triple_keys import triple_text
from arkg.graph.matching import fold
from arkg.graph.model import Direction, KnowledgeGraph, PropValue, Triple
from arkg.synth.chains import GroundedFact
from arkg.text import clip

NAME_SCORE = 90.0  # rapidfuzz ratio of folded names: a close spelling, not another name
RELATION_SCORE = 85.0
_CLOSEST = 3
# What follows a value when a qualifier was written into it: "Prime Minister of Nepal {end time, 2003".
_QUALIFIER_AFTER = re.compile(r"\s+[({][^)}]*,")


class Ungrounded(Exception):
    """A stated fact or name that the KG does not hold; the message says what is missing."""


def ground_name(kg: KnowledgeGraph, name: str) -> tuple[str, str | None]:
    """The KG's name for `name` and a note when it is only a close spelling; Ungrounded if none."""
    if kg.has_entity(name):
        return name, None
    close = _close_names(kg, name)
    if not close:
        found = ", ".join(repr(match.name) for match in kg.search_entities(name, _CLOSEST)) or "nothing close"
        raise Ungrounded(f"no entity named {name!r} (closest: {found})")
    return close[0], f"{name!r} is {close[0]!r} in the KG"


def ground_fact(kg: KnowledgeGraph, stated: Triple) -> GroundedFact:
    """The KG triples the stated fact names (exact, or the closest match with notes)."""
    exact = [edge for edge in kg.triples(stated.head, stated.relation, Direction.OUT) if edge == stated]
    if exact:
        return GroundedFact(stated, tuple(exact))
    head, head_note = ground_name(kg, stated.head)
    best: GroundedFact | None = None
    reasons: list[str] = []
    for relation, relation_note in _relations(kg, head, stated.relation):
        edges = kg.triples(head, relation, Direction.OUT)
        tails = [(edge, note) for edge in edges if (note := _value_note(edge.tail, stated.tail, "tail")) is not False]
        if not tails:
            shown = ", ".join(repr(clip(edge.tail, 40)) for edge in edges[:_CLOSEST])
            reasons.append(f"({head}, {relation}) leads to {shown}, not {stated.tail!r}")
            continue
        matched = [(edge, note, props) for edge, note in tails if (props := _props_note(edge.props, stated.props)) is not False]
        if not matched:
            reasons.append(f"({head}, {relation}, {stated.tail}) has other props than {dict(stated.props)}")
            continue
        exact = [edge for edge, note, props in matched if note is None and props is None]
        if exact and head_note is None and relation_note is None:
            return GroundedFact(stated, tuple(exact))
        notes = [head_note, relation_note, matched[0][1], matched[0][2]]
        found = GroundedFact(stated, tuple(edge for edge, *_ in matched), tuple(note for note in notes if note))
        if best is None or len(found.notes) < len(best.notes):
            best = found
    if best is not None:
        return best
    if not reasons:
        relations = ", ".join(repr(name) for name in kg.relations(head, Direction.OUT)[:8]) or "none"
        raise Ungrounded(f"{head!r} has no relation like {stated.relation!r} (its relations: {relations})")
    raise Ungrounded(f"{triple_text(stated)}: " + "; ".join(reasons))


def _close_names(kg: KnowledgeGraph, name: str) -> list[str]:
    folded = fold(name)
    return [
        match.name
        for match in kg.search_entities(name, _CLOSEST)
        if fold(match.name) == folded or fuzz.ratio(fold(match.name), folded) >= NAME_SCORE
    ]


def _relations(kg: KnowledgeGraph, head: str, stated: str) -> list[tuple[str, str | None]]:
    """The head's relations that the stated label names: itself, else close spellings, closest first."""
    relations = kg.relations(head, Direction.OUT)
    if stated in relations:
        return [(stated, None)]
    folded = fold(stated)
    scored = sorted(
        ((fuzz.ratio(fold(relation), folded), relation) for relation in relations),
        key=lambda pair: -pair[0],
    )
    return [(relation, f"relation {stated!r} is {relation!r}") for score, relation in scored if score >= RELATION_SCORE]


def _value_note(value: str, stated: str, part: str) -> str | None | bool:
    """None when equal, a note when close (same number or date, folded text, close spelling), else False."""
    if value == stated:
        return None
    if _QUALIFIER_AFTER.match(stated[len(value):]) and stated.startswith(value):
        return f"{part} {stated!r} is {value!r} (a qualifier written into it)"
    if same(value, stated) or (not _quantity(value) and not _quantity(stated) and fuzz.ratio(fold(value), fold(stated)) >= NAME_SCORE):
        return f"{part} {stated!r} is {value!r}"
    return False


def _quantity(text: str) -> bool:
    """Numbers and dates match only by value: "59,448" is not a misspelling of "59,449"."""
    return as_number(text) is not None or as_date(text) is not None


def _props_note(props: Mapping[str, PropValue], stated: Mapping[str, PropValue]) -> str | None | bool:
    """None when equal; a note when the statement gives a subset of them (or none); else False."""
    if dict(props) == dict(stated):
        return None
    by_key = {fold(key): value for key, value in props.items()}
    for key, value in stated.items():
        if fold(key) not in by_key or not same(str(by_key[fold(key)]), str(value)):
            return False
    left_out = [key for key in props if fold(key) not in {fold(name) for name in stated}]
    return f"props {', '.join(left_out)} not stated" if left_out else "props written another way"
