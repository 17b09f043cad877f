"""The knowledge memory: question, topic entities, current KG information, and the program so far.

The executor is the only writer: a line that fails leaves the memory as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arkg.agents.kg_agent.record import StepRecord
from arkg.agents.kg_agent.values import Value
from arkg.programs import Call, Names, ToolError, VarRef


@dataclass(frozen=True)
class FocusInfo:
    """Current KG information about one entity set: a variable or a topic entity (as `["name"]`),
    with the relations on its entities' edges, most relevant to the question first (capped)."""

    source: VarRef | Names
    size: int
    sample: tuple[str, ...]
    out: tuple[str, ...]
    incoming: tuple[str, ...]


@dataclass(frozen=True)
class ProgramStep:
    call: Call
    value: Value
    record: StepRecord
    ends: bool = False  # the call was to a tool that ends the program


@dataclass
class KnowledgeMemory:
    question: str
    topic_entities: tuple[str, ...] = ()
    steps: list[ProgramStep] = field(default_factory=list)
    kg_info: tuple[FocusInfo, ...] = ()

    @property
    def next_variable(self) -> str:
        return f"v{len(self.steps) + 1}"

    @property
    def variables(self) -> dict[str, Value]:
        return {step.call.variable: step.value for step in self.steps}

    def value(self, name: str) -> Value:
        for step in self.steps:
            if step.call.variable == name:
                return step.value
        bound = f"v1 to v{len(self.steps)}" if self.steps else "none yet"
        raise ToolError(f"there is no variable {name} (variables bound so far: {bound})")

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1].ends

    @property
    def answer(self) -> Value | None:
        """The value the program ended with, or None while it runs."""
        return self.steps[-1].value if self.finished else None

    @property
    def records(self) -> list[StepRecord]:
        return [step.record for step in self.steps]
