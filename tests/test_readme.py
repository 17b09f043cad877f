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


def test_the_python_example_runs_as_written(bundled_model, monkeypatch) -> None:
    """The README's Python block, run as written (with the bundled model the fixture has loaded once)."""
    import arkg.session

    monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: bundled_model)
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    exec(compile(example, "README.md", "exec"), {"print": lambda *args: None})
