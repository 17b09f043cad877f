"""`arkg questions` end to end: a store file built here, the question file written whole, `arkg eval`
reading it over the same store with the scripted model, the split, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.question_kg import question_kg_store
from typer.testing import CliRunner

from arkg.cli import app
from arkg.eval.datasets import open_dataset


runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return question_kg_store(tmp_path_factory.mktemp("kg"))


def test_questions_are_written_and_arkg_eval_reads_them_over_the_store(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "questions.jsonl"
    made = runner.invoke(app, ["questions", "--db", str(db), "--out", str(out), "--limit", "40"])
    assert made.exit_code == 0, made.output
    assert "Wrote 40 questions" in made.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 40 and {line["split"] for line in lines} == {"test"}
    assert all(line["program"] and line["template"] and line["hops"] >= 1 for line in lines)
    assert not list(tmp_path.glob(".*"))  # no temporary file left beside it
    dataset = open_dataset(out)
    assert len(dataset.questions) == 40
    results = tmp_path / "results.jsonl"
    ran = runner.invoke(app, ["eval", str(out), "--db", str(db), "--strategy", "kg-agent", "--model", "test", "--limit", "3", "--out", str(results)])
    assert ran.exit_code == 0, ran.output
    assert len(results.read_text(encoding="utf-8").splitlines()) >= 3


def test_the_split_keeps_test_anchors_out_of_training(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "questions.jsonl"
    made = runner.invoke(app, ["questions", "--db", str(db), "--out", str(out), "--limit", "60", "--split", "0.3"])
    assert made.exit_code == 0, made.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    test_anchors = {line["entities"][0] for line in lines if line["split"] == "test"}
    train = [line for line in lines if line["split"] == "train"]
    assert test_anchors and train and not any(test_anchors & set(line["entities"]) for line in train)
    # arkg eval scores the held-out side only.
    assert len(open_dataset(out).questions) == len(lines) - len(train)


def test_the_sample_kg_is_a_source(tmp_path: Path) -> None:
    made = runner.invoke(app, ["questions", "--db", "sample", "--out", str(tmp_path / "q.jsonl"), "--limit", "10"])
    assert made.exit_code == 0, made.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--db", "missing.db"], "no such KG store"),
        (["--db", "sample", "--split", "1.5"], "--split is the share"),
        (["--db", "sample", "--out", "no/such/folder/q.jsonl"], "folder no/such/folder does not exist"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, arguments: list[str], message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if "--out" not in arguments:
        arguments = [*arguments, "--out", "q.jsonl"]
    failed = runner.invoke(app, ["questions", *arguments])
    assert failed.exit_code == 1 and message in failed.output
    assert len(failed.output.strip().splitlines()) == 1
    assert not (tmp_path / "q.jsonl").exists()
