"""Why a drafted question is not kept: its gold would be unclear to a reader, or its program does not
give its gold answer when replayed on the KG."""

from __future__ import annotations

from arkg.datasets.geo.templates import Draft, reveals
from arkg.graph.literals import as_date, as_number
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.programs import ToolError
from arkg.synth.kg_questions.view import KGView
from arkg.synth.programs import Program, answer_of, run_program, same_answer


def unclear(view: KGView, draft: Draft) -> str | None:
    """What makes the question ambiguous, or None: a name that two entities bear (up to case and
    accents), an answer the question names, or an edge whose props hold a value that could be read
    as its tail (a date beside a date, an entity beside an entity)."""
    if not all(view.unique_name(name) for name in draft.entities):
        return "a name two entities share"
    if reveals(draft):
        return "an answer named in the question"
    if any(_prop_like_tail(view, triple) for triple in draft.evidence):
        return "a prop value that looks like a tail"
    return None


def _prop_like_tail(view: KGView, triple: Triple) -> bool:
    """Whether a prop holds a value of the tail's sort: a date beside a date, a number beside a number,
    an entity beside an entity (a population's year is no population; its earlier estimate is)."""
    tail = _sort(view, triple.tail)
    return tail != "text" and any(
        _sort(view, str(value)) == tail for value in triple.props.values() if value is not None and not isinstance(value, bool)
    )


def _sort(view: KGView, value: str) -> str:
    if as_date(value) is not None:
        return "date"
    if as_number(value) is not None:
        return "number"
    return "entity" if view.kg.has_entity(value) else "text"


def replays(kg: KnowledgeGraph, draft: Draft) -> bool:
    """Whether the gold program, run with the KG-Agent executor on the KG, gives the gold answer."""
    gold = tuple(draft.answer) if isinstance(draft.answer, list) else draft.answer
    try:
        memory = run_program(kg, draft.question, Program(tuple(draft.program.lines()), draft.entities))
    except ToolError:
        return False
    return same_answer(answer_of(memory.answer), gold)
