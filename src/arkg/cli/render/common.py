"""How the terminal draws a run: a strategy's view says how its events read (arkg.agents.view), and
this module draws those blocks with rich, then the footer every run shares.

Strategies know nothing of the screen; the page shows the same blocks as text, so both speak alike.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.strategy import Answer, Result, strategy_info
from arkg.agents.view import Block, View, count
from arkg.text import one_line

# The neutral styles of a view, as the terminal shows them.
_RICH_STYLES = {"good": "green", "bad": "red", "warn": "yellow"}
GENERIC = View()


def to_rich(block: Block) -> RenderableType:
    lines = [Text.assemble(*((span.text, _RICH_STYLES.get(span.style, span.style)) for span in spans)) for spans in block.lines]
    return lines[0] if len(lines) == 1 else Group(*lines)


def describe(event: Any, view: View = GENERIC) -> RenderableType:
    """One event as a few lines of text, as the strategy's view reads it."""
    return to_rich(view.block(event))


def footer(result: Result) -> RenderableType:
    """The answer and its basis, then the strategy's own lines and what the run cost and why it stopped.

    The answer is shown here and by no event: the result's answer is the one that counts (an abstention
    policy may overrule what the strategy's last event said), and so every strategy shows it exactly once.
    """
    usage = result.usage
    lines: list[RenderableType] = [answer_line(result.answer, result.claim) + basis_text(result)]
    extra = strategy_info(result.strategy).view.footer_block(result.trace)
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
