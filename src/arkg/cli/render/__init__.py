"""Rich renderings of strategy events and results for the terminal (see `common`)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from arkg.agents.strategy import Result, strategy_info
from arkg.cli.render.common import describe, footer, to_rich
from arkg.text import one_line


def render_result(result: Result, verbose: bool = True) -> Group:
    """A finished run from its trace: the question, every event as its strategy's view reads it, then the
    footer (with the strategy's detail lines unless not `verbose`)."""
    view = strategy_info(result.strategy).view
    events = result.trace.events if result.trace is not None else []
    return Group(
        Text.assemble(("question: ", "bold"), one_line(result.question)),
        *(describe(event, view) for event in events),
        footer(result, verbose=verbose),
    )


__all__ = ["describe", "footer", "render_result", "to_rich"]
