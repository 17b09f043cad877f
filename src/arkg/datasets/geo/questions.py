"""Questions over the geography KG, with gold programs, answers and evidence known by construction.

The generator is deterministic for a seed. Each question is one JSON object per line:

    id           "<template>-<10 hex digits>", stable for the same question text
    question     the English question; it names its topic entities exactly as the KG does
    answer       true / false (answer_type "boolean"), an integer ("number"), or a list of entity
                 names or literal values ("entities", e.g. ["Berlin"] or ["3426354"])
    answer_type  "boolean" | "number" | "entities"
    program      the gold KG-Agent program, one canonical line per step (`v1 = ...`, ends with end)
    evidence     the triples that ground the answer ({head, relation, tail, props}), by the
                 provenance rules of the KG-Agent tools
    hops         the longest chain of graph-reading calls in the program (1 to 3)
    template     the template's name; kind: lookup | verification | comparison | count | superlative
    entities     the topic entities (the KG names the question mentions)
    split        "train" | "dev" | "test": from a hash of the id (80 / 10 / 10), so a question keeps
                 its split across seeds and regenerations

Questions are dropped when their answer is ambiguous in the data (ties, missing values, several
capitals) or an answer entity's name appears in the question text.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from arkg.datasets.geo.reasoning import GraphIndex
from arkg.datasets.geo.people_templates import PEOPLE_TEMPLATES
from arkg.datasets.geo.templates import TEMPLATES as GEOGRAPHY_TEMPLATES
from arkg.datasets.geo.templates import Draft, Template, reveals
from arkg.datasets.geo.toolbox_templates import TOOLBOX_TEMPLATES
from arkg.errors import ArkgError
from arkg.graph.loaders._common import utf8_lines
from arkg.graph.model import Triple

DEFAULT_PER_TEMPLATE = 120
# The people templates yield nothing over a KG built without people.
TEMPLATES: tuple[Template, ...] = GEOGRAPHY_TEMPLATES + TOOLBOX_TEMPLATES + PEOPLE_TEMPLATES


class GeoQuestion(BaseModel):
    id: str
    question: str
    answer: bool | int | list[str]
    answer_type: Literal["boolean", "number", "entities"]
    program: list[str]
    evidence: list[Triple]
    hops: int
    template: str
    kind: Literal["lookup", "verification", "comparison", "count", "superlative"]
    entities: list[str]
    split: Literal["train", "dev", "test"]


def _split(question_id: str) -> Literal["train", "dev", "test"]:
    bucket = int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 10
    return "test" if bucket == 0 else "dev" if bucket == 1 else "train"


def gold_question(draft: Draft, template: str, kind: str, question_id: str, split: str) -> GeoQuestion:
    """A draft in this file format, which every generator of gold questions writes (the geography,
    domain and KG questions) and `arkg eval` and `arkg synth` read."""
    answer_type = "boolean" if isinstance(draft.answer, bool) else "number" if isinstance(draft.answer, int) else "entities"
    return GeoQuestion(
        id=question_id,
        question=draft.question,
        answer=draft.answer,
        answer_type=answer_type,
        program=draft.program.lines(),
        evidence=draft.evidence,
        hops=draft.program.hops(),
        template=template,
        kind=kind,  # type: ignore[arg-type]
        entities=list(draft.entities),
        split=split,  # type: ignore[arg-type]
    )


def _question(template: Template, draft: Draft) -> GeoQuestion:
    question_id = f"{template.name}-{hashlib.sha256(draft.question.encode()).hexdigest()[:10]}"
    return gold_question(draft, template.name, template.kind, question_id, _split(question_id))


def generate_questions(
    triples: Iterable[Triple],
    *,
    seed: int = 0,
    per_template: int = DEFAULT_PER_TEMPLATE,
    templates: Iterable[Template] = TEMPLATES,
    progress: Callable[[str, int], None] | None = None,
) -> list[GeoQuestion]:
    """Up to `per_template` questions of each template over the KG made of `triples`."""
    index = GraphIndex(triples)
    questions: list[GeoQuestion] = []
    seen: set[str] = set()
    for number, template in enumerate(templates):
        rng = random.Random(f"{seed}:{template.name}")
        made = 0
        for draft in template.draft(index, rng):
            if made == per_template:
                break
            if draft.question in seen or reveals(draft):
                continue
            seen.add(draft.question)
            questions.append(_question(template, draft))
            made += 1
        if progress is not None:
            progress(template.name, made)
    return questions


def write_questions(questions: Iterable[GeoQuestion], path: str | Path) -> int:
    """Write JSON Lines (to a temporary name, then moved into place); returns how many."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.partial")
    count = 0
    try:
        with temporary.open("w", encoding="utf-8") as out:
            for question in questions:
                out.write(question.model_dump_json() + "\n")
                count += 1
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return count


def read_questions(path: str | Path) -> list[GeoQuestion]:
    """The questions of a file `write_questions` wrote; a file that cannot be read, or a line that is not
    UTF-8 or not a question, is an ArkgError naming it."""
    path = Path(path)
    questions = []
    try:
        for number, line in utf8_lines(path):
            try:
                questions.append(GeoQuestion.model_validate_json(line))
            except ValidationError as error:
                raise ArkgError(f"{path}, line {number}: not a geography question ({error.errors()[0]['msg']})") from None
    except OSError as error:
        raise ArkgError(f"{path}: cannot read the questions file ({error.strerror or error})") from None
    return questions
