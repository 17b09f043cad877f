"""bench/adapt_effect.py runs (its imports from bench/heldout_eval.py and arkg resolve) and refuses a
folder without questions before doing anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "adapt_effect.py"


def test_the_script_explains_itself_and_refuses_an_empty_folder(tmp_path: Path) -> None:
    shown = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "arkg adapt" in shown.stdout
    refused = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and f"{tmp_path}: no questions.jsonl" in refused.stderr
    assert not (tmp_path / "kg.db").exists()
