"""bench/heldout_eval.py end to end on one held-out domain with the test model: the table, and every two
runs paired over the questions both answered."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_two_runs_are_tabled_over_the_first_questions_and_paired(tmp_path: Path) -> None:
    folder = tmp_path / "heldout"
    subprocess.run([sys.executable, BENCH / "heldout_domains.py", "--out", folder, "--per-template", "1"], check=True, capture_output=True)
    command = [sys.executable, BENCH / "heldout_eval.py", "--dir", folder, "--domain", "botany", "--strategy", "ark", "--strategy", "cot", "--model", "test", "--limit", "3"]
    printed = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    assert re.search(r"^\| ark \| test \| botany \| 3 \|", printed, re.MULTILINE), printed
    assert re.search(r"^\| cot \| test \| \*\*overall\*\* \| 3 \|", printed, re.MULTILINE), printed
    pair = re.search(r"^\| ark test \| cot test \| 3 \| (\d+) \| (\d+) \| (\d\.\d{3}) \|$", printed, re.MULTILINE)
    assert pair is not None, printed
    assert int(pair[1]) + int(pair[2]) <= 3
