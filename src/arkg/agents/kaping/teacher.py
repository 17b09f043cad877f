"""KAPING's synthesis teacher and lesson: the teacher answers its one call with what the facts shown settle, citing their keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arkg.agents.answers import CitedOpen, CitedYesNo
from arkg.agents.kaping.agent import FactsRetrieved
from arkg.agents.teaching import Case, Lesson, NoLabel, NotFollowed, Reader, Reason, SynthOptions, Unsettled, Variant, reply_answer
from arkg.agents.triple_keys import identity
from arkg.graph.model import Triple
from arkg.llm.base import Choice, Message, OutputSpec, Sampling
from arkg.llm.scripted import Reply


@dataclass
class KapingTeacher:
    reader: Reader
    yes_no: bool
    decisions: list[str] = field(default_factory=list)
    shown: dict[str, Triple] = field(default_factory=dict)

    def observe(self, event: Any) -> None:
        if isinstance(event, FactsRetrieved):
            self.shown = {record.key: record.as_triple() for record in event.shown}

    def __call__(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply:
        if isinstance(output, Choice) or not issubclass(output, (CitedYesNo, CitedOpen)):
            raise NotFollowed(Reason.NOT_FOLLOWED, f"KAPING asked for {output!r}, not a cited answer")
        if self.decisions:
            raise NotFollowed(Reason.NOT_FOLLOWED, "KAPING rejected the gold answer")
        try:
            reading = self.reader(list(self.shown.values()))
        except NoLabel as error:
            raise NotFollowed(Reason.NO_LABEL, str(error)) from None
        cited = {identity(triple) for triple in reading.cited}
        keys = [key for key, triple in self.shown.items() if identity(triple) in cited]
        self.decisions.append("answer")
        return {"cited_keys": keys, "explanation": reading.explanation, "answer": reply_answer(reading, self.yes_no)}


class KapingLesson(Lesson):
    """KAPING answers on the gold and contradicting KGs, and on the KG without the evidence; its one
    call is the same in every mode."""

    per_mode = False

    def takes(self, case: Case) -> bool:
        return case.variant is not Variant.UNSETTLED or case.unsettled is Unsettled.NO_EVIDENCE

    def teacher(self, case: Case, options: SynthOptions) -> KapingTeacher:
        return KapingTeacher(case.reader, case.yes_no)


LESSON = KapingLesson()
