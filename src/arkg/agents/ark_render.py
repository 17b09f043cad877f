"""Readable rich renderings of an ARK trace: one block per event (also used live), or the whole run.

KG and model text is shown through `one_line`, so no name or reply can move the cursor or recolour
the terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.ark_trace import (
    AnchorAttempt,
    ArkTrace,
    Cleanup,
    Event,
    FinalAnswer,
    ReasoningAttempt,
    RelationAttempt,
    RelationsRetrieved,
    TriplesRetrieved,
)
from arkg.agents.base import Answer
from arkg.agents.triple_keys import fact_line
from arkg.text import one_line


def describe(event: Event) -> RenderableType:
    """One event as a few lines of text, prefixed by its step and attempt."""
    if isinstance(event, AnchorAttempt):
        return _attempt(event.step, event.attempt, "anchor", event.proposed, event.valid, event.feedback)
    if isinstance(event, RelationsRetrieved):
        more = f" (+{event.not_shown} not shown)" if event.not_shown else ""
        if event.explored:
            more += f" (explored already: {', '.join(event.explored)})"
        return Text.assemble(
            _prefix(event.step), ("relations of ", "dim"), (one_line(event.anchor), "bold"), ": ", ", ".join(event.offered), more
        )
    if isinstance(event, RelationAttempt):
        if event.outcome == "empty":
            return Text.assemble(_prefix(event.step, event.attempt), ("relation: none, pick another anchor", "yellow"))
        return _attempt(
            event.step, event.attempt, "relation", event.proposed, event.outcome == "valid", event.feedback
        )
    if isinstance(event, TriplesRetrieved):
        heading = f"{one_line(event.anchor)} / {event.relation}"
        lines = [Text.assemble(_prefix(event.step), ("facts for ", "dim"), (heading, "bold"))]
        lines += [Text(f"      {fact_line(record.key, record.as_triple())}") for record in event.triples]
        if event.not_shown:
            lines.append(Text(f"      ({event.not_shown} more not shown)", "dim"))
        return Group(*lines)
    if isinstance(event, ReasoningAttempt):
        status = ("✓", "green") if event.valid else ("✗ invalid keys " + ", ".join(event.invalid_keys), "red")
        flag = "continue" if event.continue_exploring else "stop"
        return Text.assemble(
            _prefix(event.step, event.attempt),
            ("cites ", "dim"),
            ", ".join(event.cited_keys) or "nothing",
            " ",
            status,
            f" [{flag}] ",
            (one_line(event.implication), "italic"),
        )
    if isinstance(event, Cleanup):
        return Text.assemble(_prefix(event.step), (f"summary of {event.step} step(s) kept; context reset", "dim"))
    assert isinstance(event, FinalAnswer)
    lines = [
        Text.assemble(("answer: ", "bold"), (_answer_text(event.answer), "bold cyan"), ("  (" + event.stop_reason.value + ")", "dim")),
        Text(one_line(event.explanation), "italic"),
    ]
    if event.note:
        lines.append(Text(f"note: {event.note}", "yellow"))
    return Group(*lines)


def render_trace(trace: ArkTrace) -> Group:
    """The whole run: the question, every event, then the footer."""
    return Group(
        Text.assemble(("question: ", "bold"), one_line(trace.question)),
        *(describe(event) for event in trace.events),
        footer(trace),
    )


def footer(trace: ArkTrace) -> Group:
    """The node path of the run and what it cost."""
    usage = trace.usage
    return Group(
        Text("nodes: " + " → ".join(str(int(node)) for node in trace.nodes), "dim"),
        Text(
            f"{usage.calls} model calls ({usage.cached_calls} cached), {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens, {trace.invalid_attempts} invalid attempts, "
            f"{usage.latency_s:.1f} s in the model",
            "dim",
        ),
    )


def _prefix(step: int, attempt: int | None = None) -> Text:
    return Text(f"  {step}.{attempt} " if attempt is not None else f"  {step}   ", "dim")


def _attempt(step: int, attempt: int, what: str, proposed: str, valid: bool, feedback: str | None) -> Text:
    text = Text.assemble(_prefix(step, attempt), (f"{what}: ", "dim"), (one_line(proposed) or '""', "bold"))
    text.append(" ✓" if valid else " ✗", "green" if valid else "red")
    if feedback:
        text.append(f"  {one_line(feedback)}", "yellow")
    return text


def _answer_text(answer: Answer) -> str:
    return "None (not settled by the knowledge graph)" if answer is None else str(answer)
