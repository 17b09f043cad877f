"""The `arkg` command itself: its version, and its last-resort guard against tracebacks."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.__main__ import StartupGuard
from arkg.cli import EXIT_INTERNAL_ERROR, app, main
from arkg.cli.errors import EXIT_INTERRUPTED
from arkg.cli.interrupt import hand_ctrl_c_to_the_command

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


# arkg's program as `arkg` runs it (arkg.__main__.main), told to say on stderr when arkg's Ctrl-C guard is in
# place: a SIGINT before that lands in Python's start or pip's script wrapper, before arkg's code runs.
GUARDED = """
import signal, sys
# As from a terminal: a test run started as a background job of a non-interactive shell (a CI runner,
# `cmd &` in a script) hands its children an ignored SIGINT, which arkg rightly leaves ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
install = signal.signal
def watch(signum, handler):
    previous = install(signum, handler)
    if signum == signal.SIGINT and callable(handler):
        signal.signal = install
        sys.stderr.write("guard in place\\n")
        sys.stderr.flush()
    return previous
signal.signal = watch
sys.argv = ["arkg", *sys.argv[1:]]
from arkg.__main__ import main
main()
"""


def _ready(process: subprocess.Popen[str], within_s: float = 120) -> None:
    """Wait until arkg's guard is in place (a line on stderr); generous, for a loaded machine."""
    assert process.stderr is not None
    ready = threading.Event()

    def read_first_line() -> None:
        if process.stderr.readline() == "guard in place\n":
            ready.set()

    reader = threading.Thread(target=read_first_line, daemon=True)
    reader.start()
    reader.join(within_s)
    assert ready.is_set(), "arkg's program never installed its Ctrl-C guard"


# From the imports (the first second or more) to the model's loading (llama.cpp calls back into Python
# to log, where a KeyboardInterrupt used to be dropped) and the question's first steps.
@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3, 0.6, 1.0, 2.0])
def test_ctrl_c_at_any_moment_of_the_start_says_interrupted(delay: float) -> None:
    """Ctrl-C at any moment once arkg runs ends the program with exit 130 and a last line "Interrupted."
    (arkg's guard while it starts, the command's own message once it runs), never a traceback or nothing."""
    process = subprocess.Popen(
        [sys.executable, "-c", GUARDED, "ask", "Was Marie Curie born in Warsaw?", "--no-cache"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _ready(process)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    lines = [line for line in err.splitlines() if line.strip()]
    assert process.returncode == EXIT_INTERRUPTED, (process.returncode, err, out)
    assert lines and lines[-1].startswith("Interrupted."), err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_a_ctrl_c_dropped_in_a_callback_still_interrupts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt raised inside a ctypes callback (llama.cpp's logger while the model loads) is
    only printed by Python, and the program went on; arkg signals it again once the callback is done."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    previous = signal.signal(signal.SIGINT, StartupGuard(signal.default_int_handler))
    try:
        hand_ctrl_c_to_the_command()  # as when the command is imported
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        # os.kill runs the handler at once: inside the callback, where ctypes drops what it raises.
        callback = ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGINT))
        with pytest.raises(KeyboardInterrupt):
            callback()
            time.sleep(5)  # the handler runs again within milliseconds
    finally:
        signal.signal(signal.SIGINT, previous)


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
