"""One `arkg synth` at a time per output file: a second process that writes the same OUT is refused at
once, naming the process that writes it, and touches neither OUT nor its journal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arkg.eval.writer_lock import WriterLock, lock_path


def synth(out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arkg.cli import main; main()", "synth", "--sample", "--split", "all"]
    return subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, timeout=300)


def test_a_second_process_writing_the_same_output_is_refused_naming_the_first(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    with WriterLock(out):  # this test process is the first writer
        refused = synth(out)
        assert refused.returncode == 1, refused.stderr
        assert refused.stdout == ""
        assert refused.stderr.strip() == (
            f"Error: {out} is being written by another process (PID {os.getpid()}); one process writes it at a "
            "time: wait for that run to end (or stop it), or write to another file"
        )
        assert sorted(path.name for path in tmp_path.iterdir()) == ["pairs.jsonl.lock"]
    done = synth(out)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pairs.jsonl", "pairs.jsonl.meta.json"]
    assert not lock_path(out).exists()
