"""One writer per results file (an OS lock naming its PID), and appends that are real appends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arkg.eval.results import Record, ResultsWriter, RunConfig, read_results
from arkg.eval.writer_lock import FileBusy, WriterLock, lock_path
from arkg.llm.base import Usage
from scripted_eval import records_written, write_dataset

CLI = Path(__file__).with_name("scripted_cli.py")
CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="none", strategy="cot", model="scripted",
    temperature=0.0, seed=0, max_tokens=64,
)


def record(question_id: str) -> Record:
    return Record(
        question_id=question_id, run=0, seed=0, strategy="cot", model="scripted", settings={}, answer=True,
        gold=True, correct=True, reasoning_strategies=[], usage=Usage(), elapsed_s=0.1,
    )


def start_eval(dataset: Path, out: Path, delay: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "ARKG_TEST_DELAY": str(delay)}
    return subprocess.Popen(
        [sys.executable, str(CLI), "eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), "--resume"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_a_second_writer_process_is_refused_naming_the_file_and_the_first_ones_pid(tmp_path: Path) -> None:
    """Two `arkg eval --resume` on one file; the second must not overwrite the first's records."""
    dataset = write_dataset(tmp_path / "claims.json", 5)
    out = tmp_path / "same.jsonl"
    # 3 s a question: the first is still writing while the second starts, even on a loaded machine
    # (at 1 s a question the first was seen finishing before a slow start of the second).
    first = start_eval(dataset, out, delay=3.0)
    try:
        deadline = time.monotonic() + 60
        while records_written(out) < 1:
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        second = start_eval(dataset, out, delay=0.0)
        stdout, stderr = second.communicate(timeout=60)
        assert second.returncode == 1
        assert f"{out} is being written by another process (PID {first.pid})" in stderr
        assert "Traceback" not in stdout + stderr
        assert first.wait(timeout=60) == 0
    finally:
        if first.poll() is None:
            first.kill()
    lines = out.read_text(encoding="utf-8").splitlines()
    keys = [json.loads(line)["question_id"] for line in lines[1:]]
    assert sorted(keys) == sorted(f"C{i}" for i in range(1, 6))
    assert not lock_path(out).exists()


def test_appends_land_at_the_end_of_the_file_as_it_is_then(tmp_path: Path) -> None:
    """Records are appended with O_APPEND, never written over bytes that arrived meanwhile."""
    out = tmp_path / "r.jsonl"
    with ResultsWriter(out, CONFIG) as writer:
        with out.open("ab") as other:
            other.write(record("C1").model_dump_json().encode() + b"\n")
        writer.append(record("C2"))
    assert [r.question_id for r in read_results(out).records] == ["C1", "C2"]


def test_resume_cuts_a_torn_last_line_then_appends(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with ResultsWriter(out, CONFIG) as writer:
        writer.append(record("C1"))
    with out.open("ab") as file:
        file.write(b'{"question_id": "C2", "ru')
    with ResultsWriter(out, CONFIG, resume=True) as writer:
        assert [r.question_id for r in writer.previous.records] == ["C1"]
        writer.append(record("C3"))
    assert [r.question_id for r in read_results(out).records] == ["C1", "C3"]


def test_the_lock_names_its_holder_and_goes_away_on_close(tmp_path: Path) -> None:
    """The lock file records the writer's PID; a second writer, even in-process, is refused."""
    out = tmp_path / "r.jsonl"
    with ResultsWriter(out, CONFIG):
        assert lock_path(out).read_text().strip() == str(os.getpid())
        with pytest.raises(FileBusy) as busy:
            ResultsWriter(out, CONFIG, resume=True)
        assert busy.value.pid == os.getpid()
    assert not lock_path(out).exists()
    assert read_results(out).config == CONFIG


def test_a_lock_file_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    lock_path(out).write_text("999999\n")  # no process holds its OS lock
    with WriterLock(out):
        assert lock_path(out).read_text().strip() == str(os.getpid())
    assert not lock_path(out).exists()
