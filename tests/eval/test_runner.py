"""The evaluation runner and its results file, with scripted strategies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from arkg.agents.strategy import Result
from arkg.agents.ark import ArkAgent
from arkg.agents.cot import ChainOfThought
from arkg.errors import ArkgError, ModelError
from arkg.eval.colota import Dataset, Question
from arkg.eval.results import RunConfig, read_results
from arkg.eval.runner import RunSummary, StopReason, run_evaluation
from arkg.eval.setup import plan_evaluation
from arkg.graph.open import open_graph
import threading

from arkg.agents import RunKit, RunOptions, RunStopped
from arkg.llm.base import Choice, Message, Sampling
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

    return ChainOfThought(ScriptedModel(reply))


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_records_carry_answer_gold_usage_trace_and_seed_per_run(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    seen: list[Sampling] = []
    summary = run_evaluation(QUESTIONS[:2], always("True", seen), CONFIG, out, runs=2)
    header, *records = lines(out)
    assert header["strategy"] == "cot" and header["format"] == "arkg-eval/1"
    assert [(r["question_id"], r["run"], r["seed"]) for r in records] == [("S1", 0, 100), ("S2", 0, 100), ("S1", 1, 101), ("S2", 1, 101)]
    first = records[0]
    assert (first["answer"], first["gold"], first["correct"]) == (True, True, True)
    assert records[1]["correct"] is False
    assert first["usage"]["calls"] == 1
    assert first["trace"]["events"][0]["call"]["raw"] == '{"reasoning": "r", "answer": "True"}'
    assert first["settings"] == {"mode": "free"} and first["model"] == "scripted"
    assert first["reasoning_strategies"] == ["sports"]
    assert {s.temperature for s in seen} == {0.7} and {s.max_tokens for s in seen} == {64}
    assert (summary.done, summary.correct, summary.usage.calls) == (4, 2, 4)


def test_existing_file_needs_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out)
    with pytest.raises(ArkgError, match="already exists: pass --resume"):
        run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out)


def test_resume_skips_done_work_and_extends_questions_and_runs(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out)
    seen: list[Sampling] = []
    summary = run_evaluation(QUESTIONS, always("False", seen), CONFIG, out, runs=2, resume=True)
    assert (summary.skipped, summary.done) == (2, 6)
    answers = {(r["question_id"], r["run"]): r["answer"] for r in lines(out)[1:]}
    assert len(answers) == 8
    assert answers["S1", 0] is True and answers["S3", 0] is False and answers["S1", 1] is False


def test_resume_with_another_config_is_refused_naming_the_differences(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG, out)
    other = CONFIG.model_copy(update={"temperature": 0.0, "model": "other"})
    with pytest.raises(ArkgError) as raised:
        run_evaluation(QUESTIONS, always("True"), other, out, resume=True)
    message = str(raised.value)
    assert "cannot resume" in message
    assert "temperature: file has 0.7, this run has 0.0" in message
    assert "model: file has 'scripted', this run has 'other'" in message


def test_failed_questions_are_recorded_then_retried_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"

    def broken(messages, output, sampling):
        raise ModelError("no valid JSON")

    model = ScriptedModel(broken)
    summary = run_evaluation(QUESTIONS[:2], ChainOfThought(model), CONFIG, out)
    assert summary.failed == 2
    failed = lines(out)[1]
    assert failed["answer"] is None and failed["error"] == "ModelError: no valid JSON"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, resume=True)
    latest = read_results(out).latest()
    assert [record.answer for record in latest.values()] == [True, True]


def test_a_failed_question_keeps_what_its_strategy_did_before_the_error(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"

    def reply(messages, output, sampling):
        if isinstance(output, Choice):  # the first anchor and relation offered
            return output.options[0]
        raise ModelError("the ReasoningReply JSON was cut off at max_tokens=64")

    question = Question("S1", "Was Marie Curie born in Warsaw?", True, {}, ("geography",), ())
    with open_graph("sample") as kg:
        run_evaluation([question], ArkAgent(kg, ScriptedModel(reply)), CONFIG.model_copy(update={"strategy": "ark"}), out)
    failed = lines(out)[1]
    assert failed["error"] == "ModelError: the ReasoningReply JSON was cut off at max_tokens=64"
    events = failed["trace"]["events"]
    assert [event["kind"] for event in events] == ["anchor", "relations", "relation", "triples"]
    assert events[0]["proposed"] == "Marie Curie" and events[0]["call"]["raw"] == "Marie Curie"


def test_cut_off_last_line_is_ignored_and_replaced(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out)
    text = out.read_text(encoding="utf-8")
    out.write_text(text[: len(text) - 40], encoding="utf-8")  # the kill hit the second record
    assert [r.question_id for r in read_results(out).records] == ["S1"]
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out, resume=True)
    assert [r["question_id"] for r in lines(out)[1:]] == ["S1", "S2"]


def test_malformed_line_in_the_middle_is_an_error_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:2], always("True"), CONFIG, out)
    header, first, second = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([header, "{oops", second]) + "\n", encoding="utf-8")
    with pytest.raises(ArkgError, match=r"r.jsonl, line 2: not a valid record"):
        read_results(out)


def test_concurrent_run_writes_every_question_once(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS, always("True"), CONFIG, out, runs=3, concurrency=4)
    keys = [(r["question_id"], r["run"]) for r in lines(out)[1:]]
    assert sorted(keys) == sorted((q.id, run) for q in QUESTIONS for run in range(3))


def test_ctrl_c_stops_cleanly_keeping_finished_work(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    calls = 0

    class Interrupting:
        name = "cot"

        def ask(self, query, options=None) -> Result:
            nonlocal calls
            calls += 1
            if calls == 3:
                raise KeyboardInterrupt
            return Result(strategy="cot", question=query.text, answer=True)

    summary = run_evaluation(QUESTIONS, Interrupting(), CONFIG, out)
    assert summary.stopped is StopReason.INTERRUPTED and summary.done == 2 and summary.cut_short == 1
    assert [r["question_id"] for r in lines(out)[1:]] == ["S1", "S2"]


def test_progress_callback_sees_each_question_without_drawing(tmp_path: Path) -> None:
    """The runner reports progress through a callback (the CLI draws it)."""
    seen: list[RunSummary] = []
    run_evaluation(QUESTIONS, always("True"), CONFIG, tmp_path / "r.jsonl", on_progress=seen.append)
    assert [s.done for s in seen] == [0, 1, 2, 3, 4, 4]
    assert {s.total for s in seen} == {4}
    assert [s.correct for s in seen][-1] == 2 and seen[-1].running_accuracy == 0.5
    assert seen[0].eta_s is None and seen[-1].eta_s == 0
    assert all(later.elapsed_s >= earlier.elapsed_s for earlier, later in zip(seen, seen[1:]))


def test_the_run_kit_refuses_calls_once_a_stop_is_requested() -> None:
    """The cancellation point is the next model call."""
    inner = ScriptedModel.from_replies(["a", "b"])
    stop = threading.Event()
    kit = RunKit(inner, RunOptions(cancel=stop))
    assert kit.complete([Message(role="user", content="?")], Choice(["a", "b"]), "test")[0] == "a"
    stop.set()
    with pytest.raises(RunStopped) as stopped:
        kit.complete([Message(role="user", content="?")], Choice(["a", "b"]), "test")
    assert stopped.value.cancelled and len(inner.calls) == 1


class TwoCalls:
    """A strategy that makes two model calls per question."""

    name = "cot"

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    def ask(self, query, options=None) -> Result:
        kit = RunKit(self.model, options or RunOptions())
        for _ in range(2):
            kit.complete([Message(role="user", content=query.text)], Choice(["yes"]), "answer")
        return Result(strategy="cot", question=query.text, answer=True)


def test_a_stop_cuts_the_question_in_flight_at_its_next_model_call(tmp_path: Path) -> None:
    """A stop requested during question 2 ends it at its next call; it is not recorded,
    question 1 is, question 3 never starts."""
    out = tmp_path / "r.jsonl"
    stop = threading.Event()

    def reply(messages, output, sampling):
        if messages[-1].content == "Question 2?":
            stop.set()  # as the CLI's Ctrl-C handler does, while this call runs
        return "yes"

    model = ScriptedModel(reply)
    summary = run_evaluation(QUESTIONS, TwoCalls(model), CONFIG, out, stop=stop)
    assert (summary.stopped, summary.done, summary.cut_short) == (StopReason.INTERRUPTED, 1, 1)
    assert [r["question_id"] for r in lines(out)[1:]] == ["S1"]
    assert [call.messages[-1].content for call in model.calls] == ["Question 1?", "Question 1?", "Question 2?"]
    resumed = run_evaluation(QUESTIONS, always("True"), CONFIG, out, resume=True)
    assert (resumed.skipped, resumed.done, resumed.stopped) == (1, 3, None)


def test_temperature_above_2_is_refused_before_anything_loads(tmp_path: Path) -> None:
    """Sampling.temperature is bounded to 0-2, and plan_evaluation checks it first."""
    with pytest.raises(ValidationError):
        Sampling(temperature=2.5)
    with pytest.raises(ArkgError, match="temperature 5.0: Input should be less than or equal to 2"):
        plan_evaluation(tmp_path / "absent.json", "cot", "openai:m@http://127.0.0.1:9/v1", temperature=5.0)


def test_dataset_select_refuses_to_select_nothing(tmp_path: Path) -> None:
    """A limit below 1, or no usable question, selects nothing: an error."""
    dataset = Dataset(path=tmp_path / "d.json", entries=1, questions=QUESTIONS[:1])
    with pytest.raises(ArkgError, match="limit must be at least 1"):
        dataset.select(limit=0)
    with pytest.raises(ArkgError, match="no questions to evaluate"):
        run_evaluation([], always("True"), CONFIG, tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists()


def test_resume_tells_two_models_of_the_same_name_apart(tmp_path: Path) -> None:
    """Two GGUF files of the same name are different models: a results file of one is not resumed with the other."""
    out = tmp_path / "r.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG.model_copy(update={"model_identity": "llamacpp:sha256:aa"}), out)
    other = CONFIG.model_copy(update={"model_identity": "llamacpp:sha256:bb"})
    with pytest.raises(ArkgError, match="model_identity: file has 'llamacpp:sha256:aa'"):
        run_evaluation(QUESTIONS, always("True"), other, out, resume=True)
    # A file from before identities were recorded resumes on the name alone.
    older = tmp_path / "older.jsonl"
    run_evaluation(QUESTIONS[:1], always("True"), CONFIG, older)
    assert run_evaluation(QUESTIONS, always("True"), other, older, resume=True).done == 3
