"""The words of gold replies: short implications and explanations, within the length bounds of the
strategies' reply schemas (`fit`; the answer field itself is arkg.agents.teaching's `answer_text`)."""

from __future__ import annotations

from collections.abc import Sequence

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.teaching import fit
from arkg.graph.literals import as_date, as_number
from arkg.agents.triple_keys import triple_text
from arkg.graph.model import Direction, Triple

_LISTED = 5


def listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def implication(anchor: str, relation: str, direction: Direction, triples: Sequence[Triple]) -> str:
    """What one step's facts say, subject first: "France capital: Paris.", "Portugal language spoken: Portuguese, Mirandese."."""
    if direction == Direction.IN:
        return fit(f"{listing([t.head for t in triples])} {relation}: {anchor}.")
    return fit(f"{anchor} {relation}: {listing([t.tail for t in triples])}.")


def facts_explanation(triples: Sequence[Triple], then: str = "") -> str:
    """An explanation that names the facts an answer rests on, then (kept whole) the step from them
    to the answer, if any."""
    if not triples:
        return "No fact shown bears on it."
    facts = "From " + "; ".join(triple_text(triple) for triple in triples) + "."
    if not then:
        return fit(facts)
    return f"{fit(facts, MAX_TEXT_CHARS - len(then) - 1)} {then}"


# A comparison in words: (when true, when false), for dates and for numbers.
_ORDER = {
    "<": (("is before", "is not before"), ("is less than", "is not less than")),
    "<=": (("is not after", "is after"), ("is at most", "is more than")),
    ">": (("is after", "is not after"), ("is greater than", "is not greater than")),
    ">=": (("is not before", "is before"), ("is at least", "is less than")),
}


def verdict_sentence(left: Sequence[str], op: str, right: Sequence[str], verdict: bool) -> str:
    """The step from values to a yes/no answer, written out so that a reply reasons before it answers:
    "6 November 1855 is before 3 June 1911.", "Syria is not among Turkey, Iraq, Jordan."."""
    a, b = listing(left), listing(right)
    if op in _ORDER:
        dated = all(as_date(value) is not None and as_number(value) is None for value in (*left, *right))
        words = _ORDER[op][0 if dated else 1]
        return fit(f"{a} {words[0 if verdict else 1]} {b}.", MAX_TEXT_CHARS // 2)
    if op in ("contains", "overlaps") and len(right) == 1:
        among = "" if len(left) == 1 else "among "
        return fit(f"{b} {'is' if verdict else 'is not'} {among}{a}.", MAX_TEXT_CHARS // 2)
    if op in ("contains", "overlaps"):
        quantity = ("all" if op == "contains" else "some") if verdict else ("not all" if op == "contains" else "none")
        return fit(f"{quantity.capitalize()} of {b} {'is' if quantity == 'none' else 'are'} among {a}.", MAX_TEXT_CHARS // 2)
    return fit(f"{a} {'is' if verdict else 'is not'} {b}.", MAX_TEXT_CHARS // 2)  # = and !=, by their verdict


def missing_explanation(relation: str, names: Sequence[str], direction: Direction) -> str:
    """Why shown facts settle nothing: the edge they lack, as a fact with a gap "(Cuba, capital, ?)"."""
    known = listing(names)
    edge = f"(?, {relation}, {known})" if direction == Direction.IN else f"({known}, {relation}, ?)"
    return fit(f"No fact shown gives {edge}.")
