"""Reference pages written from the code itself, so that they cannot drift from it.

`docs/cli.md` is every `arkg` command with its arguments and options, read from the typer app; the
settings tables of `docs/strategies.md` are read from the strategy registry and replace the block between
`<!-- settings: NAME -->` and `<!-- end settings -->` under each strategy. `python -m arkg.cli.reference`
rewrites both; `--check` exits 1 naming each stale file (tests/cli/test_reference.py runs it).
"""

from __future__ import annotations

import argparse
import re
import sys
import typing
from enum import Enum
from pathlib import Path

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from arkg.agents.strategy import REGISTRY

# Every node of the command tree: a group (arkg, arkg kg) or a command.
Command = TyperGroup | TyperCommand

DOCS = Path(__file__).resolve().parents[3] / "docs"
CLI_PAGE = DOCS / "cli.md"
STRATEGIES_PAGE = DOCS / "strategies.md"
SETTINGS_BLOCK = re.compile(r"(<!-- settings: (?P<name>[\w-]+) -->\n)(.*?)(<!-- end settings -->)", re.DOTALL)


def cli_reference(app: typer.Typer) -> str:
    """The whole command tree as Markdown: one section per command, in the order `--help` lists them."""
    root = typer.main.get_command(app)
    lines = [
        "# Command-line reference",
        "",
        "Generated from the `arkg` command itself by `python -m arkg.cli.reference`; do not edit by hand.",
        "`arkg COMMAND --help` prints the same. Exit status, progress output and the `--db` / `--model` forms",
        "are described in the [README](../README.md) and the pages it links.",
        "",
    ]
    for path, command in _commands(root, ("arkg",)):
        lines += _command_section(path, command)
    return "\n".join(lines).rstrip() + "\n"


def _commands(command: Command, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Command]]:
    found = [(path, command)]
    if isinstance(command, TyperGroup):
        context = typer.Context(command)
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                found += _commands(sub, (*path, name))
    return found


def _command_section(path: tuple[str, ...], command: Command) -> list[str]:
    context = typer.Context(command, info_name=" ".join(path))
    lines = [f"{'#' * min(len(path) + 1, 4)} `{' '.join(path)}`", "", _text(command.help or command.short_help or ""), ""]
    usage = " ".join([*path, *(command.collect_usage_pieces(context) if isinstance(command, TyperGroup) else _usage(command))])
    lines += ["```text", usage, "```", ""]
    arguments = [p for p in command.params if isinstance(p, TyperArgument)]
    options = [p for p in command.params if isinstance(p, TyperOption) and not p.hidden and p.name not in _SHELL_OPTIONS]
    if arguments:
        lines += ["| argument | type | description |", "| --- | --- | --- |"]
        lines += [f"| `{_argument_name(a)}` | {_type(a)} | {_cell(a.help or '')} |" for a in arguments]
        lines.append("")
    if options:
        lines += ["| option | type | default | description |", "| --- | --- | --- | --- |"]
        lines += [f"| {_names(o)} | {_type(o)} | {_default(o)} | {_cell(o.help or '')} |" for o in options]
        lines.append("")
    return lines


def _usage(command: TyperCommand) -> list[str]:
    """Usage pieces as the README writes them: `[OPTIONS] QUESTION`, `RESULTS...`, `[FILES]...`."""
    pieces = ["[OPTIONS]"] if any(isinstance(p, TyperOption) for p in command.params) else []
    for argument in (p for p in command.params if isinstance(p, TyperArgument)):
        name = _argument_name(argument) + ("..." if argument.nargs == -1 else "")
        pieces.append(name if argument.required else f"[{name}]")
    return pieces


def _argument_name(argument: TyperArgument) -> str:
    """The name `--help` shows: the metavar the command gives (typer brackets an optional one), else NAME."""
    return (argument.metavar or argument.name.upper()).strip("[]")


# typer's shell-completion options are the same on every program and say nothing about arkg.
_SHELL_OPTIONS = {"install_completion", "show_completion"}


def _text(help_text: str) -> str:
    """Help text as typer shows it: paragraphs kept, a `\\b` block marker dropped."""
    return "\n".join(line for line in help_text.strip().splitlines() if line.strip() != "\b")


def _names(option: TyperOption) -> str:
    names = [*option.opts, *option.secondary_opts]
    return " / ".join(f"`{name}`" for name in names)


def _type(parameter: TyperArgument | TyperOption) -> str:
    annotation = parameter.type_descriptor.annotation
    repeated = typing.get_origin(annotation) in (list, tuple)
    item = typing.get_args(annotation)[0] if repeated else annotation
    if getattr(parameter, "is_flag", False):
        text = "flag"
    elif isinstance(item, type) and issubclass(item, Enum):
        text = " \\| ".join(member.value for member in item)
    else:
        text = getattr(item, "__name__", str(item)).lower()
    bounds = [f"{symbol} {value}" for symbol, value in (("≥", parameter.min), ("≤", parameter.max)) if value is not None]
    if bounds:
        text += ", " + " and ".join(bounds)
    # An argument takes several values by position; an option by being repeated.
    return f"{text}, repeatable" if repeated and isinstance(parameter, TyperOption) else text


def _default(option: TyperOption) -> str:
    if option.required:
        return "required"
    if option.is_flag and not option.default:
        return ""
    default = option.default
    if default is None or default == () or callable(default):
        return ""
    if isinstance(default, Enum):
        default = default.value
    return f"`{default}`"


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def settings_table(name: str) -> str:
    """A strategy's settings as a Markdown table: name, type, default, what it does."""
    settings = REGISTRY[name].settings
    lines = ["| setting | type | default | what it does |", "| --- | --- | --- | --- |"]
    for field_name, field in settings.model_fields.items():
        lines.append(
            f"| `{field_name}` | {_setting_type(field)} | `{_setting_default(field)}` | {_cell(_setting_help(settings, field_name, field))} |"
        )
    return "\n".join(lines) + "\n"


def _setting_type(field: FieldInfo) -> str:
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return " \\| ".join(member.value for member in annotation)
    text = getattr(annotation, "__name__", str(annotation))
    bounds = [f"{symbol} {getattr(item, attr)}" for item in field.metadata
              for attr, symbol in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")) if hasattr(item, attr)]  # fmt: skip
    return f"{text}, {' and '.join(bounds)}" if bounds else text


def _setting_default(field: FieldInfo) -> object:
    if field.is_required():
        return "required"
    default = field.get_default(call_default_factory=True)
    return default.value if isinstance(default, Enum) else default


def _setting_help(settings: type[BaseModel], name: str, field: FieldInfo) -> str:
    """The field's description; else the one a parent class gave the same setting (a subclass that only
    changes a default loses it); else the first line of the enum type's own docstring."""
    if field.description:
        return field.description
    for parent in settings.__mro__[1:]:
        inherited = getattr(parent, "model_fields", {}).get(name)
        if inherited is not None and inherited.description:
            return inherited.description
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, Enum) and annotation.__dict__.get("__doc__"):
        return annotation.__doc__.strip().splitlines()[0]
    return ""


def with_settings_tables(page: str) -> str:
    """The strategies page with every settings block rewritten from the registry; an unknown name is an error."""

    def table(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in REGISTRY:
            raise ValueError(f"{STRATEGIES_PAGE.name}: no strategy named {name!r} is registered ({', '.join(REGISTRY)})")
        return f"{match.group(1)}\n{settings_table(name)}\n{match.group(4)}"

    return SETTINGS_BLOCK.sub(table, page)


def expected_pages() -> dict[Path, str]:
    from arkg.cli import app  # the full app, every command registered

    return {
        CLI_PAGE: cli_reference(app),
        STRATEGIES_PAGE: with_settings_tables(STRATEGIES_PAGE.read_text(encoding="utf-8")),
    }


def stale_pages() -> list[Path]:
    return [path for path, text in expected_pages().items() if not path.is_file() or path.read_text(encoding="utf-8") != text]


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arkg.cli.reference", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is stale")
    options = parser.parse_args(arguments)
    if options.check:
        stale = stale_pages()
        for path in stale:
            print(f"{path} is stale: run python -m arkg.cli.reference", file=sys.stderr)
        return 1 if stale else 0
    for path, text in expected_pages().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
