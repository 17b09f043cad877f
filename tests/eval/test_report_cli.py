"""`arkg report` end to end over results files that `arkg eval` wrote with a scripted model: intervals,
constant baselines, the different-question-sets warning, paired tests and the open-question metrics."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import arkg.eval.setup
from arkg.cli import app
from arkg.datasets.geo.questions import GeoQuestion, write_questions
from arkg.graph.model import Triple
from arkg.llm.scripted import ScriptedModel
from scripted_eval import write_dataset

runner = CliRunner()


def scripted(reply):  # type: ignore[no-untyped-def]
    """An `open_model` whose model answers `reply(question text)`."""
    return lambda spec=None, **options: ScriptedModel(
        lambda messages, output, sampling: {"reasoning": "r", "answer": reply(messages[-1].content)}
    )


def evaluate(monkeypatch: pytest.MonkeyPatch, reply, dataset: Path, out: Path, *options: str) -> Path:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(arkg.eval.setup, "open_model", scripted(reply))
    result = runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return out


def test_yes_no_runs_on_different_question_sets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Always True on 10 claims split 5/5 ties the always-True baseline; a second system ran only the
    first 5 claims, which the report warns about and pairs the two on."""
    claims = write_dataset(tmp_path / "claims.json", 10)  # C2, C4, ... are true
    always = evaluate(monkeypatch, lambda text: "True", claims, tmp_path / "always.jsonl")
    right = evaluate(
        monkeypatch, lambda text: str(int(text.split("claim number ")[1].split()[0]) % 2 == 0), claims,
        tmp_path / "right.jsonl", "--limit", "5", "--temperature", "0.7",
    )
    report = runner.invoke(app, ["report", str(always), str(right), "--md", str(tmp_path / "report.md")])
    assert report.exit_code == 0, report.output
    lines = report.stdout.splitlines()
    assert "| cot · scripted · T0 | 1 | 10 | 100.00 | 50.00 (23.7–76.3) | 50.00 (23.7–76.3) | n/a | 10 / 0 / 0 |" in " ".join(lines)
    assert "| cot · scripted · T0.7 | 1 | 5 | 100.00 | 100.00 (56.6–100.0) | 100.00 (56.6–100.0) | n/a | 2 / 3 / 0 |" in " ".join(lines)
    assert "| always True · questions of cot · scripted · T0 | – | 10 | 100.00 | 50.00 (23.7–76.3) | 50.00 (23.7–76.3) |" in " ".join(lines)
    # Paired on C1..C5: always True is right on C2 and C4, the other on all five.
    assert "| cot · scripted · T0 | cot · scripted · T0.7 | 5 | 40.0 | 100.0 | -60.0 | 0 | 3 | 0.250 |" in lines
    [warning] = [line for line in lines if line.startswith("Warning:")]
    assert "2 different question sets (10 questions: cot · scripted · T0; 5 questions: cot · scripted · T0.7)" in warning
    document = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert document.startswith("# Evaluation report\n\n**Warning:** the rows ran on 2 different question sets")
    assert "## Paired comparisons" in document and "## Open questions" not in document


def geo_question(question_id: str, question: str, answer: list[str] | int) -> GeoQuestion:
    return GeoQuestion(
        id=question_id, question=question, answer=answer, answer_type="number" if isinstance(answer, int) else "entities",
        program=[], evidence=[Triple("A", "contains", "Paris")], hops=1, template="cities", kind="lookup", entities=["A"], split="test",
    )


def test_open_questions_get_the_field_s_metrics(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    write_questions([
        geo_question("g1", "Which cities lie in region A?", ["Paris", "Lyon"]),
        geo_question("g2", "Which cities lie in region B?", ["Nice", "Lille"]),
        geo_question("g3", "How many rivers cross region C?", 3),
    ], questions)  # fmt: skip
    replies = {"region A": "Paris and Lyon", "region B": "Lille, Marseille", "region C": "None"}
    out = evaluate(monkeypatch, lambda text: next(a for key, a in replies.items() if key in text), questions, tmp_path / "open.jsonl")
    report = runner.invoke(app, ["report", str(out)])
    assert report.exit_code == 0, report.output
    # g1 exact; g2 one of two right, its first name gold (P = R = F1 = 1/2); g3 unanswered (0 on all).
    # Hits@1 and strict Hits@1 2/3 (Wilson 20.8–93.9), exact match 1/3 (6.1–79.2), P, R and F1 (1 + 1/2 + 0) / 3.
    assert (
        "| cot · scripted · T0 | 1 | 3 | 66.67 (20.8–93.9) | 66.67 (20.8–93.9) | 33.33 (6.1–79.2) | 50.00 | 50.00 | 50.00 |"
        in report.stdout.splitlines()
    )
    # The paper's metrics beside them: 2 of 3 answered, 1 of those right; no yes/no answers, no baselines.
    assert "| cot · scripted · T0 | 1 | 3 | 66.67 | 50.00 (9.5–90.5) | 33.33 (6.1–79.2) | n/a | n/a |" in report.stdout
    assert "always True" not in report.stdout and "Warning:" not in report.stdout
