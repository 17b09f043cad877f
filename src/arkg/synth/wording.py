"""The words of gold replies: answers as the strategies ask for them, short implications and
explanations, all within the length bounds of the strategies' reply schemas."""

from __future__ import annotations

from collections.abc import Sequence

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.triple_keys import triple_text
from arkg.graph.model import Direction, Triple
from arkg.synth.chains import GoldAnswer
from arkg.text import one_line

_LISTED = 5


def fit(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """One line of at most `limit` characters, cut at a word with an ellipsis when longer."""
    text = " ".join(one_line(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return f"{cut}…"


def answer_text(answer: GoldAnswer | None, yes_no: bool) -> str:
    """The answer field of a reply: yes / no / unknown, or a short open answer ("unknown" when unsettled)."""
    if answer is None:
        return "unknown"
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if yes_no:
        raise ValueError(f"a yes/no question cannot be answered with {answer!r}")
    return str(answer) if isinstance(answer, int) else ", ".join(answer)


def listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def implication(anchor: str, relation: str, direction: Direction, triples: Sequence[Triple]) -> str:
    """What one step's facts say, subject first: "France capital: Paris.", "Portugal language spoken: Portuguese, Mirandese."."""
    if direction == Direction.IN:
        return fit(f"{listing([t.head for t in triples])} {relation}: {anchor}.")
    return fit(f"{anchor} {relation}: {listing([t.tail for t in triples])}.")


def facts_explanation(triples: Sequence[Triple]) -> str:
    """An explanation that names the facts an answer rests on."""
    if not triples:
        return "No fact shown bears on it."
    return fit("From " + "; ".join(triple_text(triple) for triple in triples) + ".")


def missing_explanation(relation: str, names: Sequence[str], direction: Direction) -> str:
    """Why shown facts settle nothing: the edge they lack, as a fact with a gap "(Cuba, capital, ?)"."""
    known = listing(names)
    edge = f"(?, {relation}, {known})" if direction == Direction.IN else f"({known}, {relation}, ?)"
    return fit(f"No fact shown gives {edge}.")
