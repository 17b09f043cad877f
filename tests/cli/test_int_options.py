"""Integer options: a number past what SQLite, llama.cpp or a server can hold is a usage error naming
the bound (exit 2), never an internal error or a crash once it reaches them."""

from __future__ import annotations

import importlib
import typing
from collections.abc import Callable, Iterator
from types import UnionType

import pytest
import typer
from typer.models import ParameterInfo
from typer.testing import CliRunner

from arkg.cli import _COMMAND_MODULES, app
from arkg.cli.bounds import MAX_INT

runner = CliRunner()
HUGE = "99999999999999999999999"


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param(["kg", "entities", "-n", HUGE], id="kg-entities-limit"),  # was SQLite's OverflowError: exit 70
        pytest.param(["ask", "Was Marie Curie born in Warsaw?", "--seed", HUGE], id="ask-seed"),  # was a crash in llama.cpp
        pytest.param(["ask", "Was Marie Curie born in Warsaw?", "--seed", f"-{HUGE}"], id="ask-negative-seed"),
        pytest.param(["eval", "q.jsonl", "-s", "ark", "--out", "r.jsonl", "--limit", HUGE], id="eval-limit"),
        pytest.param(["geo", "build", "geo.db", "--people", str(MAX_INT + 1)], id="geo-people"),
    ],
)
def test_an_integer_past_the_bound_is_a_usage_error(arguments: list[str]) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    # The bound: 2147483647, or -2147483648 below.
    assert "Invalid value" in result.output and "214748364" in result.output and "Traceback" not in result.output


def test_the_bound_itself_is_accepted() -> None:
    result = runner.invoke(app, ["kg", "entities", "-n", str(MAX_INT), "--json"])
    assert result.exit_code == 0, result.output
    assert '"Marie Curie"' in result.output


def _callbacks(command_app: typer.Typer) -> Iterator[Callable[..., object]]:
    yield from (info.callback for info in command_app.registered_commands if info.callback is not None)
    for group in command_app.registered_groups:
        yield from _callbacks(group.typer_instance)


def _int_options() -> Iterator[tuple[str, ParameterInfo]]:
    """Every int (or int | None) option and argument of every command, as declared."""
    for module_name in sorted({*_COMMAND_MODULES.values(), "kg_fetch"}):
        registered = typer.Typer()
        importlib.import_module(f"arkg.cli.{module_name}").register(registered)
        for callback in _callbacks(registered):
            for name, hint in typing.get_type_hints(callback, include_extras=True).items():
                if typing.get_origin(hint) is not typing.Annotated:
                    continue
                kind, *metadata = typing.get_args(hint)
                if typing.get_origin(kind) in (typing.Union, UnionType):
                    kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
                if kind is int:
                    for info in metadata:
                        if isinstance(info, ParameterInfo):
                            yield f"{module_name}.{callback.__name__}({name})", info


def test_every_integer_option_is_bounded() -> None:
    options = list(_int_options())
    assert len(options) > 30  # the walk found the commands' options
    unbounded = [
        name for name, info in options
        if info.min is None or info.max is None or info.min < -MAX_INT - 1 or info.max > MAX_INT
    ]
    assert not unbounded, f"declare min and max (arkg.cli.bounds) for: {unbounded}"
