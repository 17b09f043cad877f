"""An evaluation run over a real HTTP server on 127.0.0.1 that sends broken replies for some questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted_server import Reply

from arkg.agents.cot import ChainOfThought
from arkg.eval.colota import Question
from arkg.eval.results import RunConfig, read_results
from arkg.eval.runner import run_evaluation
from arkg.llm import OpenAICompatModel

QUESTIONS = [Question(f"S{i}", f"Did team {i} win?", True, {}, ("sports",), ()) for i in range(1, 5)]
BROKEN = {
    "S1": Reply(body="<html><head><title>502 Bad Gateway</title></head></html>", content_type="text/html"),
    "S2": Reply(body='{"choices": [{"message": {"content": "{\\"reas'),
    "S3": Reply(body=json.dumps({"choices": [{"message": {"role": "assistant"}}]})),
}


def by_question(body: dict[str, Any]) -> Reply:
    asked = body["messages"][-1]["content"]
    for question in QUESTIONS:
        if question.text in asked:
            return BROKEN.get(question.id, Reply(content='{"reasoning": "they did", "answer": "True"}'))
    raise AssertionError(f"no question in {asked!r}")


def test_malformed_replies_fail_their_question_and_the_run_goes_on(serve: Any, tmp_path: Path) -> None:
    """Eval records a malformed reply as that question's error and answers the rest."""
    server = serve(by_question)
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=0)
    config = RunConfig(
        dataset="d.json", dataset_sha256="abc", kg="none", strategy="cot", model=model.name,
        temperature=0.0, seed=0, max_tokens=64,
    )  # fmt: skip
    out = tmp_path / "results.jsonl"
    summary = run_evaluation(QUESTIONS, ChainOfThought(model), config, out)
    assert (summary.done, summary.failed, summary.correct) == (4, 3, 1)
    records = {record.question_id: record for record in read_results(out).records}
    assert records["S4"].error is None and records["S4"].answer is True
    assert records["S1"].error.startswith(f"ModelError: {server.url} sent an HTML page")
    assert "a body that is not JSON" in records["S2"].error
    assert "without content" in records["S3"].error
    assert all(records[q].answer is None for q in ("S1", "S2", "S3"))
