"""CoLoTa chains: each entry's `Reasoning Steps`, whose `facts used in this step` are the chain.

The KG is the one `arkg eval` uses (the union of every entry's gold triples, arkg.eval.colota), and
the facts of the steps are parsed with the same rules and the same file-wide evidence as the
`KG Triples` field, so a fact copied from that field grounds exactly. Facts written differently
(a qualifier left out, a misspelt name) ground by close match; a fact the KG lacks makes the
question unusable, with the fact named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arkg.agents.teaching import Reason
from arkg.eval.colota import TRIPLES_FIELD, Effect, Question, build_graph, load_dataset
from arkg.eval.triples_text import ItemError, Resolver, split_items
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.chains import Chain, ChainStep, GroundedFact, Unusable
from arkg.synth.grounding import Ungrounded, ground_fact, ground_name
from arkg.synth.sources.base import Source

NAME = "colota"
STEPS_FIELD = "Reasoning Steps"
FACTS_FIELD = "facts used in this step"


class _Unusable(Exception):
    def __init__(self, reason: Reason, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(detail)


def colota_source(path: str | Path) -> Source:
    """The chains of a CoLoTa-format file over the KG built from its gold triples."""
    path = Path(path)
    dataset = load_dataset(path)  # a LoadError names the file and entry when it is unreadable
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    resolver = Resolver(
        (item for entry in entries if isinstance(entry.get(TRIPLES_FIELD), str) for item in split_items(entry[TRIPLES_FIELD]).items),
        (name for entry in entries if isinstance(entry.get("KG Entities"), dict) for name in entry["KG Entities"]),
    )
    kg = build_graph(dataset)
    source = Source(NAME, kg, files=(path,))
    questions = {question.id: question for question in dataset.questions}
    skipped = {problem.id: problem for problem in dataset.problems if problem.effect is Effect.QUESTION_SKIPPED}
    for index, entry in enumerate(entries):
        entry_id = str(entry.get("id") or f"entry #{index + 1}")
        question = questions.get(entry_id)
        if question is None:
            problem = skipped.get(entry_id)
            detail = f"[{problem.field}] {problem.reason}" if problem else "not loaded"
            source.unusable.append(Unusable(NAME, entry_id, "chain", Reason.NOT_LOADED, detail))
            continue
        try:
            source.chains.append(_chain(kg, resolver, question, entry))
        except _Unusable as failure:
            source.unusable.append(Unusable(NAME, entry_id, "chain", failure.reason, failure.detail))
    return source


def _chain(kg: SQLiteGraph, resolver: Resolver, question: Question, entry: dict[str, Any]) -> Chain:
    steps_field = entry.get(STEPS_FIELD)
    if not isinstance(steps_field, list) or not all(isinstance(step, dict) for step in steps_field):
        raise _Unusable(Reason.NO_FACTS, f"{STEPS_FIELD!r} is not a list of steps")
    steps = []
    for number, step in enumerate(steps_field, start=1):
        stated = step.get(FACTS_FIELD)
        if stated is None:
            continue
        if not isinstance(stated, str):
            raise _Unusable(Reason.UNPARSED_FACT, f"step {number}: {FACTS_FIELD!r} is not text")
        facts = _facts(kg, resolver, stated, question, number)
        if facts:
            steps.append(ChainStep(facts, str(step.get("Step", "")).strip()))
    if not steps:
        raise _Unusable(Reason.NO_FACTS, f"none of the {len(steps_field)} steps states a fact")
    last = steps_field[-1] if steps_field else {}
    return Chain(
        source=NAME,
        id=question.id,
        question=question.text,
        answer=question.answer,
        steps=tuple(steps),
        topic_entities=_topic_entities(kg, question),
        conclusion=str(last.get("Step", "")).strip(),
    )


def _facts(kg: SQLiteGraph, resolver: Resolver, text: str, question: Question, number: int) -> tuple[GroundedFact, ...]:
    split = split_items(text)
    if split.errors:
        raise _Unusable(Reason.UNPARSED_FACT, f"step {number}: {split.errors[0]}")
    facts = []
    for item in split.items:
        try:
            stated = resolver.resolve(item, question.entities)
        except ItemError as error:
            raise _Unusable(Reason.UNPARSED_FACT, f"step {number}: ({item.text}): {error}") from None
        for triple in stated:
            try:
                facts.append(ground_fact(kg, triple))
            except Ungrounded as error:
                raise _Unusable(Reason.UNGROUNDED, f"step {number}: {error}") from None
    return tuple(facts)


def _topic_entities(kg: SQLiteGraph, question: Question) -> tuple[str, ...]:
    """The KG names of the entry's `KG Entities` (close spellings accepted; absent ones left out)."""
    names = []
    for name in question.entities:
        try:
            names.append(ground_name(kg, name)[0])
        except Ungrounded:
            continue
    return tuple(dict.fromkeys(names))
