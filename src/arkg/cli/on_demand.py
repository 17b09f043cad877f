"""Command groups that import a command's module only when that command is looked up.

Importing every command's module takes over a second (the agents, the server, the trainer); a
command that runs imports its own module alone. Listing the commands (`--help`) imports them all.

Once a command is imported, a Ctrl-C raises KeyboardInterrupt (hand_ctrl_c_to_the_command); one that
the command does not answer itself ends the program with one line, not with typer's silent exit 130.
"""

from __future__ import annotations

import importlib
from typing import ClassVar

import click
import typer
from typer.core import TyperGroup

from arkg.cli.errors import EXIT_INTERRUPTED, show_interrupted
from arkg.cli.interrupt import hand_ctrl_c_to_the_command


class CommandsOnDemand(TyperGroup):
    """A group whose commands named in `on_demand` (name -> module under arkg.cli whose register()
    adds them to a typer app) are imported when looked up; they are listed after the group's own."""

    on_demand: ClassVar[dict[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*(name for name in self.commands if name not in self.on_demand), *self.on_demand]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.on_demand:
            module = importlib.import_module(f"arkg.cli.{self.on_demand[cmd_name]}")
            registered = typer.Typer()
            module.register(registered)
            self.commands.update(typer.main.get_group(registered).commands)
        if cmd_name in self.commands:
            hand_ctrl_c_to_the_command()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            show_interrupted()
            raise typer.Exit(EXIT_INTERRUPTED) from None


def commands_on_demand(modules: dict[str, str]) -> type[CommandsOnDemand]:
    """A CommandsOnDemand class for these commands (command name -> module), to pass as a Typer's `cls`."""
    return type("CommandsOnDemand", (CommandsOnDemand,), {"on_demand": modules})
