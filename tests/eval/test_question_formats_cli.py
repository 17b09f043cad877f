"""`arkg eval` end to end on every question format, with every registered strategy (the model scripted
to give the least reply that fits each request: arkg.llm.testing), over real SQLite stores; batches without gold answers; the KG a
format needs; `arkg report` on predictions that have no gold answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arkg.eval.setup
from arkg.agents import REGISTRY
from arkg.cli import app
from arkg.cli.evaluate import EXIT_FAILED_QUESTIONS
from arkg.llm.testing import TestModel
from test_question_formats import KB_LINES, METAQA_LINES, ROG_ROWS, kb_store, write_jsonl, write_lines

runner = CliRunner()
OPEN_ARKV1 = [
    {"id": f"O{n}", "question": f"Which breed is dog {n}?", "q_entity": {f"dog {n}": ""}, "a_entity": ["dachshund"],
     "graph": [[f"dog {n}", "dachshund", {"relation": "animal breed"}]]}
    for n in (1, 2, 3)
]  # fmt: skip


def question_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "mine.jsonl", [
        {"id": "q1", "question": "Who directed Kismet?", "answer": "William Dieterle", "entities": ["Kismet"]},
        {"id": "q2", "question": "Was Kismet released before 1950?", "answer": True},
        {"id": "q3", "question": "When was Kismet released?", "answer": 1944},
    ])  # fmt: skip


def csv_file(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "mine.csv", [
        "id,question,answer", "c1,Is Kismet from 1944?,yes", "c2,Which films did Ronald Colman star in?,Kismet|Random Harvest",
    ])  # fmt: skip


def rog_parquet(tmp_path: Path) -> Path:
    pyarrow = pytest.importorskip("pyarrow", reason="parquet needs pyarrow, the `parquet` extra (in dev)")
    import pyarrow.parquet

    path = tmp_path / "test-00000-of-00001.parquet"
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(ROG_ROWS), path)
    return path


# name -> (writes the file, needs the KB store as --db, question ids and gold answers of the first two)
FORMATS = {
    "hand-written JSON lines": (question_file, True, [("q1", ["William Dieterle"]), ("q2", True)]),
    "hand-written CSV": (csv_file, True, [("c1", True), ("c2", ["Kismet", "Random Harvest"])]),
    "RoG JSON lines": (
        lambda tmp: write_jsonl(tmp / "webqsp.jsonl", ROG_ROWS),
        False,
        [("WebQTest-0", ["Jamaican English", "Jamaican Creole English Language"]), ("WebQTest-1", ["Brooklyn Dodgers"])],
    ),
    "RoG parquet": (
        rog_parquet,
        False,
        [("WebQTest-0", ["Jamaican English", "Jamaican Creole English Language"]), ("WebQTest-1", ["Brooklyn Dodgers"])],
    ),
    "ARK-V1 open": (lambda tmp: write_jsonl(tmp / "open.jsonl", OPEN_ARKV1), False, [("O1", ["dachshund"]), ("O2", ["dachshund"])]),
    "MetaQA": (
        lambda tmp: write_lines(tmp / "qa_test.txt", METAQA_LINES),
        True,
        [("1", ["Kismet", "Random Harvest"]), ("2", ["Paris, Texas"])],
    ),
}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: TestModel())


@pytest.fixture
def kb_db(tmp_path: Path) -> Path:
    """A store holding the MetaQA-style KB."""
    with kb_store(tmp_path):
        return tmp_path / "kb.db"


def lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
@pytest.mark.parametrize("name", FORMATS)
def test_arkg_eval_runs_every_format_with_every_strategy(scripted, kb_db: Path, tmp_path: Path, name: str, strategy: str):
    write, needs_kb, expected = FORMATS[name]
    dataset, out = write(tmp_path), tmp_path / "out.jsonl"
    kg = ["--db", str(kb_db)] if needs_kb else []
    result = runner.invoke(app, ["eval", str(dataset), "--strategy", strategy, "--out", str(out), "--limit", "2", *kg])
    header, *records = lines(out)
    assert header["strategy"] == strategy and header["dataset"] == dataset.name
    assert [(record["question_id"], record["gold"]) for record in records] == expected
    # R³ settles yes/no questions only: it refuses an open one, and that question's record says so.
    refused = [record for record in records if record["error"] and "settles yes/no questions" in record["error"]]
    assert all(strategy == "r3" and not isinstance(record["gold"], bool) for record in refused)
    assert all(record["error"] is None for record in records if record not in refused)
    assert result.exit_code == (EXIT_FAILED_QUESTIONS if refused else 0), result.output


def test_a_batch_without_answers_is_answered_and_not_scored_and_report_says_so(scripted, kb_db: Path, tmp_path: Path):
    batch = write_lines(tmp_path / "batch.csv", ["question,entities", "Who directed Kismet?,Kismet", "Who starred in Kismet?,Kismet"])
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["eval", str(batch), "--strategy", "ark", "--db", str(kb_db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "No gold answers in the data set" in result.output and "Results" not in result.output
    _, *records = lines(out)
    assert [(record["question_id"], record["gold"], record["correct"]) for record in records] == [("2", None, False), ("3", None, False)]
    reported = runner.invoke(app, ["report", str(out)])
    assert reported.exit_code == 0, reported.output
    assert "no gold answers" in reported.output and "Results" not in reported.output


def test_a_question_file_without_a_kg_names_the_file_and_the_options_to_give(scripted, tmp_path: Path):
    dataset = question_file(tmp_path)
    result = runner.invoke(app, ["eval", str(dataset), "--strategy", "ark", "--out", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 1
    assert f"{dataset} holds no KG: pass --db" in " ".join(result.output.split())


def test_arkg_kg_load_reads_the_metaqa_kb_and_arkg_eval_runs_on_the_store(scripted, tmp_path: Path):
    kb = write_lines(tmp_path / "kb.txt", KB_LINES)
    loaded = runner.invoke(app, ["kg", "load", str(kb), "--db", str(tmp_path / "movies.db")])
    assert loaded.exit_code == 0, loaded.output
    dataset, out = write_lines(tmp_path / "qa_test.txt", METAQA_LINES), tmp_path / "out.jsonl"
    result = runner.invoke(app, ["eval", str(dataset), "-s", "ark", "--db", str(tmp_path / "movies.db"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [record["gold"] for record in lines(out)[1:]][1:3] == [["Paris, Texas"], ["Crazy, Stupid, Love"]]


def test_metaqa_runs_on_its_kb_file_given_with_kb(scripted, tmp_path: Path):
    kb = write_lines(tmp_path / "kb.txt", KB_LINES)
    dataset, out = write_lines(tmp_path / "qa_test.txt", METAQA_LINES), tmp_path / "out.jsonl"
    result = runner.invoke(app, ["eval", str(dataset), "--strategy", "ark", "--kb", str(kb), "--out", str(out), "--edges", "both"])
    assert result.exit_code == 0, result.output
    assert "answer Paris | Texas read as Paris, Texas" in result.output
    header, *records = lines(out)
    assert header["kg"] == f"kb:{kb}" and len(records) == 4


def test_the_data_set_is_given_once(scripted, tmp_path: Path):
    dataset = question_file(tmp_path)
    twice = runner.invoke(app, ["eval", str(dataset), "--dataset", str(dataset), "-s", "cot", "--out", str(tmp_path / "o.jsonl")])
    assert twice.exit_code == 2 and "give the data set once" in twice.output
    never = runner.invoke(app, ["eval", "-s", "cot", "--out", str(tmp_path / "o.jsonl")])
    assert never.exit_code == 2 and "name the questions to evaluate" in never.output
