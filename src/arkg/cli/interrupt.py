"""Ctrl-C in two steps: the first asks a long operation to stop cleanly, a second quits at once."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class QuitNow(BaseException):
    """Raised in the main thread by a second Ctrl-C; BaseException, so that no `except Exception` keeps it."""


@contextmanager
def two_step_ctrl_c(on_first: Callable[[], None]) -> Iterator[None]:
    """Inside the block, the first SIGINT calls `on_first` (which must return quickly) and a second
    raises QuitNow; the previous handler is restored on leaving. Call from the main thread."""
    presses = 0

    def handle(signum: int, frame: object) -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            raise QuitNow
        on_first()

    previous = signal.signal(signal.SIGINT, handle)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
