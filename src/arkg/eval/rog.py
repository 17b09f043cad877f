"""WebQSP and CWQ as Reasoning on Graphs (RoG) and GCR publish them: each question with its own
Freebase subgraph, so that no 400 GB Freebase is needed.

    {"id": "WebQTest-0", "question": "what does jamaican people speak", "answer": ["Jamaican English"],
     "q_entity": ["Jamaica"], "a_entity": ["Jamaican English"],
     "graph": [["Jamaica", "location.country.languages_spoken", "Jamaican English"], ...], "choices": []}

Rows come as JSON lines, a JSON list or the parquet files they are distributed in (arkg.eval.rows).
Each question runs on its own `graph`. Freebase CVT nodes (`m.0abc`, `g.11xyz`: events and
relationships without a name) stay entities, as they are the hops between named ones. The gold
answer is `answer`, else `a_entity`. Defects are problems: a row without a question, an id or a
gold answer, or without any well-formed triple, is skipped; malformed triples are left out; an
answer or topic entity that no triple of the question's graph mentions is noted (the question can
then only be answered from what the model knows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arkg.eval.dataset import Dataset, Effect, Problem, Question
from arkg.eval.rows import Entries
from arkg.graph.model import Triple
from arkg.text import clip


def is_rog_row(value: object) -> bool:
    """A RoG row: a question with a graph, and `answer` or a list of `q_entity` (ARK-V1 rows have neither)."""
    return (
        isinstance(value, dict)
        and {"question", "graph"} <= value.keys()
        and ("answer" in value or isinstance(value.get("q_entity"), list))
    )


def load_rog(path: Path, entries: Entries) -> Dataset:
    dataset = Dataset(path=path, entries=len(entries.items))
    seen: set[str] = set()
    for entry in entries.items:
        row = entry.value if isinstance(entry.value, dict) else None
        question_id = str(row.get("id") or entry.number) if row is not None else str(entry.number)
        if row is None:
            reason = f"expected an object, found {type(entry.value).__name__}"
            dataset.problems.append(Problem(question_id, "row", reason, Effect.QUESTION_SKIPPED))
            continue
        if question_id in seen:
            dataset.problems.append(Problem(question_id, "id", "duplicate id; this later row is ignored", Effect.QUESTION_SKIPPED))
            continue
        seen.add(question_id)
        question, problems = _question(question_id, row)
        dataset.problems += problems
        if question is not None:
            dataset.questions.append(question)
    return dataset


def _question(question_id: str, row: dict[str, Any]) -> tuple[Question | None, list[Problem]]:
    """The row as a question (None when unusable), and its problems."""
    problems: list[Problem] = []

    def problem(field: str, reason: str, effect: Effect = Effect.QUESTION_SKIPPED) -> None:
        problems.append(Problem(question_id, field, reason, effect))

    text = row.get("question")
    if not isinstance(text, str) or not text.strip():
        problem("question", "missing or empty")
        return None, problems
    graph, malformed = _triples(row.get("graph"))
    if malformed:
        problem("graph", f"{len(malformed)} malformed triple(s) left out; the first: {malformed[0]}", Effect.ITEM_SKIPPED)
    if not graph:
        problem("graph", "no well-formed triple" if malformed else "empty graph")
        return None, problems
    gold = _names(row.get("answer")) or _names(row.get("a_entity"))
    if not gold:
        problem("answer", "no gold answer (answer and a_entity are empty)")
        return None, problems
    topics = _names(row.get("q_entity"))
    mentioned = {name for triple in graph for name in (triple.head, triple.tail)}
    for field, names in (("answer", gold), ("q_entity", topics)):
        for name in names:
            if name not in mentioned:
                problem(field, f"{name!r} is in no triple of the question's graph", Effect.NOTE)
    return Question(question_id, text.strip(), gold, dict.fromkeys(topics, ""), (), (), graph=graph), problems


def _triples(graph: Any) -> tuple[tuple[Triple, ...], list[str]]:
    """The well-formed [head, relation, tail] triples, each once, and how the others were malformed."""
    if not isinstance(graph, list):
        return (), [] if graph is None else [f"graph is {type(graph).__name__}, not a list"]
    unique: dict[tuple[str, str, str], Triple] = {}
    malformed = []
    for number, item in enumerate(graph, 1):
        if (
            isinstance(item, (list, tuple))
            and len(item) == 3
            and all(isinstance(name, str) and name.strip() for name in item)
        ):
            unique.setdefault(tuple(item), Triple(*item))
        else:
            malformed.append(f"item {number}: {clip(repr(item), 80)}")
    return tuple(unique.values()), malformed


def _names(value: Any) -> tuple[str, ...]:
    """Names from a list (or a single name), each once, in order; anything that is no name is dropped."""
    items = [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
    return tuple(dict.fromkeys(item.strip() for item in items if isinstance(item, str) and item.strip()))
