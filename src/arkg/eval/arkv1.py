"""The ARK-V1 authors' evaluation data: one question per JSON line, each with its own KG.

    {"id": "S2", "question": "Is Yui Yuigahama's pet a corgi?", "q_entity": {"Yui Yuigahama": "Q97644811"},
     "a_entity": false, "graph": [["Yui Yuigahama", "Sablé", {"relation": "has pet"}], ...]}

`graph` is the question's 1-hop Wikidata neighbourhood, frozen in time, in the ARK-V1 edge format
(the same as `arkg kg load` reads). A single such object in a `.json` file (as in the ARK-V1
repository's example) is a data set of one question. The file holds no gold evidence, so evidence
metrics are not available for it; everything else is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, StrictBool, ValidationError

from arkg.agents.question import is_claim
from arkg.errors import LoadError
from arkg.eval.dataset import Dataset, Effect, Problem, Question
from arkg.graph.loaders._common import parse_json, utf8_lines, utf8_text
from arkg.graph.loaders.ark_json import edge_records
from arkg.graph.model import Triple


class _Entry(BaseModel):
    id: str | None = None
    question: str = Field(min_length=1)
    q_entity: dict[str, str] = {}
    a_entity: StrictBool
    graph: list[Any]


def is_arkv1_entry(value: object) -> bool:
    return isinstance(value, dict) and "graph" in value and "question" in value and "a_entity" in value


def load_arkv1(path: str | Path) -> Dataset:
    """Read an ARK-V1 per-question file (.jsonl, or one object in .json); bad lines are errors naming them."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        entries = [(None, parse_json(utf8_text(path), path))]
    else:
        entries = [(number, parse_json(text, path)) for number, text in utf8_lines(path) if text.strip()]
    dataset = Dataset(path=path, entries=len(entries))
    seen: set[str] = set()
    for index, (line, value) in enumerate(entries, 1):
        where = f"line {line}" if line is not None else None
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
        dataset.questions.append(
            Question(
                id=question_id,
                text=entry.question,
                answer=entry.a_entity,
                entities=dict(entry.q_entity),
                strategies=(),
                triples=(),
                claim=is_claim(entry.question),
                graph=graph,
            )
        )
    return dataset
