"""arkg's geography questions (arkg.datasets.geo) as an evaluation data set.

Each question carries a gold answer (True/False, a number, or entity names), its gold evidence and
its topic entities; its template is the tag reports break accuracy down by. By default only the
held-out `test` split is evaluated (`splits`), so that a model tuned on the other splits is never
scored on what it saw. Questions come one template after another in turn, so that the first N
(`arkg eval --limit N`) are a balanced sample of every template.
"""

from __future__ import annotations

from pathlib import Path

from arkg.datasets.geo.questions import GeoQuestion, read_questions
from arkg.eval.dataset import Dataset, Question

EVALUATION_SPLITS = ("test",)


def load_geo(path: str | Path, splits: tuple[str, ...] = EVALUATION_SPLITS) -> Dataset:
    path = Path(path)
    questions = read_questions(path)
    dataset = Dataset(path=path, entries=len(questions))
    for question in _interleaved([question for question in questions if question.split in splits]):
        answer = tuple(question.answer) if isinstance(question.answer, list) else question.answer
        dataset.questions.append(
            Question(
                id=question.id,
                text=question.question,
                answer=answer,
                entities=dict.fromkeys(question.entities, ""),
                strategies=(question.template, f"{question.hops} hop{'s' if question.hops > 1 else ''}"),
                triples=tuple(question.evidence),
            )
        )
    unique = {(t.head, t.relation, t.tail): t for question in dataset.questions for t in question.triples}
    dataset.triples = list(unique.values())
    return dataset


def _interleaved(questions: list[GeoQuestion]) -> list[GeoQuestion]:
    """Round-robin over templates (each in file order)."""
    by_template: dict[str, list[GeoQuestion]] = {}
    for question in questions:
        by_template.setdefault(question.template, []).append(question)
    queues = list(by_template.values())
    return [queue[index] for index in range(max(map(len, queues), default=0)) for queue in queues if index < len(queue)]
