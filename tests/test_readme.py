"""The README's promises that a test can hold: CI runs its test command, and its sample question exists."""

from __future__ import annotations

import re
from pathlib import Path

from arkg.data import SAMPLE_QUESTIONS

REPO_ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _bash_blocks()[1]
    ci_lines = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci_lines[-1] == test_command


def test_main_job_asks_a_sample_question() -> None:
    main_job = _bash_blocks()[0]
    asked = re.search(r'arkg ask "([^"]+)"', main_job)
    assert asked is not None
    assert asked.group(1) in {sample.question for sample in SAMPLE_QUESTIONS}
