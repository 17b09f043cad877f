"""How `arkg ask` shows a chain-of-thought run: it reports no events (one model call, no KG), so the
model's reasoning is shown under the answer."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from arkg.agents.cot import CotTrace
from arkg.agents.strategy import Result
from arkg.cli.render.common import trace_footer
from arkg.text import one_line


@trace_footer(CotTrace)
def reasoning(result: Result) -> RenderableType:
    return Text.assemble(("reasoning: ", "dim"), (one_line(result.explanation) or "none given", "italic"))
