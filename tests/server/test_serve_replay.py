"""Replaying saved runs: `arkg ask --trace` files and `arkg eval` results files, from one folder only."""

from __future__ import annotations

import json
import os

import pytest
from fastapi.testclient import TestClient
from support.serving import SAMPLE_QUESTION, curie_model, read_events

from arkg.eval.results import Record, ResultsWriter, RunConfig
from arkg.server import ServerConfig, create_app
from arkg.session import Session


def without_latency(value):
    if isinstance(value, dict):
        return {name: without_latency(item) for name, item in value.items() if name != "latency_s"}
    if isinstance(value, list):
        return [without_latency(item) for item in value]
    return value


@pytest.fixture
def saved(tmp_path):
    """A trace folder holding one ask trace and one results file of two records, and a secret beside it."""
    folder = tmp_path / "traces"
    (folder / "eval").mkdir(parents=True)
    with Session(model=curie_model()) as session:
        result = session.ask(SAMPLE_QUESTION)
    (folder / "ask.json").write_text(result.model_dump_json(indent=2))  # as `arkg ask --trace` writes it
    config = RunConfig(dataset="d.json", dataset_sha256="0" * 64, kg="sample", strategy="ark", model="scripted", temperature=0, seed=0, max_tokens=256)
    with ResultsWriter(folder / "eval" / "run.jsonl", config) as writer:
        for run, correct in ((1, True), (2, False)):
            writer.append(
                Record(
                    question_id="q1", run=run, seed=run, strategy="ark", model="scripted", settings={}, answer=True,
                    gold=correct, correct=correct, reasoning_strategies=[], explanation=result.explanation,
                    usage=result.usage, elapsed_s=0.1, stop_reason=result.stop_reason, trace=result.trace.model_dump(mode="json"),
                )
            )
    (tmp_path / "secret.json").write_text(result.model_dump_json())
    (folder / ".hidden.json").write_text(result.model_dump_json())
    (folder / "link.json").symlink_to(tmp_path / "secret.json")
    (folder / "notes.txt").write_text("not a trace")
    (folder / "list.json").write_text("[1, 2]")
    (folder / "broken.json").write_text("{oops")
    return folder


@pytest.fixture
def client(saved):
    with TestClient(create_app(Session(model=curie_model()), ServerConfig(traces=saved)), base_url="http://127.0.0.1") as client:
        yield client


def test_the_folder_lists_trace_and_results_files_only(client):
    names = [item["name"] for item in client.get("/api/traces").json()]
    assert names == ["ask.json", "broken.json", "list.json", "eval/run.jsonl"]


def test_a_replayed_ask_trace_has_the_same_steps_as_the_live_run(client):
    run = client.post("/api/runs", json={"question": SAMPLE_QUESTION}).json()
    with client.stream("GET", run["events"]) as response:
        live = [data for kind, data in read_events(response) if kind == "step"]
    assert client.get("/api/traces/runs", params={"name": "ask.json"}).json() == [{"index": 0, "label": SAMPLE_QUESTION, "answer": True}]
    replay = client.get("/api/traces/replay", params={"name": "ask.json"}).json()
    assert without_latency(replay["steps"]) == without_latency(live)  # two runs: only the timings differ
    assert replay["result"]["answer"] is True and replay["model"] == "scripted"
    assert [t["tail"] for t in replay["result"]["cited"]] == ["Warsaw"]


def test_a_results_file_replays_any_of_its_records(client):
    runs = client.get("/api/traces/runs", params={"name": "eval/run.jsonl"}).json()
    assert [(run["label"], run["correct"]) for run in runs] == [("q1 (run 1)", True), ("q1 (run 2)", False)]
    replay = client.get("/api/traces/replay", params={"name": "eval/run.jsonl", "index": 1}).json()
    assert (replay["question_id"], replay["run"], replay["gold"], replay["correct"]) == ("q1", 2, False, False)
    assert replay["result"]["question"] == SAMPLE_QUESTION and len(replay["steps"]) == 7
    assert [t["tail"] for t in replay["result"]["cited"]] == ["Warsaw"]
    assert replay["result"]["stop_reason"] == "the model stopped exploring"
    missing = client.get("/api/traces/replay", params={"name": "eval/run.jsonl", "index": 2})
    assert missing.status_code == 404 and "holds 2 records" in missing.json()["error"]


@pytest.mark.parametrize(
    "name",
    ["../secret.json", "eval/../../secret.json", "/etc/hosts", "link.json", ".hidden.json", "notes.txt", "", "eval\\..\\..\\secret.json", "missing.json"],
)
def test_nothing_outside_the_folder_or_of_another_type_is_read(client, name, saved):
    for path in ("/api/traces/runs", "/api/traces/replay"):
        response = client.get(path, params={"name": name})
        assert response.status_code == 404, (path, name)
        assert "no trace file" in response.json()["error"]


@pytest.mark.parametrize(("name", "message"), [("list.json", "neither a trace file"), ("broken.json", "not JSON")])
def test_a_file_that_is_no_trace_says_so(client, name, message):
    response = client.get("/api/traces/replay", params={"name": name})
    assert response.status_code == 422 and message in response.json()["error"]


def test_a_changed_file_is_read_again(client, saved):
    assert len(client.get("/api/traces/runs", params={"name": "eval/run.jsonl"}).json()) == 2
    path = saved / "eval" / "run.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")
    os.utime(path, ns=(1, 1))  # a different modification time, whatever the clock's resolution
    assert len(client.get("/api/traces/runs", params={"name": "eval/run.jsonl"}).json()) == 1
    assert json.loads(lines[0])["format"] == "arkg-eval/1"
