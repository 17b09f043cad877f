"""The evaluation runner and its results file, with scripted strategies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.agents.strategy import Result
from arkg.agents.cot import ChainOfThought
from arkg.errors import ArkgError, ModelError
from arkg.eval.colota import Question
from arkg.eval.results import RunConfig, read_results
from arkg.eval.runner import run_evaluation
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel

QUESTIONS = [Question(f"S{i}", f"Question {i}?", i % 2 == 1, {}, ("sports",), ()) for i in range(1, 5)]
CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="gold", strategy="cot", model="scripted",
    temperature=0.7, seed=100, max_tokens=64, settings={"mode": "free"},
)


def always(answer: str, calls: list[Sampling] | None = None):
    def reply(messages, output, sampling):
        if calls is not None:
            calls.append(sampling)
        return {"reasoning": "r", "answer": answer}

    model = ScriptedModel(reply)
    return lambda sampling: ChainOfThought(model, sampling=sampling)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_records_carry_answer_gold_usage_trace_and_seed_per_run(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    seen: list[Sampling] = []
    summary = run_evaluation(QUESTIONS[:2], always("True", seen), CONFIG, out, runs=2, show_progress=False)
    header, *records = lines(out)
    assert header["strategy"] == "cot" and header["format"] == "arkg-eval/1"
    assert [(r["question_id"], r["run"], r["seed"]) for r in records] == [("S1", 0, 100), ("S2", 0, 100), ("S1", 1, 101), ("S2", 1, 101)]
    first = records[0]
    assert (first["answer"], first["gold"], first["correct"]) == (True, True, True)
    assert records[1]["correct"] is False
    assert first["usage"]["calls"] == 1
    assert first["trace"]["raw"] == '{"reasoning": "r", "answer": "True"}'
    assert first["settings"] == {"mode": "free"} and first["model"] == "scripted"
    assert first["reasoning_strategies"] == ["sports"]
    assert {s.temperature for s in seen} == {0.7} and {s.max_tokens for s in seen} == {64}
    assert (summary.done, summary.correct, summary.usage.calls) == (4, 2, 4)


def test_existing_file_needs_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out, show_progress=False)
    with pytest.raises(ArkgError, match="already exists: pass --resume"):
        run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out, show_progress=False)


def test_resume_skips_done_work_and_extends_questions_and_runs(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, show_progress=False)
    seen: list[Sampling] = []
    summary = run_evaluation(QUESTIONS, always("False", seen), CONFIG, out, runs=2, resume=True, show_progress=False)
    assert (summary.skipped, summary.done) == (2, 6)
    answers = {(r["question_id"], r["run"]): r["answer"] for r in lines(out)[1:]}
    assert len(answers) == 8
    assert answers["S1", 0] is True and answers["S3", 0] is False and answers["S1", 1] is False


def test_resume_with_another_config_is_refused_naming_the_differences(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out, show_progress=False)
    other = CONFIG.model_copy(update={"temperature": 0.0, "model": "other"})
    with pytest.raises(ArkgError) as raised:
        run_evaluation(QUESTIONS, always("True"), other, out, resume=True, show_progress=False)
    message = str(raised.value)
    assert "cannot resume" in message
    assert "temperature: file has 0.7, this run has 0.0" in message
    assert "model: file has 'scripted', this run has 'other'" in message


def test_failed_questions_are_recorded_then_retried_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"

    def broken(messages, output, sampling):
        raise ModelError("no valid JSON")

    model = ScriptedModel(broken)
    summary = run_evaluation(QUESTIONS[:2], lambda s: ChainOfThought(model, sampling=s), CONFIG, out, show_progress=False)
    assert summary.failed == 2
    failed = lines(out)[1]
    assert failed["answer"] is None and failed["error"] == "ModelError: no valid JSON"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, resume=True, show_progress=False)
    latest = read_results(out).latest()
    assert [record.answer for record in latest.values()] == [True, True]


def test_cut_off_last_line_is_ignored_and_replaced(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, show_progress=False)
    text = out.read_text(encoding="utf-8")
    out.write_text(text[: len(text) - 40], encoding="utf-8")  # the kill hit the second record
    assert [r.question_id for r in read_results(out).records] == ["S1"]
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, resume=True, show_progress=False)
    assert [r["question_id"] for r in lines(out)[1:]] == ["S1", "S2"]


def test_malformed_line_in_the_middle_is_an_error_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, show_progress=False)
    header, first, second = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([header, "{oops", second]) + "\n", encoding="utf-8")
    with pytest.raises(ArkgError, match=r"r.jsonl, line 2: not a valid record"):
        read_results(out)


def test_concurrent_run_writes_every_question_once(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS, always("True"), CONFIG, out, runs=3, concurrency=4, show_progress=False)
    keys = [(r["question_id"], r["run"]) for r in lines(out)[1:]]
    assert sorted(keys) == sorted((q.id, run) for q in QUESTIONS for run in range(3))


def test_ctrl_c_stops_cleanly_keeping_finished_work(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    calls = 0

    class Interrupting:
        name = "cot"

        def ask(self, question: str) -> Result:
            nonlocal calls
            calls += 1
            if calls == 3:
                raise KeyboardInterrupt
            return Result(strategy="cot", question=question, answer=True)

    summary = run_evaluation(QUESTIONS, lambda s: Interrupting(), CONFIG, out, show_progress=False)
    assert summary.interrupted and summary.done == 2
    assert [r["question_id"] for r in lines(out)[1:]] == ["S1", "S2"]
