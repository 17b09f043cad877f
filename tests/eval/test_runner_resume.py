"""Kill a real evaluation process with SIGKILL midway, resume it, and compare with an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arkg.eval.writer_lock import lock_path
from scripted_eval import records_written, write_dataset

HELPER = Path(__file__).with_name("scripted_eval.py")
QUESTIONS = 8
RUNS = 2  # as in scripted_eval.RUNS


def run_helper(dataset: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, str(HELPER), str(dataset), str(out), *extra], env=env)


def answers(out: Path) -> dict[tuple[str, int], object]:
    lines = out.read_text(encoding="utf-8").splitlines()[1:]
    records = [json.loads(line) for line in lines]
    keys = [(r["question_id"], r["run"]) for r in records]
    assert len(keys) == len(set(keys)), "a (question, run) was written twice"
    return {(r["question_id"], r["run"]): (r["answer"], r["seed"], r["explanation"]) for r in records}


def test_sigkill_midway_then_resume_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    dataset = tmp_path / "claims.json"
    write_dataset(dataset, QUESTIONS)

    reference = tmp_path / "reference.jsonl"
    assert run_helper(dataset, reference).wait(timeout=120) == 0

    killed = tmp_path / "killed.jsonl"
    process = run_helper(dataset, killed, "--delay", "0.25")
    deadline = time.monotonic() + 120
    while records_written(killed) < 3:
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    partial = records_written(killed)
    assert 3 <= partial < QUESTIONS * RUNS
    # The killed writer's lock file stays behind; its OS lock died with it, so the resume takes it over.
    assert lock_path(killed).exists()

    assert run_helper(dataset, killed, "--resume").wait(timeout=120) == 0
    resumed = answers(killed)
    assert len(resumed) == QUESTIONS * RUNS
    assert resumed == answers(reference)
    assert not lock_path(killed).exists()
    # Runs sample with different seeds (base 11 + run index).
    assert {seed for (_, seed, _) in resumed.values()} == {11, 12}
