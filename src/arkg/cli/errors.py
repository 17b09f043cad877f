"""How every command reports a user's mistake: one red line on stderr, exit status 1, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from arkg.errors import ArkgError
from arkg.text import one_line

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command ended by Ctrl-C


@contextmanager
def user_errors() -> Iterator[None]:
    """Show an ArkgError as one red line and exit with status 1.

    Messages quote KG data and file contents: control characters are shown as escapes (line breaks
    the message itself holds are kept), and rich's highlighter stays off, since it takes minutes
    on a message of a megabyte and colours quoted data as if it were code.
    """
    try:
        yield
    except ArkgError as error:
        show_error(str(error))
        raise typer.Exit(1) from None


def show_interrupted() -> None:
    """The line a Ctrl-C that no command answered itself ends the program with (exit EXIT_INTERRUPTED)."""
    Console(stderr=True).print("[yellow]Interrupted.[/yellow]")


def show_error(message: str) -> None:
    """Print `message` on stderr as arkg's one red error line (see `user_errors`).

    Emoji codes stay as written: rich would turn a quoted name such as `a:x:b` into a cross mark.
    """
    message = "\n".join(one_line(line) for line in message.split("\n"))
    Console(stderr=True, highlight=False, emoji=False).print(f"[red]Error:[/red] {escape(message)}", soft_wrap=True)
