"""How every command reports a user's mistake: one red line on stderr, exit status 1, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from arkg.errors import ArkgError
from arkg.text import one_line


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
        message = "\n".join(one_line(line) for line in str(error).split("\n"))
        Console(stderr=True, highlight=False).print(f"[red]Error:[/red] {escape(message)}", soft_wrap=True)
        raise typer.Exit(1) from None
