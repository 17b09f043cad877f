"""How `arkg eval` shows its progress: a live bar on a terminal, plain lines in a log.

Both are callbacks for `run_evaluation(on_progress=...)` and context managers. They write to stderr,
so that `arkg eval > results.txt` still shows the bar, and `arkg eval > log 2>&1` fills the log.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Callable

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arkg.eval.runner import RunSummary

# Seconds between two plain progress lines.
PLAIN_INTERVAL_S = 30.0


def progress_bar(console: Console, disable: bool = False) -> Progress:
    """The bar of arkg's long commands: done/total, elapsed, ETA and a status field (`status=` per task)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        console=console,
        disable=disable,
    )


class LiveProgress:
    """A rich progress bar that redraws itself in place."""

    def __init__(self, console: Console, label: str) -> None:
        self._progress = progress_bar(console)
        self._task = self._progress.add_task(escape(label), total=None, status="")

    def __call__(self, summary: RunSummary) -> None:
        self._progress.update(
            self._task, total=summary.total, completed=summary.done + summary.cut_short, status=escape(status(summary))
        )

    def close(self) -> None:
        self._progress.stop()

    def __enter__(self) -> "LiveProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PlainProgress:
    """A line at the start, then at most one per `interval_s` seconds, and one when all is done."""

    def __init__(
        self, console: Console, label: str, interval_s: float = PLAIN_INTERVAL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._label = label
        self._interval_s = interval_s
        self._clock = clock
        self._last_line_at: float | None = None
        self._last_done = -1

    def __call__(self, summary: RunSummary) -> None:
        now = self._clock()
        finished = summary.done + summary.cut_short >= summary.total and summary.done != self._last_done
        if self._last_line_at is None or now - self._last_line_at >= self._interval_s or finished:
            self._console.print(progress_line(self._label, summary), markup=False, highlight=False, soft_wrap=True)
            self._last_line_at = now
            self._last_done = summary.done

    def close(self) -> None:
        """Nothing to undo: lines already printed stay."""

    def __enter__(self) -> "PlainProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def eval_progress(console: Console, label: str) -> LiveProgress | PlainProgress:
    return LiveProgress(console, label) if console.is_terminal else PlainProgress(console, label)


def progress_line(label: str, summary: RunSummary) -> str:
    """E.g. `cot · m: 12/40 answered (30%) · elapsed 0:01:05 · ETA 0:02:31 · acc 58.3% · 1 failed · 3,120 tokens`."""
    share = f" ({summary.done / summary.total:.0%})" if summary.total else ""
    eta = "n/a" if summary.eta_s is None else _clock_time(summary.eta_s)
    return (
        f"{label}: {summary.done}/{summary.total} answered{share} · elapsed {_clock_time(summary.elapsed_s)} "
        f"· ETA {eta} · {status(summary)}"
    )


def status(summary: RunSummary) -> str:
    accuracy = summary.running_accuracy
    shown = "n/a" if accuracy is None else f"{accuracy:.1%}"
    failed = f" · {summary.failed} failed" if summary.failed else ""
    return f"acc {shown}{failed} · {summary.usage.total_tokens:,} tokens"


def _clock_time(seconds: float) -> str:
    return str(timedelta(seconds=round(seconds)))
