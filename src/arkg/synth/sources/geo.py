"""Geography chains: each generated question's gold program and evidence, checked against the store.

The evidence triples are the chain; they were computed from the same KG, so each must be found
exactly (a question file generated from another build of the KG shows up as ungrounded facts).
"""

from __future__ import annotations

from pathlib import Path

from arkg.agents.teaching import Reason
from arkg.datasets.geo import GeoQuestion, read_questions
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.chains import Chain, ChainStep, GroundedFact, Unusable
from arkg.synth.grounding import Ungrounded, ground_fact
from arkg.synth.sources.base import Source

NAME = "geo"


def geo_source(db: str | Path, questions: str | Path, name: str = NAME) -> Source:
    """The chains of a question file with gold programs (`arkg geo questions`, `arkg questions`) over the
    store it was generated from; `name` is the source's name in the pairs and their provenance."""
    kg = SQLiteGraph(db, create=False)
    try:
        read = read_questions(questions)
    except BaseException:
        kg.close()
        raise
    source = Source(name, kg, files=(Path(questions),), kg_file=Path(db))
    for question in read:
        try:
            source.chains.append(question_chain(kg, question, name))
        except Ungrounded as error:
            source.unusable.append(Unusable(name, question.id, "chain", Reason.UNGROUNDED, str(error), question.split))
    return source


def question_chain(kg: SQLiteGraph, question: GeoQuestion, source: str = NAME) -> Chain:
    """A generated question's chain: its evidence, which must be in the KG exactly, grouped by hop."""
    groups: dict[tuple[str, str], list[GroundedFact]] = {}
    for triple in question.evidence:
        fact = ground_fact(kg, triple)
        if not fact.exact:
            raise Ungrounded(f"{'; '.join(fact.notes)}: the KG differs from the one the questions were made from")
        groups.setdefault((triple.head, triple.relation), []).append(fact)
    answer = tuple(question.answer) if isinstance(question.answer, list) else question.answer
    return Chain(
        source=source,
        id=question.id,
        question=question.question,
        answer=answer,
        steps=tuple(ChainStep(tuple(facts)) for facts in groups.values()),
        topic_entities=tuple(question.entities),
        program=tuple(question.program),
        split=question.split,
    )
