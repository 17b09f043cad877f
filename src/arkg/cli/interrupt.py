"""Ctrl-C for commands: handed to them once they are imported, and in two steps for long operations (the
first asks to stop cleanly, a second quits at once)."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


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


def hand_ctrl_c_to_the_command() -> None:
    """From now on a Ctrl-C raises KeyboardInterrupt, for the command to stop cleanly and say what it kept.

    Until the command is imported, arkg's program (arkg.__main__.StartupGuard) ends at once on a Ctrl-C;
    its handler names the one to restore. Any other handler (arkg.cli run from Python) stays.
    """
    previous = getattr(signal.getsignal(signal.SIGINT), "previous_sigint_handler", None)
    if previous is not None:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = _ctrl_c_not_dropped(sys.unraisablehook)


def _ctrl_c_not_dropped(hook: Callable[[Any], object]) -> Callable[[Any], None]:
    """An unraisablehook that signals a dropped Ctrl-C again.

    A SIGINT handler that runs inside a ctypes callback (llama.cpp's logger, while a model loads) or a
    __del__ raises where Python can only print the exception and go on: the program ran to its end as
    if no key was pressed. Signalled again once this hook has returned, the handler runs when the main
    code resumes (or in the next such callback, and so on until it does).
    """

    def unraisable(info: Any) -> None:
        if not isinstance(info.exc_value, (KeyboardInterrupt, QuitNow)):
            hook(info)
            return
        returning = [False]
        threading.Thread(target=_signal_again, args=(returning,), daemon=True).start()
        returning[0] = True  # a store, the hook's last step: Python runs no handler between it and the return

    return unraisable


def _signal_again(returning: list[bool]) -> None:
    # From another thread, once the hook is done: a handler run inside the hook would be dropped as well.
    # A real signal to the main thread, which also wakes it from a blocking call (a sleep, a read).
    while not returning[0]:
        time.sleep(0.001)
    time.sleep(0.01)
    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
