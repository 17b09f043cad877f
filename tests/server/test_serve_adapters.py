"""`arkg serve` with no --model: each run answers with the adapter tuned for its strategy, all of them
on one loaded bundled model."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from support.serving import SAMPLE_QUESTION, read_events

from arkg.server import ServerConfig, create_app
from arkg.session import Session

pytestmark = pytest.mark.slow

# The model each run's trace records, by strategy: llama.cpp names it BASE.gguf+ADAPTER.gguf.
BASE = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"
EXPECTED = {
    "kg-agent": (f"{BASE}+smollm2-135m-arkg-kg-agent-lora.gguf", "SmolLM2-135M-Instruct + tuned-kg-agent (the adapter tuned for kg-agent)"),
    "ark": (f"{BASE}+smollm2-135m-arkg-lora.gguf", "SmolLM2-135M-Instruct + tuned (the adapter tuned for ark)"),
    "cot": (BASE, "SmolLM2-135M-Instruct, no adapter"),
}


def test_each_run_answers_with_its_strategys_adapter_on_one_loaded_model() -> None:
    session = Session(cache=False)
    with TestClient(create_app(session, ServerConfig()), base_url="http://127.0.0.1") as client:
        # KG-Agent, ARK, CoT, then KG-Agent again: every run after the first switches the adapter.
        order = [*EXPECTED, "kg-agent"]
        runs = []
        for strategy in order:
            response = client.post("/api/runs", json={"question": SAMPLE_QUESTION, "strategy": strategy, "max_calls": 1})
            assert response.status_code == 202, response.text
            runs.append(response.json())
        for strategy, run in zip(order, runs):
            with client.stream("GET", run["events"]) as stream:
                kind, end = read_events(stream)[-1]
            assert kind == "end" and end["state"] == "done", end
            result = client.get(run["result_url"]).json()["result"]
            name, label = EXPECTED[strategy]
            assert (result["strategy"], result["trace"]["model"], end["model"]) == (strategy, name, label)
    assert session.model_for("ark").llama is session.model_for("kg-agent").llama is session.model_for("cot").llama
