"""`arkg kg` under concurrent writers, bad store paths, CoLoTa files, the sample KG and hostile KG text."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arkg.cli.errors import user_errors
from arkg.errors import ArkgError


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


def test_error_messages_are_printed_without_highlighting(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hardening item 10: rich highlighted error messages (minutes for a megabyte), colouring quoted data."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    message = "line 12: cannot read 'http://example.org/x 3.14 True'"

    def fail() -> None:
        with user_errors():
            raise ArkgError(message)

    command = typer.Typer()
    command.command()(fail)
    result = runner.invoke(command, [])
    assert result.exit_code == 1
    assert message in result.output, repr(result.output)
