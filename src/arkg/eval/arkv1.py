"""The ARK-V1 authors' evaluation data: one question per JSON line, each with its own KG.

    {"id": "S2", "question": "Is Yui Yuigahama's pet a corgi?", "q_entity": {"Yui Yuigahama": "Q97644811"},
     "a_entity": false, "graph": [["Yui Yuigahama", "Sablé", {"relation": "has pet"}], ...]}

`graph` is the question's 1-hop Wikidata neighbourhood, frozen in time, in the ARK-V1 edge format
(the same as `arkg kg load` reads). `a_entity` is true or false for a yes/no question, or the list
of names that answer an open one. A single such object in a JSON file (as in the ARK-V1 repository's
example) is a data set of one question; a JSON list of them is read too (arkg.eval.rows). The file
holds no gold evidence, so evidence metrics are not available for it; everything else is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, StrictBool, ValidationError

from arkg.agents.question import is_claim
from arkg.errors import LoadError
from arkg.eval.dataset import Dataset, Effect, GoldAnswer, Problem, Question
from arkg.eval.rows import Entries, read_entries
from arkg.graph.loaders.ark_json import edge_records
from arkg.graph.model import Triple


class _Entry(BaseModel):
    id: str | None = None
    question: str = Field(min_length=1)
    q_entity: dict[str, str] = {}
    a_entity: StrictBool | list[str]
    graph: list[Any]


def is_arkv1_entry(value: object) -> bool:
    return isinstance(value, dict) and "graph" in value and "question" in value and "a_entity" in value


def load_arkv1(path: str | Path, entries: Entries | None = None) -> Dataset:
    """Read an ARK-V1 per-question file (JSON lines, one object, or a list); bad entries are errors naming them."""
    path = Path(path)
    entries = entries or read_entries(path)
    if entries is None:
        raise LoadError(path, None, "expected ARK-V1 questions as JSON lines or JSON")
    dataset = Dataset(path=path, entries=len(entries.items))
    seen: set[str] = set()
    for index, item in enumerate(entries.items, 1):
        where, value = item.where, item.value
        if not isinstance(value, dict):
            raise LoadError(path, where, f"expected a JSON object per question, found {type(value).__name__}")
        try:
            entry = _Entry.model_validate(value)
        except ValidationError as error:
            first = error.errors()[0]
            raise LoadError(path, where, f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
        question_id = entry.id or str(index)
        if question_id in seen:
            dataset.problems.append(Problem(question_id, "id", "duplicate id; this later entry is ignored", Effect.QUESTION_SKIPPED))
            continue
        seen.add(question_id)
        prefix = f"{where}, " if where else ""
        graph = tuple(Triple(h, r, t, p) for h, r, t, p in edge_records(entry.graph, path, f"{prefix}graph "))
        if not graph:
            dataset.problems.append(Problem(question_id, "graph", "empty graph", Effect.QUESTION_SKIPPED))
            continue
        answer = _gold(entry.a_entity)
        if answer is None:
            dataset.problems.append(Problem(question_id, "a_entity", "an empty list of answers", Effect.QUESTION_SKIPPED))
            continue
        dataset.questions.append(
            Question(
                id=question_id,
                text=entry.question,
                answer=answer,
                entities=dict(entry.q_entity),
                strategies=(),
                triples=(),
                claim=is_claim(entry.question),
                graph=graph,
            )
        )
    return dataset


def _gold(a_entity: bool | list[str]) -> GoldAnswer | None:
    """True/False, or the answer names each once (None when there is none)."""
    if isinstance(a_entity, bool):
        return a_entity
    names = tuple(dict.fromkeys(name.strip() for name in a_entity if name.strip()))
    return names or None
