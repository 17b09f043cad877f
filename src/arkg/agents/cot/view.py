"""How a chain-of-thought run reads: one model call and no KG, so its reasoning is shown under the
answer (and not as an event, which would say it twice)."""

from __future__ import annotations

from arkg.agents.cot.agent import CotTrace, Reasoned, Stopped
from arkg.agents.trace import Trace
from arkg.agents.view import Block, View, end_block, line
from arkg.text import one_line


def reasoned(event: Reasoned) -> Block:
    return Block.of(line(("  reasoned in one call", "dim")))


def stopped(event: Stopped) -> Block:
    return end_block(event.reason, note=event.note)


def reasoning(trace: Trace) -> Block | None:
    if not isinstance(trace, CotTrace):
        return None
    said = [event.reasoning for event in trace.events if isinstance(event, Reasoned)]
    return Block.of(line(("reasoning: ", "dim"), (one_line(" ".join(said)) or "none given", "italic")))


VIEW = View(blocks={Reasoned: reasoned, Stopped: stopped}, footer=reasoning)
