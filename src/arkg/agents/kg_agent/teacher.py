"""KG-Agent's synthesis teacher and lesson: the teacher writes the gold program, one line per planner call.

In constrained mode the line must be among the valid next lines the planner offers (a gold line
naming an entity the planner did not link, or a relation its memory does not show, is not taught);
in free mode it is written as the planner's line reply. A line the executor rejects is never
followed by a retry: the run is abandoned and reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arkg.agents.kg_agent.planner import LineReply
from arkg.agents.kg_agent.trace import LineAttempt, StopReason
from arkg.agents.strategy import Result
from arkg.agents.teaching import Case, Lesson, NotFollowed, Pair, Reason, SynthOptions, Variant
from arkg.llm.base import Choice, Message, OutputSpec, Sampling
from arkg.llm.scripted import Reply

DECISION = "line"


@dataclass
class KgAgentTeacher:
    lines: Sequence[str]
    decisions: list[str] = field(default_factory=list)
    rejected: str | None = None  # the executor's error on the last line, if it could not run

    def observe(self, event: Any) -> None:
        if isinstance(event, LineAttempt) and not event.valid:
            self.rejected = event.error or "the line could not run"

    def __call__(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply:
        number = len(self.decisions) + 1
        if self.rejected is not None:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the executor rejected gold line {number - 1}: {self.rejected}")
        if number > len(self.lines):
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the planner asked for line {number} of a {len(self.lines)}-line program")
        line = self.lines[number - 1]
        if isinstance(output, Choice):
            if line not in output.options:
                raise NotFollowed(
                    Reason.NOT_FOLLOWED, f"line {number} `{line}` is not among the {len(output.options)} valid next lines offered"
                )
            reply: Reply = line
        elif issubclass(output, LineReply):
            reply = {"line": line}
        else:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the planner asked for {output.__name__}, not a program line")
        self.decisions.append(DECISION)
        return reply


class KgAgentLesson(Lesson):
    """The planner is led through the gold program (each mode), on gold cases with a program only: its
    answer is computed by the executor, not read by the model, so other facts would leave its lines
    the same."""

    answer_taught = False

    def takes(self, case: Case) -> bool:
        return case.variant is Variant.GOLD and bool(case.lines)

    def teacher(self, case: Case, options: SynthOptions) -> KgAgentTeacher:
        return KgAgentTeacher(case.lines)

    def after(self, result: Result, pairs: list[Pair]) -> None:
        # The executor ran every gold line (a rejected one stops the teacher), so the answer is the program's.
        if result.stop_reason != StopReason.DONE.value:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the planner stopped before the program's end: {result.stop_reason}")


LESSON = KgAgentLesson()
