"""Gold names of a data set that holds no KG, checked against the KG the user gave (--db / --kb).

A question whose answer or topic entity is not in the KG cannot be answered from it: a note says so
before the run, rather than a wrong answer after it. A format whose writer mangled names mends them
first (Dataset.repair_names).
"""

from __future__ import annotations

from dataclasses import replace

from arkg.eval.dataset import Dataset, Effect, Problem, Question
from arkg.graph.model import KnowledgeGraph


_HOW_TO_WRITE = {
    "entities": "",
    "answer": (
        "; write a name as the KG spells it (`arkg kg show`), a yes/no answer as true/false or yes/no,"
        " a number as a number"
    ),
}


def check_names(dataset: Dataset, questions: list[Question], kg: KnowledgeGraph) -> list[Question]:
    """`questions` with their gold names mended; notes in `dataset.problems` for names the KG lacks."""
    checked = []
    for question in questions:
        answer = question.answer
        if isinstance(answer, tuple) and dataset.repair_names is not None:
            mended = dataset.repair_names(answer, kg)
            if mended != answer:
                reason = f"answer {' | '.join(answer)} read as {' | '.join(mended)}, names of the KG"
                dataset.problems.append(Problem(question.id, "answer", reason, Effect.NOTE))
                question = replace(question, answer=mended)
        names = [("entities", name) for name in question.entities]
        names += [("answer", name) for name in question.answer] if isinstance(question.answer, tuple) else []
        dataset.problems += [
            Problem(question.id, field, f"{name!r} is not an entity of the KG{_HOW_TO_WRITE[field]}", Effect.NOTE)
            for field, name in names
            if not kg.has_entity(name)
        ]
        checked.append(question)
    mended = {question.id: question for question in checked}
    dataset.questions = [mended.get(question.id, question) for question in dataset.questions]
    return checked
