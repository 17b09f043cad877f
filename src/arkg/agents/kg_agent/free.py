"""Free mode: the model writes the line itself; what it wrote is cut to one call and run, and an
error comes back as feedback for the next attempt (the planner bounds the attempts)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arkg.agents.kg_agent.executor import Executor
from arkg.agents.kg_agent.memory import KnowledgeMemory
from arkg.agents.kg_agent.record import StepRecord
from arkg.programs import ToolError

_FENCE = re.compile(r"^\s*```[\w-]*\s*$")


@dataclass(frozen=True)
class Attempt:
    """The outcome of one free-mode attempt: a record, or the line tried and the error to show."""

    line: str
    record: StepRecord | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.record is not None


def extract_line(reply: str, variable: str) -> str:
    """The line of a model reply that binds `variable` (code fences and chatter around it ignored);
    failing that, the reply's first non-empty line, so that its error says what went wrong."""
    lines = [line.strip().strip("`").strip() for line in reply.splitlines() if not _FENCE.match(line)]
    lines = [line for line in lines if line]
    binding = re.compile(rf"{re.escape(variable)}\s*=")
    for line in lines:
        if binding.match(line):
            return line
    return lines[0] if lines else ""


def attempt(executor: Executor, memory: KnowledgeMemory, reply: str) -> Attempt:
    """Run the line a model wrote; on a ToolError the memory is unchanged and `error` says why."""
    line = extract_line(reply, memory.next_variable)
    if not line:
        return Attempt(line, error=f"the reply held no line; write `{memory.next_variable} = tool(arguments)`")
    try:
        return Attempt(line, record=executor.execute(memory, line))
    except ToolError as error:
        return Attempt(line, error=str(error))
