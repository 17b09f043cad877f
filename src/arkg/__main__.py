"""The `arkg` program (also `python -m arkg`).

Starting takes a second or more (importing typer, rich, the strategies, the stores), and a Ctrl-C in
that time must end the program with one line, like a Ctrl-C at any later moment. A KeyboardInterrupt
cannot promise that: an import may swallow it (a library's bare `except:`), and typer turns one into
a silent exit 130. So the first thing `main` does is to install StartupGuard, which writes the line
and exits at once; startup has nothing to clean up. Once the command to run has been imported,
arkg.cli.interrupt hands SIGINT back (KeyboardInterrupt), for the command to stop cleanly and say
what it kept. This module imports nothing heavy before the guard is in place.
"""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

EXIT_INTERRUPTED = 130  # as arkg.cli.errors; not imported from there, which would load the whole CLI first
INTERRUPTED = b"Interrupted.\n"


class StartupGuard:
    """The SIGINT handler while arkg starts: "Interrupted." on stderr, exit 130, at once.

    os.write and os._exit: nothing buffered is left to flush and nothing can catch it on the way out.
    `previous_sigint_handler` is the handler to restore for the command (arkg.cli.interrupt reads it).
    """

    def __init__(self, previous: Any) -> None:
        self.previous_sigint_handler = previous

    def __call__(self, signum: int = signal.SIGINT, frame: FrameType | None = None) -> None:
        os.write(2, INTERRUPTED)
        os._exit(EXIT_INTERRUPTED)


def main() -> None:
    try:
        previous = signal.getsignal(signal.SIGINT)
        # An ignored SIGINT (a background job of a non-interactive shell) stays ignored.
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, StartupGuard(previous))
        from arkg.cli import main as run
    except KeyboardInterrupt:  # a Ctrl-C that came before the guard was in place
        StartupGuard(None)()
    run()


if __name__ == "__main__":
    main()
