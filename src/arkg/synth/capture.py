"""Pairs in the strategies' own prompt format: run the real strategy with a teacher as its model.

The teacher is a ScriptedModel function that replies with the gold decision at each call
(teacher forcing); every call's messages and the reply text are recorded as one pair. The
prompts are therefore whatever the strategy builds, today and after any change to its prompts.

    pairs, result = capture("ark", kg, ArkSettings(), query, ArkTeacher(route, reader))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from arkg.agents import Query, Result, RunOptions, build_strategy
from arkg.agents.teaching import NotFollowed, Pair, Reason, Teacher
from arkg.errors import ModelError
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import Completion, Message, OutputSpec, Sampling
from arkg.llm.scripted import ScriptedModel


@dataclass
class _Recorder:
    """The teacher's ScriptedModel, keeping the reply text of each call beside its messages."""

    model: ScriptedModel
    replies: list[tuple[tuple[Message, ...], str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.model.name

    def complete(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()) -> Completion[Any]:
        completion = self.model.complete(messages, output, sampling)
        self.replies.append((tuple(messages), completion.raw))
        return completion


def capture(strategy: str, kg: KnowledgeGraph, settings: BaseModel, query: Query, teacher: Teacher) -> tuple[list[Pair], Result]:
    """Run the registered strategy on the query with the teacher as its model; one pair per call."""
    recorder = _Recorder(ScriptedModel(teacher, name="teacher"))
    try:
        result = build_strategy(strategy, recorder, kg, settings).ask(query, RunOptions(on_event=teacher.observe))
    except ModelError as error:  # a gold reply the strategy's reply schema does not admit (a name too long, ...)
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the gold reply does not fit the strategy's reply format: {error}") from None
    pairs = [Pair(messages, reply, decision) for (messages, reply), decision in zip(recorder.replies, teacher.decisions)]
    return pairs, result
