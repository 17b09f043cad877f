"""`arkg eval`, through the program's own entry point (its exit status for a bug is 70), over files with
one bad question or line ending: the bad question is a problem and the others are asked; a number
too large is one error line naming the file and line. The model is the scripted TestModel."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import arkg.eval.setup
from arkg.cli import main
from arkg.llm.testing import TestModel
from test_question_formats import KB_LINES, write_lines


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run `arkg ARGS...` as the installed program does (main(), with its last-resort guard); returns
    (exit status, stdout, stderr)."""
    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: TestModel())
    monkeypatch.delenv("ARKG_DEBUG", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["arkg", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        return exited.value.code or 0, captured.out, captured.err

    return run


def evaluate(cli, dataset: Path, out: Path) -> tuple[int, str, str]:
    kb = write_lines(dataset.with_name("kb.txt"), KB_LINES)
    return cli("eval", str(dataset), "--kb", str(kb), "--strategy", "cot", "--out", str(out))


def asked(out: Path) -> list[str]:
    return [json.loads(line)["question_id"] for line in out.read_text(encoding="utf-8").splitlines()[1:]]


def test_a_blank_metaqa_topic_entity_is_skipped_and_the_questions_after_it_are_asked(cli, tmp_path: Path) -> None:
    dataset, out = write_lines(tmp_path / "qa.txt", ["who directed [Kismet]\tWilliam Dieterle", "[ ]\tx", "[Kismet] starred who\tRonald Colman"]), tmp_path / "r.jsonl"
    code, stdout, stderr = evaluate(cli, dataset, out)
    assert code == 0, stdout + stderr
    assert "2 [question] question skipped: the [topic entity] is blank" in stdout
    assert asked(out) == ["1", "3"]


def test_a_question_holding_a_lone_surrogate_is_skipped_and_the_others_are_asked(cli, tmp_path: Path) -> None:
    lines = [
        '{"id": "a", "question": "Who directed Kismet?", "answer": "William Dieterle"}',
        '{"id": "b", "question": "Was \\ud800 born?", "answer": true}',
        '{"id": "c", "question": "Was Kismet released before 1950?", "answer": true}',
    ]
    dataset, out = write_lines(tmp_path / "mine.jsonl", lines), tmp_path / "r.jsonl"
    code, stdout, stderr = evaluate(cli, dataset, out)
    assert code == 0, stdout + stderr
    assert "b [question] question skipped: holds \\ud800, half of a UTF-16 surrogate pair" in stdout
    assert asked(out) == ["a", "c"]


def test_a_question_over_the_length_limit_is_skipped(cli, tmp_path: Path) -> None:
    lines = [json.dumps({"id": id, "question": text, "answer": "Kismet"}) for id, text in (("long", "Which? " * 1_500), ("ok", "Which film?"))]
    dataset, out = write_lines(tmp_path / "mine.jsonl", lines), tmp_path / "r.jsonl"
    code, stdout, stderr = evaluate(cli, dataset, out)
    assert code == 0, stdout + stderr
    assert "long [question] question skipped: 10,499 characters; a question is at most 1,000" in stdout
    assert asked(out) == ["ok"]


@pytest.mark.parametrize(
    ("name", "text", "ids"),
    [
        ("mine.csv", "id,question,answer\rc1,Was Kismet released before 1950?,yes\rc2,Who directed Kismet?,William Dieterle\r", ["c1", "c2"]),
        ("qa.txt", "who directed [Kismet]\tWilliam Dieterle\r[Kismet] starred who\tRonald Colman\r", ["1", "2"]),
    ],
)
def test_a_file_with_cr_line_endings_is_read_line_by_line(cli, tmp_path: Path, name: str, text: str, ids: list[str]) -> None:
    dataset, out = tmp_path / name, tmp_path / "r.jsonl"
    dataset.write_text(text, encoding="utf-8")
    code, stdout, stderr = evaluate(cli, dataset, out)
    assert code == 0, stdout + stderr
    assert asked(out) == ids


def test_a_csv_answer_of_thousands_of_digits_is_one_error_line_naming_file_and_line(cli, tmp_path: Path) -> None:
    dataset, out = write_lines(tmp_path / "mine.csv", ["question,answer", "How many?,1", f"How many more?,{'9' * 5000}"]), tmp_path / "r.jsonl"
    code, stdout, stderr = evaluate(cli, dataset, out)
    assert code == 1, stdout + stderr
    message = " ".join(stderr.split())
    assert f"Error: {dataset}, line 3: the answer is a number with more than 4,300 digits" in message
    assert not out.exists()
