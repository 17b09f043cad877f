"""How `arkg ask` shows a KG-Agent run: the topic entities, each line as it is tried (what it gave, or
why it could not run), why the program ended, and the program at the end.

KG and model text is shown through `one_line`, so no name or reply can move the cursor or recolour
the terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.kg_agent.trace import KgAgentTrace, LineAttempt, ProgramEnd, TopicEntities
from arkg.agents.strategy import Result
from arkg.cli.render.common import attempt_line, count, end_lines, event_renderer, trace_footer
from arkg.text import clip, one_line

SAMPLE_CHARS = 160
LINE_CHARS = 200  # a model's failed line can be any length; its error quotes it clipped too
_NOUNS = {"entities": ("entity", "entities"), "relations": ("relation", "relations")}


@event_renderer(TopicEntities)
def topic(event: TopicEntities) -> RenderableType:
    names = ", ".join(one_line(name) for name in event.entities) or "none found in the question"
    return Text.assemble(("  topic entities: ", "dim"), names)


@event_renderer(LineAttempt)
def line(event: LineAttempt) -> RenderableType:
    record = event.record
    written = record.call if record is not None else event.line  # a line that ran, as the program holds it
    text = attempt_line(event.step, event.attempt, "line", clip(written, LINE_CHARS), event.valid, event.error)
    if event.options:
        text.append(f"  (chosen among {count(event.options, 'option', 'options')})", "dim")
    if record is None:
        return text
    shown = ", ".join(one_line(value) for value in record.sample) + (", …" if record.size > len(record.sample) else "")
    nouns = _NOUNS.get(record.kind.value)
    result = Text.assemble(
        ("        → ", "dim"), count(record.size, *nouns) + (": " if shown else "") if nouns else "", clip(shown, SAMPLE_CHARS)
    )
    if record.triple_count:
        result.append(f"  ({count(record.triple_count, 'triple', 'triples')} read)", "dim")
    return Group(text, result)


@event_renderer(ProgramEnd)
def end(event: ProgramEnd) -> RenderableType:
    return end_lines(event.stop_reason, note=event.note)


@trace_footer(KgAgentTrace)
def program(result: Result) -> RenderableType:
    trace: KgAgentTrace = result.trace
    lines = [Text(f"program ({len(trace.program)} lines, {trace.invalid_attempts} invalid attempts):", "dim")]
    lines += [Text("  " + one_line(call)) for call in trace.program]
    return Group(*lines)
