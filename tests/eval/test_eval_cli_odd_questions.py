"""`arkg eval` over questions that trip a strategy up: each is answered or fails on its own record, and
the evaluation goes on. The model is scripted (arkg.eval.setup.open_model is replaced)."""

from __future__ import annotations

import json
from pathlib import Path

from scripted_eval import write_dataset
from test_eval_cli_outcomes import ModelBox, claim_number, eval_args, model, records  # noqa: F401
from typer.testing import CliRunner

from arkg.cli import app
from arkg.cli.errors import EXIT_INTERRUPTED
from arkg.cli.evaluate import EXIT_FAILED_QUESTIONS
from arkg.llm.testing import valid_reply

runner = CliRunner()


def test_a_question_holding_nul_is_answered_like_the_others(model: ModelBox, tmp_path: Path) -> None:  # noqa: F811
    """ARK searches the question's KG with the question's text: a NUL in it is just another character."""
    dataset, out = write_dataset(tmp_path / "claims.json", 3), tmp_path / "r.jsonl"
    entries = json.loads(dataset.read_text(encoding="utf-8"))
    entries[1]["query"] = "Is claim number 2\x00 true?"
    dataset.write_text(json.dumps(entries), encoding="utf-8")
    model.reply = lambda messages, output, sampling: valid_reply(output)
    result = runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "ark", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [(record["question_id"], record["error"]) for record in records(out)] == [("C1", None), ("C2", None), ("C3", None)]
    assert "3 answered, 0 already in" in result.output


def test_an_unexpected_error_fails_only_its_question(model: ModelBox, tmp_path: Path) -> None:  # noqa: F811
    """A failure that is no arkg error (a bug) is kept in the record of the question it hit, with the
    error's type; the other questions are answered and the exit status says some failed."""
    dataset, out = write_dataset(tmp_path / "claims.json", 4), tmp_path / "r.jsonl"

    def breaks_on_2(messages, output, sampling):
        if claim_number(messages) == 2:
            raise RuntimeError("unterminated string")
        return {"reasoning": "r", "answer": "True"}

    model.reply = breaks_on_2
    result = runner.invoke(app, eval_args(dataset, out))
    assert result.exit_code == EXIT_FAILED_QUESTIONS, result.output
    errors = {record["question_id"]: record["error"] for record in records(out)}
    assert errors == {"C1": None, "C2": "internal error (RuntimeError: unterminated string)", "C3": None, "C4": None}
    assert "1 question(s) ended in an error" in result.output


def test_ctrl_c_inside_a_question_stops_the_evaluation_rather_than_failing_the_question(model: ModelBox, tmp_path: Path) -> None:  # noqa: F811
    dataset, out = write_dataset(tmp_path / "claims.json", 3), tmp_path / "r.jsonl"

    def interrupted_on_2(messages, output, sampling):
        if claim_number(messages) == 2:
            raise KeyboardInterrupt
        return {"reasoning": "r", "answer": "True"}

    model.reply = interrupted_on_2
    result = runner.invoke(app, eval_args(dataset, out))
    assert result.exit_code == EXIT_INTERRUPTED, result.output
    assert [(record["question_id"], record["error"]) for record in records(out)] == [("C1", None)]
