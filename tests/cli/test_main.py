"""The `arkg` command itself: its version, and its last-resort guard against tracebacks."""

from __future__ import annotations

import sys
from importlib.metadata import version

import pytest
from typer.testing import CliRunner

from arkg.cli import EXIT_INTERNAL_ERROR, app, main

runner = CliRunner()


def test_version() -> None:
    """hardening item 21: `arkg --version` prints the installed package's version."""
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"arkg {version('arkg')}\n"


def test_an_unexpected_exception_is_one_line_unless_debugging(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """hardening item 17: the last-resort guard of `arkg` prints one line and where to report it; ARKG_DEBUG=1
    shows the traceback."""

    def broken(paths):
        raise RuntimeError("boom")

    monkeypatch.setattr("arkg.cli.evaluate.build_report", broken)
    monkeypatch.setattr(sys, "argv", ["arkg", "report", "x.jsonl"])
    monkeypatch.delenv("ARKG_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "Internal error (a bug in arkg): RuntimeError: boom" in err
    assert "ARKG_DEBUG=1" in err and "Traceback" not in err

    monkeypatch.setenv("ARKG_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main()
