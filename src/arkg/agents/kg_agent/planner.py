"""What the planner asks the model for one program line, and in which form it may answer.

    messages = planner_messages(memory, toolbox, query, constrained=True)
    output = line_output(options)          # constrained: Choice(options); free: LineReply

The messages are one user message, `render_memory(...)` of the knowledge memory: a deterministic
function of the query, the memory and the feedback on the failed attempt before, so that the
instruction data for the planner can be written in exactly the form the planner reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from arkg.agents.kg_agent.memory import KnowledgeMemory
from arkg.agents.kg_agent.render import render_memory
from arkg.agents.kg_agent.toolbox import Toolbox
from arkg.agents.strategy import Query
from arkg.llm.base import Choice, Message, OutputSpec

LINE_CHARS = 240  # the longest line free mode accepts; bounds the reply so decoding always ends
# Per call: a free-mode reply of LINE_CHARS, with room for names of several tokens a character (a Choice
# raises it to its longest option).
MAX_TOKENS = 320


class LineReply(BaseModel):
    """Free mode's reply: the line as the model writes it, checked by running it."""

    line: str = Field(max_length=LINE_CHARS, description="the next program line, as `vN = tool(arguments)`")


def planner_messages(
    memory: KnowledgeMemory,
    toolbox: Toolbox,
    query: Query,
    *,
    constrained: bool,
    feedback: tuple[str, str] | None = None,
) -> list[Message]:
    """The messages of one planner call; `feedback` is (the line that failed, the error) of the attempt before."""
    text = render_memory(
        memory, toolbox, constrained=constrained, feedback=feedback, yes_no=query.yes_no, claim=query.is_claim
    )
    return [Message(role="user", content=text)]


def line_output(options: Sequence[str] | None) -> OutputSpec:
    """A Choice among the valid next lines (constrained mode), or a free-text line (options None)."""
    return LineReply if options is None else Choice(options)
