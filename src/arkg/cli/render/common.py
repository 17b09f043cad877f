"""How the terminal draws a run: a strategy's view says how its events read (arkg.agents.view), and
this module draws those blocks with rich, then the footer every run shares.

Strategies know nothing of the screen; the page shows the same blocks as text, so both speak alike.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.strategy import Result, strategy_info
from arkg.agents.view import Block, View, answer_block

# The neutral styles of a view, as the terminal shows them.
_RICH_STYLES = {"good": "green", "bad": "red", "warn": "yellow", "answer": "bold cyan"}
GENERIC = View()


def to_rich(block: Block) -> RenderableType:
    lines = [Text.assemble(*((span.text, _RICH_STYLES.get(span.style, span.style)) for span in spans)) for spans in block.lines]
    return lines[0] if len(lines) == 1 else Group(*lines)


def describe(event: Any, view: View = GENERIC) -> RenderableType:
    """One event as a few lines of text, as the strategy's view reads it."""
    return to_rich(view.block(event))


def footer(result: Result, verbose: bool = False) -> RenderableType:
    """The answer, its basis and why its facts do not support it (if they do not), then the strategy's own
    lines (those that are detail only when `verbose`), and what the run cost and why it stopped.

    The answer is shown here and by no event: the result's answer is the one that counts (an abstention
    policy may overrule what the strategy's last event said), and so every strategy shows it exactly once.
    """
    usage = result.usage
    lines: list[RenderableType] = [to_rich(answer_block(result))]
    view = strategy_info(result.strategy).view
    trace = result.trace
    samples = getattr(trace, "samples", None)  # an abstention policy's trace around the strategy's own
    if samples and len(samples) == 1:
        trace = samples[0].trace
    extra = view.footer_block(trace) if verbose or not view.footer_is_detail else None
    if extra is not None:
        lines.append(to_rich(extra))
    lines.append(
        Text(
            f"{result.strategy}: {usage.total_calls} model calls ({usage.cached_calls} cached), {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens, {usage.latency_s:.1f} s in the model; "
            f"stopped because {result.stop_reason}",
            "dim",
        )
    )
    return Group(*lines)

