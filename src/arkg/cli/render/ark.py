"""How `arkg ask` shows an ARK run: one block per event, as it happens, and the node path at the end.

KG and model text is shown through `one_line`, so no name or reply can move the cursor or recolour
the terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.ark.trace import (
    AnchorAttempt,
    ArkTrace,
    Cleanup,
    FinalAnswer,
    ReasoningAttempt,
    RelationAttempt,
    RelationsRetrieved,
    TriplesRetrieved,
)
from arkg.agents.triple_keys import fact_line
from arkg.agents.strategy import Result
from arkg.cli.render.common import attempt_line, end_lines, event_renderer, prefix, trace_footer
from arkg.text import one_line


@event_renderer(AnchorAttempt)
def anchor(event: AnchorAttempt) -> RenderableType:
    return attempt_line(event.step, event.attempt, "anchor", event.proposed, event.valid, event.feedback)


@event_renderer(RelationsRetrieved)
def relations(event: RelationsRetrieved) -> RenderableType:
    more = f" (+{event.not_shown} not shown)" if event.not_shown else ""
    if event.explored:
        more += f" (explored already: {', '.join(event.explored)})"
    return Text.assemble(
        prefix(event.step), ("relations of ", "dim"), (one_line(event.anchor), "bold"), ": ", ", ".join(event.offered), more
    )


@event_renderer(RelationAttempt)
def relation(event: RelationAttempt) -> RenderableType:
    if event.outcome == "empty":
        return Text.assemble(prefix(event.step, event.attempt), ("relation: none, pick another anchor", "yellow"))
    return attempt_line(event.step, event.attempt, "relation", event.proposed, event.outcome == "valid", event.feedback)


@event_renderer(TriplesRetrieved)
def triples(event: TriplesRetrieved) -> RenderableType:
    heading = f"{one_line(event.anchor)} / {event.relation}"
    lines = [Text.assemble(prefix(event.step), ("facts for ", "dim"), (heading, "bold"))]
    lines += [Text(f"      {fact_line(record.key, record.as_triple())}") for record in event.triples]
    if event.not_shown:
        lines.append(Text(f"      ({event.not_shown} more not shown)", "dim"))
    return Group(*lines)


@event_renderer(ReasoningAttempt)
def reasoning(event: ReasoningAttempt) -> RenderableType:
    status = ("✓", "green") if event.valid else ("✗ invalid keys " + ", ".join(event.invalid_keys), "red")
    flag = "continue" if event.continue_exploring else "stop"
    return Text.assemble(
        prefix(event.step, event.attempt),
        ("cites ", "dim"),
        ", ".join(event.cited_keys) or "nothing",
        " ",
        status,
        f" [{flag}] ",
        (one_line(event.implication), "italic"),
    )


@event_renderer(Cleanup)
def cleanup(event: Cleanup) -> RenderableType:
    return Text.assemble(prefix(event.step), (f"summary of {event.step} step(s) kept; context reset", "dim"))


@event_renderer(FinalAnswer)
def final(event: FinalAnswer) -> RenderableType:
    computed = [f"computed: {line.text}" for line in event.computed]
    return end_lines(event.stop_reason.value, event.explanation, *computed, note=event.note)


@trace_footer(ArkTrace)
def nodes(result: Result) -> RenderableType:
    trace: ArkTrace = result.trace
    return Text(
        "nodes: " + " → ".join(str(int(node)) for node in trace.nodes) + f"; {trace.invalid_attempts} invalid attempts",
        "dim",
    )
