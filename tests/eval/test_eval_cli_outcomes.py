"""How `arkg eval` ends: exit status and message for failed questions, a server that is down, bad input;
its progress lines in a log. The model is scripted (arkg.eval.setup.open_model is replaced)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

import arkg.eval.setup
from arkg.cli import app
from arkg.cli.evaluate import EXIT_FAILED_QUESTIONS, EXIT_SERVER_DOWN
from arkg.errors import ModelError, ModelUnavailable
from arkg.llm.scripted import ScriptedModel
from scripted_eval import write_dataset

runner = CliRunner()
SERVER = "http://127.0.0.1:9/v1"


class ModelBox:
    """What `plan_evaluation` opened, and with which options."""

    def __init__(self) -> None:
        self.reply: Callable = lambda messages, output, sampling: {"reasoning": "r", "answer": "True"}
        self.opened: list[dict] = []

    def open(self, spec: str | None = None, **options: object) -> ScriptedModel:
        self.opened.append(options)
        return ScriptedModel(lambda *call: self.reply(*call))


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ModelBox:
    box = ModelBox()
    monkeypatch.setattr(arkg.eval.setup, "open_model", box.open)
    return box


def claim_number(messages) -> int:
    return int(messages[-1].content.split("claim number ")[1].split()[0])


def eval_args(dataset: Path, out: Path, *extra: str) -> list[str]:
    return ["eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), *extra]


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]


def test_failed_questions_exit_non_zero_and_resume_retries_only_those(model: ModelBox, tmp_path: Path) -> None:
    """Questions that ended in an error make `arkg eval` exit 3 and say how to retry them."""
    dataset, out = write_dataset(tmp_path / "claims.json", 5), tmp_path / "r.jsonl"

    def fails_on_2_and_5(messages, output, sampling):
        if claim_number(messages) in (2, 5):
            raise ModelError("no valid JSON in the reply")
        return {"reasoning": "r", "answer": "True"}

    model.reply = fails_on_2_and_5
    first = runner.invoke(app, eval_args(dataset, out))
    assert first.exit_code == EXIT_FAILED_QUESTIONS, first.output
    assert "2 question(s) ended in an error" in first.output
    assert "rerun the same command with --resume to retry only those" in first.output

    asked: list[int] = []

    def answers(messages, output, sampling):
        asked.append(claim_number(messages))
        return {"reasoning": "r", "answer": "True"}

    model.reply = answers
    again = runner.invoke(app, eval_args(dataset, out, "--resume"))
    assert again.exit_code == 0, again.output
    assert sorted(asked) == [2, 5]
    assert "2 answered, 3 already in" in again.output


def test_eval_stops_early_when_the_server_looks_down(model: ModelBox, tmp_path: Path) -> None:
    """After 3 questions in a row could not reach the server, stop with a clear message."""
    dataset, out = write_dataset(tmp_path / "claims.json", 8), tmp_path / "r.jsonl"

    def unreachable(messages, output, sampling):
        raise ModelUnavailable(f"Cannot reach {SERVER} (after 0 retries): Connection refused")

    model.reply = unreachable
    result = runner.invoke(app, eval_args(dataset, out))
    assert result.exit_code == EXIT_SERVER_DOWN, result.output
    message = " ".join(result.output.split())
    assert "the model server looks down: 3 questions in a row could not reach it" in message
    assert SERVER in message and "fix the server and rerun the same command with --resume" in message
    assert len(records(out)) == 3


def test_a_streak_of_unreachable_questions_is_broken_by_an_answer(model: ModelBox, tmp_path: Path) -> None:
    """Only questions failing in a row count; --max-unreachable sets how many."""
    dataset, out = write_dataset(tmp_path / "claims.json", 6), tmp_path / "r.jsonl"

    def every_third_answers(messages, output, sampling):
        if claim_number(messages) % 3:
            raise ModelUnavailable(f"{SERVER} did not answer within 1 s")
        return {"reasoning": "r", "answer": "True"}

    model.reply = every_third_answers
    result = runner.invoke(app, eval_args(dataset, out, "--max-unreachable", "3"))
    assert result.exit_code == EXIT_FAILED_QUESTIONS, result.output
    assert len(records(out)) == 6
    stopped = runner.invoke(app, eval_args(dataset, tmp_path / "r2.jsonl", "--max-unreachable", "2"))
    assert stopped.exit_code == EXIT_SERVER_DOWN
    assert len(records(tmp_path / "r2.jsonl")) == 2


def test_timeout_and_retries_reach_the_model(model: ModelBox, tmp_path: Path) -> None:
    """--timeout and --retries are passed to open_model."""
    dataset = write_dataset(tmp_path / "claims.json", 1)
    result = runner.invoke(app, eval_args(dataset, tmp_path / "r.jsonl", "--timeout", "2.5", "--retries", "0"))
    assert result.exit_code == 0, result.output
    assert model.opened == [{"cache": None, "timeout": 2.5, "retries": 0}]
    bad = runner.invoke(app, eval_args(dataset, tmp_path / "r2.jsonl", "--timeout", "0"))
    assert bad.exit_code == 2 and "0 is not a number of seconds above 0" in bad.output


def test_progress_lines_go_to_a_log(model: ModelBox, tmp_path: Path) -> None:
    """When stderr is no terminal, plain progress lines (done/total, ETA, accuracy) appear."""
    dataset = write_dataset(tmp_path / "claims.json", 4)
    result = runner.invoke(app, eval_args(dataset, tmp_path / "r.jsonl"))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("cot · scripted: ")]
    assert lines[0].startswith("cot · scripted: 0/4 answered (0%) · elapsed 0:00:00 · ETA n/a · acc n/a")
    assert lines[-1].startswith("cot · scripted: 4/4 answered (100%)") and "acc 50.0%" in lines[-1]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([], "the data set has no entries"),
        ([{"id": "C1", "query": "Is it?", "answer": "Is it?"}], "none of its 1 entries is a usable question: C1 [answer]"),
    ],
)
def test_a_data_set_without_usable_questions_is_an_error(model: ModelBox, tmp_path: Path, entries: list, message: str) -> None:
    """`[]` or no usable entry is an error naming the file, before any model is opened."""
    dataset = tmp_path / "empty.json"
    dataset.write_text(json.dumps(entries), encoding="utf-8")
    result = runner.invoke(app, eval_args(dataset, tmp_path / "r.jsonl"))
    assert result.exit_code == 1
    assert f"{dataset}: {message}" in " ".join(result.output.split())
    assert model.opened == [] and not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--temperature", "2.5"], "Invalid value for '--temperature': Input should be less than or equal to 2"),
        (["--ids", ","], "no question id given"),
        (["--limit", "0"], "Invalid value for '--limit': Input should be greater than or equal to 1"),
    ],
)
def test_options_that_select_nothing_or_are_out_of_range_are_refused(
    model: ModelBox, tmp_path: Path, extra: list[str], message: str
) -> None:
    """Temperature within 0-2; --ids and --limit must select something."""
    dataset = write_dataset(tmp_path / "claims.json", 2)
    result = runner.invoke(app, eval_args(dataset, tmp_path / "r.jsonl", *extra))
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert model.opened == []
