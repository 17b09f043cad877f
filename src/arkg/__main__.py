"""The `arkg` program (also `python -m arkg`).

Importing the command line takes a second or more (typer, rich, the strategies, the stores); a
Ctrl-C in that second must end the program with one line, like a Ctrl-C at any later moment, so
this module imports nothing heavy before it is ready to catch it.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # as arkg.cli.errors; not imported from there, which would load the whole CLI first


def main() -> None:
    try:
        from arkg.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        sys.exit(EXIT_INTERRUPTED)
    run()


if __name__ == "__main__":
    main()
