"""Rich renderings of strategy events and results for the terminal (see `common`)."""

from __future__ import annotations

from rich.console import Group

from arkg.agents.strategy import Result
from arkg.cli.render import ark, cot, kaping, kg_agent, r3  # noqa: F401  (registers their renderers)
from arkg.cli.render.common import describe, footer
from arkg.text import one_line
from rich.text import Text


def render_result(result: Result) -> Group:
    """A finished run from its trace: the question, every event, then the footer."""
    events = getattr(result.trace, "events", [])
    return Group(
        Text.assemble(("question: ", "bold"), one_line(result.question)),
        *(describe(event) for event in events),
        footer(result),
    )


__all__ = ["describe", "footer", "render_result"]
