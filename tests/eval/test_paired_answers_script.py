"""bench/paired_answers.py on two hand-written results files of the same questions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "paired_answers.py"


def write(path: Path, answers: dict[str, bool | None], gold: bool = True) -> Path:
    lines = [{"dataset": "d.json"}] + [
        {"question_id": q, "answer": a, "correct": a == gold, "error": None if a is not None else "cut off"}
        for q, a in answers.items()
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_counts_changed_answers_and_discordant_pairs_over_questions_answered_on_both_sides(tmp_path: Path) -> None:
    before = write(tmp_path / "before.jsonl", {"Q1": True, "Q2": True, "Q3": False, "Q4": None})
    after = write(tmp_path / "after.jsonl", {"Q1": True, "Q2": False, "Q3": False, "Q4": True})
    printed = subprocess.run([sys.executable, str(SCRIPT), str(before), str(after)], capture_output=True, text=True, check=True).stdout
    assert "| 3 | 2 | 1 | 1 | 1 | 0 | 1.000 |" in printed
    assert "failed before: Q4" in printed and "failed after" not in printed
