"""How every command reports a user's mistake: one red line on stderr, exit status 1, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from arkg.errors import ArkgError


@contextmanager
def user_errors() -> Iterator[None]:
    """Show an ArkgError as one red line and exit with status 1."""
    try:
        yield
    except ArkgError as error:
        Console(stderr=True).print(f"[red]Error:[/red] {escape(str(error))}", soft_wrap=True)
        raise typer.Exit(1) from None
