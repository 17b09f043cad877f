"""The `arkg` command itself: its version, and its last-resort guard against tracebacks."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.cli import EXIT_INTERNAL_ERROR, app, main

runner = CliRunner()


def test_version() -> None:
    """`arkg --version` prints the installed package's version."""
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"arkg {version('arkg')}\n"


def test_an_unexpected_exception_is_one_line_unless_debugging(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last-resort guard of `arkg` prints one line and where to report it; ARKG_DEBUG=1
    shows the traceback."""

    def broken(paths, **options):
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


ARKG = Path(sys.executable).with_name("arkg")  # the installed program, entry point included


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.4, 0.8])
def test_ctrl_c_while_the_program_is_still_starting_is_one_line(delay: float) -> None:
    """Ctrl-C at any moment of the first second (most of it spent importing) ends the program with a
    short message, never a traceback."""
    process = subprocess.Popen(
        [str(ARKG), "ask", "Was Marie Curie born in Warsaw?", "--no-cache"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    # On an idle machine the imports may be over before the later delays; the command then handles it.
    assert "Traceback" not in err, err
    assert len([line for line in err.splitlines() if line.strip()]) <= 2, err


@pytest.mark.parametrize("arguments", [[b"ask", b"\xff\xfe Was Marie Curie born in Warsaw?"], [b"kg", b"show", b"\xff\xfe"]])
def test_an_argument_that_is_not_utf8_is_refused_in_one_line(arguments: list[bytes]) -> None:
    result = subprocess.run([str(ARKG).encode(), *arguments], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("Error: argument ") and "is not valid UTF-8" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_error_quoting_an_emoji_code_shows_it_as_written(tmp_path: Path) -> None:
    """rich turns `:x:` into a cross mark unless told not to; a quoted name must read as in the KG."""
    result = runner.invoke(app, ["kg", "show", "Curie:x:Warsaw"])
    assert result.exit_code == 1
    assert "'Curie:x:Warsaw' is not in the knowledge graph" in result.output
