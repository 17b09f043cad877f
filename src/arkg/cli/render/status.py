"""What `arkg ask` shows while a run goes on, and which strategy answered."""

from __future__ import annotations

import time

from rich.text import Text

from arkg.agents import REGISTRY
from arkg.agents.view import Progress


class RunStatus:
    """The live status line of a run on a terminal: reasoning step, model calls, time so far. Rich draws
    it again several times a second, so the time runs on between events."""

    def __init__(self, strategy: str) -> None:
        self.strategy = strategy
        self.progress = Progress()
        self.started = time.monotonic()

    def __rich__(self) -> Text:
        elapsed = time.monotonic() - self.started
        calls = self.progress.calls
        return Text(
            f"{self.strategy}: step {max(self.progress.steps, 1)}, {calls} model call{'' if calls == 1 else 's'},"
            f" {elapsed:.0f} s",
            style="dim",
        )


def strategy_line(strategy: str, defaulted: bool, adapted: bool = False) -> str:
    """Which strategy answers, and how to ask another. `adapted`: the default came from `arkg adapt`."""
    others = ", ".join(name for name in REGISTRY if name != strategy)
    why = " (the best on this KG's test questions after arkg adapt)" if adapted else " (the default)"
    return f"strategy: {strategy}{why if defaulted else ''}; others: --strategy {others}"
