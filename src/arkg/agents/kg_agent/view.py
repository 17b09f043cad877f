"""How a KG-Agent run reads: the topic entities, each line as it is tried (what it gave, or why it
could not run), why the program ended, and the program at the end."""

from __future__ import annotations

from arkg.agents.kg_agent.trace import KgAgentTrace, LineAttempt, ProgramEnd, TopicEntities
from arkg.agents.trace import Trace
from arkg.agents.view import Block, View, attempt_line, count, end_block, line
from arkg.text import clip, one_line

SAMPLE_CHARS = 160
LINE_CHARS = 200  # a model's failed line can be any length; its error quotes it clipped too
_NOUNS = {"entities": ("entity", "entities"), "relations": ("relation", "relations")}


def topic(event: TopicEntities) -> Block:
    names = ", ".join(one_line(name) for name in event.entities) or "none found in the question"
    return Block.of(line(("  topic entities: ", "dim"), names))


def attempt(event: LineAttempt) -> Block:
    record = event.record
    written = record.call if record is not None else event.line  # a line that ran, as the program holds it
    tried = attempt_line(event.step, event.attempt, "line", clip(written, LINE_CHARS), event.valid, event.error)
    if event.options:
        tried += line((f"  (chosen among {count(event.options, 'option', 'options')})", "dim"))
    if record is None:
        return Block.of(tried)
    shown = ", ".join(one_line(value) for value in record.sample) + (", …" if record.size > len(record.sample) else "")
    nouns = _NOUNS.get(record.kind.value)
    gave = line(("        → ", "dim"), count(record.size, *nouns) + (": " if shown else "") if nouns else "", clip(shown, SAMPLE_CHARS))
    if record.triple_count:
        gave += line((f"  ({count(record.triple_count, 'triple', 'triples')} read)", "dim"))
    return Block.of(tried, gave)


def end(event: ProgramEnd) -> Block:
    return end_block(event.stop_reason, note=event.note)


def program(trace: Trace) -> Block | None:
    if not isinstance(trace, KgAgentTrace):
        return None
    lines = [line((f"program ({len(trace.program)} lines, {trace.invalid_attempts} invalid attempts):", "dim"))]
    lines += [line("  " + one_line(call)) for call in trace.program]
    return Block(tuple(lines))


VIEW = View(blocks={TopicEntities: topic, LineAttempt: attempt, ProgramEnd: end}, footer=program)
