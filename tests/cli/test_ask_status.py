"""On a terminal, `arkg ask` shows a live status line while the run goes on (the strategy, its reasoning
step, model calls, time) and nothing of it is left on the screen once the answer prints. Run on a real
pseudo-terminal, read back through a terminal emulator."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pyte

QUESTION = "Was Marie Curie born in Warsaw?"
COLUMNS, LINES = 140, 50
STATUS = re.compile(r"ark: step \d+, \d+ model calls?, \d+ s")


def _on_a_terminal(tmp_path: Path, *arguments: str) -> tuple[int, bytes]:
    """Exit status and every byte `arkg ARGUMENTS` wrote to its pseudo-terminal."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    environment = {**os.environ, "TERM": "xterm-256color", "ARKG_CACHE_DIR": str(tmp_path / "cache")}
    for variable in ("NO_COLOR", "COLUMNS", "LINES"):
        environment.pop(variable, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "arkg", *arguments], stdin=follower, stdout=follower, stderr=follower, env=environment, cwd=tmp_path
    )
    os.close(follower)
    written = b""
    try:
        while select.select([leader], [], [], 60)[0]:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the program closed the terminal
                break
            if not chunk:
                break
            written += chunk
        return process.wait(timeout=60), written
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()


def _screen(written: bytes) -> list[str]:
    screen = pyte.Screen(COLUMNS, LINES)
    pyte.ByteStream(screen).feed(written)
    return [line.rstrip() for line in screen.display if line.strip()]


def test_the_status_line_runs_while_the_model_answers_and_is_gone_with_the_answer(tmp_path: Path) -> None:
    status, written = _on_a_terminal(tmp_path, "ask", QUESTION, "--model", "test")
    assert status == 0, written.decode(errors="replace")[-2000:]
    drawn = STATUS.findall(written.decode(errors="replace"))
    assert drawn, "no status line was drawn"
    assert any("1 model call," in line or "model calls" in line for line in drawn)
    screen = _screen(written)
    assert not any(STATUS.search(line) for line in screen), screen
    assert any(line.startswith("answer: ") for line in screen), screen
    assert "strategy: ark (the default); others: --strategy " in "\n".join(screen)


def test_off_a_terminal_there_is_no_status_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arkg", "ask", QUESTION, "--model", "test"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={**os.environ, "ARKG_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not STATUS.search(done.stdout + done.stderr)
    assert "answer: " in done.stdout
