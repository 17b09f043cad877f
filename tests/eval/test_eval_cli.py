"""`arkg eval` and `arkg report` as a user runs them (the real bundled model in one short test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.cli import app

runner = CliRunner()


def test_eval_refuses_to_overwrite_results_before_loading_anything(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text("{}\n", encoding="utf-8")
    result = runner.invoke(app, ["eval", "--dataset", "absent.json", "--strategy", "cot", "--out", str(out)])
    assert result.exit_code == 1
    assert "already exists: pass --resume" in result.output


def test_eval_names_unknown_question_ids(colota_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, [
        "eval", "--dataset", str(colota_dir / "CR-LT-QA.json"), "--strategy", "cot",
        "--out", str(tmp_path / "r.jsonl"), "--ids", "S1,S999",
    ])
    assert result.exit_code == 1
    assert "no usable question with id(s) S999" in result.output


def test_report_rejects_a_file_that_is_not_results(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.jsonl"
    bogus.write_text("hello\n", encoding="utf-8")
    result = runner.invoke(app, ["report", str(bogus)])
    assert result.exit_code == 1
    assert "line 1: not a valid header" in result.output


@pytest.mark.slow
def test_cot_with_the_bundled_model_then_report(colota_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "cot.jsonl"
    args = ["eval", "--dataset", str(colota_dir / "CR-LT-QA.json"), "--strategy", "cot", "--out", str(out), "--ids", "S2,S3", "--limit", "1"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "S39 [answer] question skipped" in first.output
    header, record = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    assert header["model"] == "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf" and header["kg"] == "none"
    assert record["question_id"] == "S2" and record["gold"] is False
    assert record["answer"] in (True, False, None) or record["error"]

    again = runner.invoke(app, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    assert "0 answered, 1 already in" in again.output

    report = runner.invoke(app, ["report", str(out), "--md", str(tmp_path / "report.md")])
    assert report.exit_code == 0, report.output
    assert "| cot · SmolLM2-135M-Instruct · T0 | 1 | 1 |" in (tmp_path / "report.md").read_text(encoding="utf-8")
