"""The tables `arkg report` and `arkg eval` print: complete when piped, no column lost on a narrow
terminal, and KG or model text that cannot move the cursor or break a row."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arkg.cli import app
from arkg.cli.tables import print_table
from arkg.eval.results import RunConfig
from arkg.tables import Table

runner = CliRunner()
MODEL = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"
HEADER = ["System", "Runs", "Questions", "Answer rate %", "Cond. acc. % (95% CI)", "Overall acc. % (95% CI)", "Reliab.",
          "Yes/no answers True / False / None", "Calls/q", "Tokens/q"]  # fmt: skip
TABLE = Table(
    title="Results",
    header=HEADER,
    rows=[[f"ark · {MODEL} · constrained", "2", "3", "83.33 ± 23.57", "83.33 ± 23.57 (27.8–98.5)", "66.67 ± 0.00 (20.8–93.9)",
           "0.58", "4 / 1 / 1", "4.0", "1,120"]],  # fmt: skip
    footnote="Mean ± sample standard deviation over runs.",
)


def write_results(path: Path, model: str, strategy_label: str) -> Path:
    config = RunConfig(
        dataset="d.json", dataset_sha256="abc", kg="gold", strategy="ark", model=model,
        temperature=0.0, seed=0, max_tokens=64, settings={"mode": "constrained"},
    )
    record = {
        "question_id": "S1", "run": 0, "seed": 0, "strategy": "ark", "model": model, "settings": config.settings,
        "answer": True, "gold": True, "correct": True, "reasoning_strategies": [strategy_label],
        "usage": {"calls": 4, "prompt_tokens": 1000, "completion_tokens": 120}, "elapsed_s": 1.0,
    }
    path.write_text(config.model_dump_json() + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    return path


def render(width: int) -> str:
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    print_table(console, TABLE)
    return console.file.getvalue()


def test_piped_report_prints_complete_unwrapped_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arkg report > out.txt` keeps every header and column whole (Markdown, one line per row)."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    results = write_results(tmp_path / "a.jsonl", MODEL, "sports")
    result = runner.invoke(app, ["report", str(results)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "| " + " | ".join(HEADER) + " |" in lines
    assert (
        "| ark · SmolLM2-135M-Instruct · T0 · constrained · kg=gold-union | 1 | 1 | 100.00 | 100.00 (20.7–100.0) "
        "| 100.00 (20.7–100.0) | n/a | 1 / 0 / 0 | 4.0 | 1,120 |"
    ) in lines
    assert "| sports | 1 | 100.0 |" in lines


@pytest.mark.parametrize("width", [40, 60, 100, 130, 200])
def test_no_column_is_lost_at_any_terminal_width(width: int) -> None:
    """On a terminal of any width every header and cell is shown, no line is wider than the
    terminal, and no word of up to 16 characters is split."""
    shown = render(width)
    assert max(len(line) for line in shown.splitlines()) <= width
    words = {word for cell in [*TABLE.header, *TABLE.rows[0][1:]] for word in cell.split()}
    assert all(word in shown for word in words), shown
    assert "Mean ± sample standard deviation over runs." in " ".join(shown.split())


def test_a_wide_terminal_gets_a_table_and_a_narrow_one_a_block_per_row() -> None:
    """Columns side by side while they fit; below that, "header: value" lines."""
    wide = render(200)
    assert "┃ Answer rate % ┃" in wide and f"ark · {MODEL} · constrained" in wide
    narrow = render(60)
    assert "  Answer rate %: 83.33 ± 23.57" in narrow and "  Tokens/q: 1,120" in narrow
    assert f"System: ark · {MODEL} · constrained" in " ".join(narrow.split())


def test_kg_and_model_text_in_tables_is_shown_escaped(tmp_path: Path) -> None:
    """Control characters, line breaks and markup from a results file are printed as
    visible text; they neither reach the terminal raw nor break a row."""
    hostile_model = "m\x1b[2J[red]x[/red]"
    hostile_label = "sports\nS9 | forged | row"
    results = write_results(tmp_path / "a.jsonl", hostile_model, hostile_label)
    piped = runner.invoke(app, ["report", str(results)])
    assert piped.exit_code == 0, piped.output
    assert "\x1b" not in piped.stdout
    assert "| sports\\nS9 \\| forged \\| row | 1 | 100.0 |" in piped.stdout.splitlines()
    assert "m\\x1b[2J[red]x[/red]" in piped.stdout

    console = Console(file=io.StringIO(), width=200, force_terminal=True, color_system=None)
    print_table(console, Table("T", ["System", "n"], [[hostile_model, "1"], [hostile_label, "2"]]))
    shown = console.file.getvalue()
    assert "\x1b" not in shown
    assert "m\\x1b[2J[red]x[/red]" in shown and "sports\\nS9 | forged | row" in shown
