"""Ctrl-C (SIGINT) sent to a real `arkg eval` process: say so at once, stop at the next model call,
keep what finished, say how to resume; a second Ctrl-C quits at once."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from arkg.eval.results import read_results
from arkg.eval.writer_lock import lock_path
from scripted_eval import records_written, write_dataset

CLI = Path(__file__).with_name("scripted_cli.py")
QUESTIONS = 12


class Eval:
    """`arkg eval` in its own process; its stderr is read line by line as it comes."""

    def __init__(self, dataset: Path, out: Path, delay: float, *extra: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "ARKG_TEST_DELAY": str(delay)}
        args = ["eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), *extra]
        self.process = subprocess.Popen(
            [sys.executable, str(CLI), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line)

    def next_line_with(self, text: str, within_s: float) -> str:
        deadline = time.monotonic() + within_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            self.stderr.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} within {within_s} s; stderr so far: {''.join(self.stderr)}")

    def wait_for_records(self, out: Path, count: int) -> None:
        deadline = time.monotonic() + 60
        while records_written(out) < count:
            assert self.process.poll() is None, "the run ended too early"
            assert time.monotonic() < deadline
            time.sleep(0.02)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def test_first_ctrl_c_stops_at_the_next_model_call_keeping_finished_answers(tmp_path: Path) -> None:
    """The first Ctrl-C is acknowledged at once; the run ends cleanly with exit 130 and
    says how many answers were saved and how to resume; the resume completes the rest."""
    dataset, out = write_dataset(tmp_path / "claims.json", QUESTIONS), tmp_path / "r.jsonl"
    run = Eval(dataset, out, 0.4)
    try:
        run.wait_for_records(out, 2)
        run.process.send_signal(signal.SIGINT)
        run.next_line_with("Stopping", within_s=2.0)
        stopped = run.next_line_with("Stopped", within_s=10)
        assert run.process.wait(timeout=10) == 130
    finally:
        run.kill()
    saved = int(re.search(r"(\d+) answer\(s\) of this run saved", stopped).group(1))
    assert "Continue with the same command plus --resume" in stopped
    assert 2 <= saved < QUESTIONS
    assert len(read_results(out).records) == saved
    assert not lock_path(out).exists()

    resumed = Eval(dataset, out, 0.0, "--resume")
    assert resumed.process.wait(timeout=60) == 0
    assert sorted(record.question_id for record in read_results(out).records) == sorted(f"C{i}" for i in range(1, QUESTIONS + 1))


def test_a_second_ctrl_c_quits_at_once(tmp_path: Path) -> None:
    """While a model call takes long, a second Ctrl-C ends the process within moments,
    still saying how to resume, and leaves a readable results file."""
    dataset, out = write_dataset(tmp_path / "claims.json", QUESTIONS), tmp_path / "r.jsonl"
    run = Eval(dataset, out, 60.0)
    try:
        run.next_line_with("0/12 answered", within_s=60)  # the run has started: the handler is in place
        run.process.send_signal(signal.SIGINT)
        run.next_line_with("Stopping", within_s=2.0)
        sent = time.monotonic()
        run.process.send_signal(signal.SIGINT)
        quit_line = run.next_line_with("Quit", within_s=5)
        assert run.process.wait(timeout=5) == 130
        assert time.monotonic() - sent < 2.0
    finally:
        run.kill()
    assert "0 answer(s) of this run are saved" in quit_line and "--resume" in quit_line
    assert read_results(out).records == []
