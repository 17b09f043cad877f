"""The typed record of one `kg-agent` run: the topic entities, every attempt at a line (with the
executor's step record when it ran), and how the program ended.

Events are appended in the order they happen and handed to the live callback as they are; the
trace exports to JSON with `trace.model_dump_json()` and reads as `kg_agent.view` says.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, computed_field

from arkg.agents.kg_agent.record import StepRecord
from arkg.agents.kg_agent.settings import KgAgentSettings
from arkg.agents.kg_agent.tools import ORDERINGS, judgement
from arkg.agents.kg_agent.values import ValueKind
from arkg.agents.run import BUDGET_SPENT, StopReason as BaseStopReason
from arkg.agents.strategy import Answer
from arkg.agents.support import Computation
from arkg.agents.trace import Event, ModelCall, ModelEvent, Trace
from arkg.agents.triple_keys import identity
from arkg.graph.model import Triple

PURPOSE = "line"  # the ModelCall purpose of every planner call
# Judgements of one name holding another: they say something of the KG only where a fact links the two.
_MEMBERSHIP = ("contains", "overlaps")


class StopReason(BaseStopReason):
    DONE = "the program ended"
    MAX_STEPS = "the step limit (max_steps) was reached before the program ended"
    C_MAX = "c_max attempts in a row wrote no line that could run"
    NO_OPTIONS = "no valid next line was left to choose"
    BUDGET = BUDGET_SPENT


class TopicEntities(Event):
    kind: Literal["topic"] = "topic"
    entities: list[str]  # linked from the question, in the memory from the start


class LineAttempt(ModelEvent):
    """One model call for program line `step`: what it wrote and what running it gave.

    `record` is the executor's step record when the line ran; otherwise `error` says why not, and
    the next attempt is shown it as feedback."""

    kind: Literal["line"] = "line"
    step: int
    attempt: int
    options: int = 0  # valid lines offered (constrained mode); 0 in free mode
    line: str  # the line as taken from the reply
    record: StepRecord | None = None
    error: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return self.record is not None


class ProgramEnd(Event):
    """How the run ended: the answer read from the program's end value, and why it stopped."""

    kind: Literal["end"] = "end"
    stop_reason: str
    answer: Answer
    value_kind: ValueKind | None = None  # of the value end returned (None: the program did not end)
    value: list[str] = []  # its items as text (entities, or the one number / verdict)
    # Why the answer is not the end value as it stands (e.g. a yes/no question ended on entities).
    note: str | None = None


KgAgentEvent = Annotated[TopicEntities | LineAttempt | ProgramEnd, Field(discriminator="kind")]


class KgAgentTrace(Trace[KgAgentSettings, KgAgentEvent]):
    def shown_triples(self) -> list[Triple]:
        """The triples the planner was shown. The memory lists a step as `vN = call  # N values: a, b,
        ...`, not as fact lines: the triples behind a step count as shown once a later prompt lists its
        line. All of them, not only those of the values the listing spells out: the model saw the call
        and the size of its result, and a verdict over the whole set (e.g. that it does not contain X)
        was computed by the executor from every one of them, so every one is evidence the model was given."""
        attempts = [event for event in self.events if isinstance(event, LineAttempt)]
        shown: list[Triple] = []
        truncated_shown = truncated_unshown = False
        for index, event in enumerate(attempts):
            record = event.record
            if record is None:
                continue
            truncated = record.triple_count > len(record.triples)
            if any(record.call in later.call.shown for later in attempts[index + 1 :]):
                shown += record.triples
                truncated_shown |= truncated
            else:
                truncated_unshown |= truncated
        if truncated_shown and not truncated_unshown:
            # A record keeps at most ExecutorSettings.record_triples of a step's triples. A cited triple
            # that no record keeps was read by a truncated step, and every one of those was shown.
            kept = {identity(triple) for record in self.records for triple in record.triples}
            shown += [cited for cited in (item.as_triple() for item in self.cited_triples) if identity(cited) not in kept]
        return shown

    @property
    def records(self) -> list[StepRecord]:
        """The step records of the lines that ran, in order."""
        return [event.record for event in self.events if isinstance(event, LineAttempt) and event.record is not None]

    @property
    def program(self) -> list[str]:
        """The lines that ran, in order (canonical text)."""
        return [record.call for record in self.records]

    def linked_entities(self) -> list[str]:
        """The topic entities, then what get_candidate_entity found for names the program wrote."""
        topic = [name for event in self.events if isinstance(event, TopicEntities) for name in event.entities]
        found = [name for record in self.records if record.tool == "get_candidate_entity" for name in record.sample]
        return list(dict.fromkeys([*topic, *found]))

    def computations(self) -> list[Computation]:
        """The program's counts, judgements and argmax / argmin; each judgement re-run on its recorded
        operands with the executor's own comparison, so a verdict that does not follow from them shows."""
        found: list[Computation] = []
        for record in self.records:
            arguments = record.arguments
            if not arguments:  # a trace of an older version: the operands were not recorded
                continue
            if record.tool == "judge":
                op, held, wanted = arguments["op"][0], arguments["a"], arguments.get("b", [])
                output = record.sample[0] if record.sample else ""
                found.append(
                    Computation(
                        operation=f"judge {op}",
                        inputs=[*held, *wanted],
                        output=output,
                        agrees=str(judgement(held, op, wanted)) == output,
                        membership=op in _MEMBERSHIP,
                    )
                )
            elif record.tool == "count":
                found.append(Computation(operation="count", inputs=arguments["entities"], output=record.sample[0]))
            elif record.tool == "get_entity_by_constraint" and arguments["op"][0] in ORDERINGS:
                op = arguments["op"][0]
                found += [Computation(operation=op, inputs=arguments["entities"], output=name) for name in record.sample]
        return found

    @computed_field
    @property
    def invalid_attempts(self) -> int:
        return sum(1 for event in self.events if isinstance(event, LineAttempt) and not event.valid)
