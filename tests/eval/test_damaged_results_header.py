"""A results file whose header line was lost (empty, cut short or zeroed by a crash while the file was
created): `arkg eval --resume` writes the run's header in its place and keeps the answers after it;
`arkg report` says how to repair it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

import arkg.eval.setup
from arkg.cli import app
from scripted_eval import scripted_model, write_dataset

QUESTIONS = 4
runner = CliRunner()


@pytest.fixture(autouse=True)
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted model of scripted_eval in place of a real one; wide lines for whole messages."""
    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda *args, **kwargs: scripted_model(0.0))
    monkeypatch.setenv("COLUMNS", "500")


def evaluate(dataset: Path, out: Path, *extra: str) -> Result:
    return runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), *extra])


@pytest.fixture
def finished(tmp_path: Path) -> tuple[Path, Path]:
    """(data set, the results file of a run that answered every question)."""
    dataset = write_dataset(tmp_path / "claims.json", QUESTIONS)
    out = tmp_path / "whole.jsonl"
    assert evaluate(dataset, out).exit_code == 0
    return dataset, out


def cut_short(header: bytes) -> bytes:
    return header[: len(header) // 2]


def zeroed(header: bytes) -> bytes:
    return b"\0" * len(header)


def emptied(header: bytes) -> bytes:
    return b""


def answers(out: Path) -> dict[tuple[str, int], object]:
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    return {(r["question_id"], r["run"]): (r["answer"], r["seed"], r["explanation"]) for r in records}


@pytest.mark.parametrize("damage", [cut_short, zeroed, emptied])
@pytest.mark.parametrize("answered", [2, 0])
def test_resume_replaces_a_lost_header_and_keeps_the_answers(finished: tuple[Path, Path], tmp_path: Path, damage, answered: int) -> None:  # type: ignore[no-untyped-def]
    dataset, whole = finished
    header, *records = whole.read_bytes().splitlines(keepends=True)
    kept = b"".join(records[:answered])
    out = tmp_path / "r.jsonl"
    out.write_bytes(damage(header.rstrip(b"\n")) + b"\n" + kept)

    refused = evaluate(dataset, out)
    assert refused.exit_code == 1 and "already exists: pass --resume to continue it" in refused.output

    report = runner.invoke(app, ["report", str(out)])
    assert report.exit_code == 1, report.output
    assert report.output.count("\n") == 1 and report.output.startswith(f"Error: {out}")
    assert "run again with --resume, writes a new header and keeps its answers" in report.output

    resumed = evaluate(dataset, out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"Note: {out}" in resumed.output and f"keeps the file's {answered} answer(s)" in resumed.output
    assert f"{QUESTIONS - answered} answered, {answered} already in {out}" in resumed.output
    assert out.read_bytes().startswith(header + kept)
    assert answers(out) == answers(whole)


def test_answers_of_another_run_are_not_taken_in_under_a_new_header(finished: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, whole = finished
    header, *records = whole.read_bytes().splitlines(keepends=True)
    out = tmp_path / "r.jsonl"
    out.write_bytes(zeroed(header.rstrip(b"\n")) + b"\n" + b"".join(records[:2]))
    before = out.read_bytes()
    resumed = evaluate(dataset, out, "--resume", "--seed", "5")
    assert resumed.exit_code == 1, resumed.output
    assert "its answers were written by a different evaluation; cannot resume it" in resumed.output
    assert "seed of run 0: file has 0, this run has 5" in resumed.output
    assert out.read_bytes() == before
