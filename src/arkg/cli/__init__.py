"""The `arkg` command line: a thin skin over the Python API (one command, one library call)."""

from __future__ import annotations

import os
import sys
from importlib.metadata import version
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from arkg.cli.errors import EXIT_INTERRUPTED, show_error, show_interrupted
from arkg.cli.on_demand import commands_on_demand
from arkg.text import clip, one_line

# EX_SOFTWARE (sysexits.h): an internal error, as opposed to a mistake in the input.
EXIT_INTERNAL_ERROR = 70
DEBUG_VARIABLE = "ARKG_DEBUG"

# Each command, in the order `arkg --help` lists them, and the module under arkg.cli whose register()
# adds it, imported when the command runs: `arkg kg load` skips the agents, the server and the trainer.
_COMMAND_MODULES = {
    "ask": "ask",
    "eval": "evaluate",
    "report": "evaluate",
    "mcp": "mcp",
    "serve": "serve",
    "questions": "questions",
    "synth": "synth",
    "tune": "tune",
    "merge-adapters": "tune",
    "adapt": "adapt",
    "kg": "kg",
    "geo": "geo",
}

app = typer.Typer(
    name="arkg",
    cls=commands_on_demand(_COMMAND_MODULES),
    help="Answer questions over a knowledge graph with an LLM agent whose factual steps cite KG triples.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"arkg {version('arkg')}")
        raise typer.Exit()


# Commands that never open a KG store: they skip importing it (and its index notice).
_WITHOUT_STORE = {"report", "tune", "merge-adapters"}


@app.callback()
def _options(
    context: typer.Context,
    show_version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print arkg's version and exit.")
    ] = False,
) -> None:
    """Options before any command (the app's help text is set above)."""
    if context.invoked_subcommand not in _WITHOUT_STORE:
        from arkg.graph.sqlite_store import SQLiteGraph

        SQLiteGraph.on_search_index_build = _say_building_index


def _say_building_index(names: int) -> None:
    """A store loaded with --defer-index is indexed by its first search: say why that search waits."""
    Console(stderr=True).print(f"building the search index ({names:,} names)…", soft_wrap=True, highlight=False)


def main() -> None:
    """Run the command line. An unexpected exception is a bug: one line about it instead of a
    traceback, unless ARKG_DEBUG=1 asks for the traceback."""
    try:
        _check_arguments(sys.argv[1:])
        app()
    except KeyboardInterrupt:
        show_interrupted()
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
