"""The `arkg` command line: a thin skin over the Python API (one command, one library call)."""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import version
from typing import Annotated

import click
import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from arkg.cli.errors import EXIT_INTERRUPTED, show_error
from arkg.text import clip, one_line

# EX_SOFTWARE (sysexits.h): an internal error, as opposed to a mistake in the input.
EXIT_INTERNAL_ERROR = 70
DEBUG_VARIABLE = "ARKG_DEBUG"

# Each command, in the order `arkg --help` lists them, and the module under arkg.cli whose register()
# adds it. A module is imported when one of its commands runs: `arkg kg load` then skips importing
# the agents, the server and the trainer (over a second). `arkg --help` imports them all.
_COMMAND_MODULES = {
    "ask": "ask",
    "eval": "evaluate",
    "report": "evaluate",
    "mcp": "mcp",
    "serve": "serve",
    "synth": "synth",
    "tune": "tune",
    "merge-adapters": "tune",
    "kg": "kg",
    "geo": "geo",
}


class _CommandsOnDemand(TyperGroup):
    """The top-level command group, which imports a command's module when the command is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _COMMAND_MODULES:
            module = importlib.import_module(f"arkg.cli.{_COMMAND_MODULES[cmd_name]}")
            registered = typer.Typer()
            module.register(registered)
            self.commands.update(typer.main.get_group(registered).commands)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="arkg",
    cls=_CommandsOnDemand,
    help="Answer questions over a knowledge graph with an LLM agent whose factual steps cite KG triples.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"arkg {version('arkg')}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print arkg's version and exit.")
    ] = False,
) -> None:
    """Options before any command (the app's help text is set above)."""


def main() -> None:
    """Run the command line. An unexpected exception is a bug: one line about it instead of a
    traceback, unless ARKG_DEBUG=1 asks for the traceback."""
    try:
        _check_arguments(sys.argv[1:])
        app()
    except KeyboardInterrupt:
        Console(stderr=True).print("[yellow]Interrupted.[/yellow]")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as error:
        if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            raise
        Console(stderr=True, emoji=False).print(
            f"[red]Internal error[/red] (a bug in arkg): {escape(one_line(clip(f'{type(error).__name__}: {error}')))}\n"
            f"Please report it as an arkg issue with the command you ran and the traceback that "
            f"{DEBUG_VARIABLE}=1 shows.",
            soft_wrap=True,
        )
        sys.exit(EXIT_INTERNAL_ERROR)


def _check_arguments(arguments: list[str]) -> None:
    """Refuse an argument that is not UTF-8 (Python passes its bytes on as lone surrogates, which
    no file, database or terminal can take) before any command sees it."""
    for position, argument in enumerate(arguments, start=1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            show_error(f"argument {position} ({clip(argument, 60)!r}) is not valid UTF-8 text; arkg reads its arguments as UTF-8")
            sys.exit(1)
