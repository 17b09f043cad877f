"""How the CLI draws what a strategy reports: one renderer per event type, one footer per trace type.

Strategies know nothing of the screen; each strategy's module here registers renderers for its own
events. An event type without one is still shown, generically (its kind and fields on one line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.strategy import Answer, Result
from arkg.text import clip, one_line

T = TypeVar("T")
Renderer = Callable[[Any], RenderableType]

_EVENTS: dict[type, Renderer] = {}
_FOOTERS: dict[type, Renderer] = {}


def event_renderer(*types: type) -> Callable[[Callable[[T], RenderableType]], Callable[[T], RenderableType]]:
    """Decorator: render events of these types with the decorated function."""

    def add(function: Callable[[T], RenderableType]) -> Callable[[T], RenderableType]:
        _EVENTS.update(dict.fromkeys(types, function))
        return function

    return add


def trace_footer(*types: type) -> Callable[[Callable[[Result], RenderableType]], Callable[[Result], RenderableType]]:
    """Decorator: extra lines under a finished run whose trace has one of these types (given the Result)."""

    def add(function: Callable[[Result], RenderableType]) -> Callable[[Result], RenderableType]:
        _FOOTERS.update(dict.fromkeys(types, function))
        return function

    return add


def describe(event: Any) -> RenderableType:
    """One event as a few lines of text."""
    for kind in type(event).__mro__:
        if kind in _EVENTS:
            return _EVENTS[kind](event)
    fields = event.model_dump(mode="json", exclude={"kind"}) if isinstance(event, BaseModel) else event
    label = getattr(event, "kind", type(event).__name__)
    return Text.assemble(("  " + str(label) + " ", "dim"), one_line(clip(str(fields), 300)))


def footer(result: Result) -> RenderableType:
    """The answer and its basis, then the strategy's own lines and what the run cost and why it stopped.

    The answer is shown here and by no event: the result's answer is the one that counts (an abstention
    policy may overrule what the strategy's last event said), and so every strategy shows it exactly once.
    """
    usage = result.usage
    lines: list[RenderableType] = [answer_line(result.answer, result.claim) + basis_text(result)]
    extra = _FOOTERS.get(type(result.trace))
    if extra is not None:
        lines.append(extra(result))
    lines.append(
        Text(
            f"{result.strategy}: {usage.total_calls} model calls ({usage.cached_calls} cached), {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens, {usage.latency_s:.1f} s in the model; "
            f"stopped because {result.stop_reason}",
            "dim",
        )
    )
    return Group(*lines)


def answer_line(answer: Answer, claim: bool = False) -> Text:
    if answer is None:
        shown = "None (not settled by the knowledge graph)"
    elif isinstance(answer, bool) and claim:
        shown = "True (the claim holds)" if answer else "False (the claim does not hold)"
    else:
        shown = one_line(str(answer))
    return Text.assemble(("answer: ", "bold"), (shown, "bold cyan"))


def basis_text(result: Result) -> Text:
    """What the answer rests on, as `--json` names it, with how many facts and rules that is."""
    text = Text.assemble(("  basis: ", "dim"), (result.basis, "bold"))
    if result.answer is not None:
        facts = count(len(result.cited_triples), "cited fact", "cited facts")
        text.append(f" ({facts}, {count(len(result.commonsense), 'rule', 'rules')})", "dim")
    return text


def count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def end_lines(stop_reason: str, *said: str, note: str | None = None) -> RenderableType:
    """A strategy's last event: why it ended, what it said on the way out, and its note (the footer shows the answer)."""
    lines = [Text.assemble(("  end: ", "dim"), one_line(stop_reason))]
    lines += [Text(f"      {one_line(line)}", "italic") for line in said if line]
    if note:
        lines.append(Text(f"      note: {one_line(note)}", "yellow"))
    return Group(*lines)


def prefix(step: int, attempt: int | None = None) -> Text:
    return Text(f"  {step}.{attempt} " if attempt is not None else f"  {step}   ", "dim")


def attempt_line(step: int, attempt: int, what: str, proposed: str, valid: bool, feedback: str | None) -> Text:
    text = Text.assemble(prefix(step, attempt), (f"{what}: ", "dim"), (one_line(proposed) or '""', "bold"))
    text.append(" ✓" if valid else " ✗", "green" if valid else "red")
    if feedback:
        text.append(f"  {one_line(feedback)}", "yellow")
    return text
