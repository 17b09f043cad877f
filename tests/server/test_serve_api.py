"""The HTTP API through the framework's test client, over the sample KG and the scripted model."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient
from support.serving import SAMPLE_QUESTION, curie_model, read_events

from arkg.llm.scripted import ScriptedModel
from arkg.server import Limits, ServerConfig, create_app
from arkg.server.assets import vis_network_folder
from arkg.server.steps import edge_id
from arkg.session import Session

BASE = "http://127.0.0.1"


def make_client(model=None, **config) -> TestClient:
    session = Session(model=model or curie_model())
    return TestClient(create_app(session, ServerConfig(**config)), base_url=BASE)


@pytest.fixture
def client():
    with make_client() as client:
        yield client


def ask(client: TestClient, question: str = SAMPLE_QUESTION, **fields) -> dict:
    response = client.post("/api/runs", json={"question": question, **fields})
    assert response.status_code == 202, response.text
    return response.json()


def wait_for(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def curie_dates_model() -> ScriptedModel:
    """ARK reads both Curies' dates of birth, one step each, and answers yes."""
    return ScriptedModel.from_replies(
        [
            "Pierre Curie", "date of birth", {"cited_keys": ["T1"], "implication": "Born 15 May 1859.", "continue_exploring": True},
            "Marie Curie", "date of birth", {"cited_keys": ["T2"], "implication": "Born 7 November 1867.", "continue_exploring": False},
            {"explanation": "15 May 1859 is before 7 November 1867.", "answer": "yes"},
        ]
    )  # fmt: skip


def test_the_result_shows_the_lines_computed_for_the_answer_when_the_setting_is_on():
    with make_client(model=curie_dates_model()) as client:
        run = ask(client, "Was Pierre Curie born before Marie Curie?", settings={"compare_values": True})
        with client.stream("GET", run["events"]) as response:
            _, end = read_events(response)[-1]
    assert end["result"]["answer"] is True
    assert end["result"]["computed"] == [
        "Earliest date of birth cited: Pierre Curie (15 May 1859); latest: Marie Curie (7 November 1867).",
        "(Pierre Curie, date of birth, 15 May 1859) and (Marie Curie, date of birth, 7 November 1867): 15 May 1859 is before 7 November 1867.",
    ]


def test_ask_streams_each_event_then_the_result_with_its_trace(client):
    run = ask(client)
    assert run["state"] in ("queued", "running") and run["strategy"] == "ark"
    with client.stream("GET", run["events"]) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = read_events(response)
    steps = [data for kind, data in events if kind == "step"]
    assert [step["kind"] for step in steps] == ["anchor", "relations", "relation", "triples", "reasoning", "cleanup", "answer"]
    assert [step["index"] for step in steps] == list(range(1, 8))
    end_kind, end = events[-1]
    assert end_kind == "end" and end["state"] == "done" and end["result"]["answer"] is True
    warsaw = {"head": "Marie Curie", "relation": "place of birth", "tail": "Warsaw", "props": {}}
    assert [(t["head"], t["relation"], t["tail"]) for t in end["result"]["cited"]] == [("Marie Curie", "place of birth", "Warsaw")]
    assert end["result"]["computed"] == []  # compare_values is off by default

    finished = client.get(run["result_url"]).json()
    assert finished["state"] == "done" and finished["steps"] == 7
    assert finished["result"]["cited_triples"] == [warsaw]
    assert [step["event"] for step in steps] == finished["result"]["trace"]["events"]


def test_steps_carry_the_anchor_the_relation_followed_and_the_cited_edge(client):
    run = ask(client)
    with client.stream("GET", run["events"]) as response:
        steps = {data["kind"]: data for kind, data in read_events(response) if kind == "step"}
    warsaw = edge_id({"head": "Marie Curie", "relation": "place of birth", "tail": "Warsaw", "props": {}})
    assert steps["anchor"]["graph"]["anchor"] == "Marie Curie"
    assert steps["relation"]["graph"]["relation"] == {"entity": "Marie Curie", "relation": "place of birth"}
    assert [(t["id"], t["key"]) for t in steps["triples"]["graph"]["triples"]] == [(warsaw, "T1")]
    assert steps["reasoning"]["graph"]["cited"] == [warsaw]
    assert steps["answer"]["graph"]["cited"] == [warsaw]
    assert "T1: (Marie Curie, place of birth, Warsaw)" in steps["triples"]["text"]  # as `arkg ask` prints it


def test_strategy_settings_and_budget_come_with_the_request(client):
    run = ask(client, strategy="kaping", settings={"k": 2}, max_calls=1)
    assert run["strategy"] == "kaping" and run["settings"]["k"] == 2
    with client.stream("GET", run["events"]) as response:
        events = read_events(response)
    finished = client.get(run["result_url"]).json()["result"]
    assert finished["strategy"] == "kaping" and finished["usage"]["calls"] == 1
    assert len(next(data for kind, data in events if kind == "step" and data["kind"] == "facts")["graph"]["triples"]) == 2


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"question": "Was Marie Curie born in Warsaw?", "strategy": "oracle"}, 422, "unknown strategy 'oracle'; choose one of: ark"),
        ({"question": "   "}, 422, "question: it is empty"),
        ({"question": "x" * 1001}, 422, "question: 1,001 characters; this server takes at most 1,000"),
        ({"question": "Why?", "settings": {"k_maximum": 3}}, 422, "strategy 'ark' has no setting 'k_maximum'"),
        ({"question": "Why?", "settings": {"k_max": 0}}, 422, "strategy 'ark': invalid setting (k_max:"),
        ({"question": "Why?", "max_calls": 65}, 422, "max_calls: 65 asked; this server allows at most 64 per run"),
        ({"question": "Why?", "temperature": 3}, 422, "temperature: Input should be less than or equal to 2"),
        ({"question": "Why?", "colour": "red"}, 422, "colour: Extra inputs are not permitted"),
        ({}, 422, "question: Field required"),
    ],
)
def test_a_bad_request_is_refused_with_a_json_error_that_says_what_to_fix(client, body, status, message):
    response = client.post("/api/runs", json=body)
    assert response.status_code == status
    assert response.json()["status"] == status and message in response.json()["error"]
    assert client.get("/api/info").json()["queued"] == 0


def test_a_body_that_is_not_json_is_refused(client):
    response = client.post("/api/runs", content=b"{question", headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["error"] == "the request body is not valid JSON"


def test_an_oversized_body_is_refused_before_it_is_read(client):
    big = {"question": "Why?", "settings": {"note": "x" * 70_000}}
    response = client.post("/api/runs", json=big)
    assert response.status_code == 413 and "over 65,536 bytes" in response.json()["error"]

    def chunks():  # no Content-Length: the limit still holds
        for _ in range(20):
            yield b"x" * 5000

    response = client.post("/api/runs", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_an_unknown_run_or_route_is_a_json_404(client):
    response = client.get("/api/runs/nope")
    assert response.status_code == 404 and "no run 'nope'" in response.json()["error"]
    assert client.get("/api/nothing").json() == {"error": "Not Found", "status": 404}


def test_entities_are_searched_and_their_edges_listed_with_props(client):
    names = [match["name"] for match in client.get("/api/entities", params={"q": "curie"}).json()]
    assert {"Marie Curie", "Pierre Curie"} <= set(names)
    edges = client.get("/api/edges", params={"entity": "Pierre Curie"}).json()
    spouse = [e for e in edges["incoming"] if e["relation"] == "spouse"]
    assert spouse == [
        {
            "id": spouse[0]["id"],
            "key": None,
            "head": "Marie Curie",
            "relation": "spouse",
            "tail": "Pierre Curie",
            "props": {"start time": "1895", "end time": "1906"},
            "incoming": False,
        }
    ]
    assert all(e["head"] == "Pierre Curie" for e in edges["outgoing"]) and edges["not_shown"] == 0
    limited = client.get("/api/edges", params={"entity": "Marie Curie", "limit": 2}).json()
    assert len(limited["outgoing"]) == 2 and limited["not_shown"] > 0


def test_an_unknown_entity_is_a_404_that_suggests_names(client):
    response = client.get("/api/edges", params={"entity": "Marie Curi"})
    assert response.status_code == 404
    assert response.json()["error"] == "Entity 'Marie Curi' is not in the knowledge graph. Did you mean: Marie Curie?"


def test_info_names_the_model_the_strategies_and_the_limits(client):
    info = client.get("/api/info").json()
    assert info["model"] == "scripted" and info["strategy"] == "ark" and info["kg"] == "the sample KG"
    strategies = {item["name"]: item for item in info["strategies"]}
    assert "k_max" in strategies["ark"]["settings"]["properties"]
    assert info["limits"]["queue_size"] == 8


def test_a_full_queue_answers_503_with_retry_after():
    gate = threading.Event()
    with make_client(curie_model(gate=gate), limits=Limits(queue_size=1)) as client:
        first = ask(client)
        wait_for(lambda: client.get(first["result_url"]).json()["state"] == "running")
        second = ask(client)
        assert second["position"] == 1
        refused = client.post("/api/runs", json={"question": SAMPLE_QUESTION})
        assert refused.status_code == 503 and "busy" in refused.json()["error"]
        assert int(refused.headers["Retry-After"]) >= 1
        gate.set()
        for run in (first, second):
            wait_for(lambda: client.get(run["result_url"]).json()["state"] == "done")
        assert ask(client)["state"] in ("queued", "running")  # room again


def test_a_client_that_disconnects_cancels_its_run():
    gate = threading.Event()
    model = curie_model(gate=gate)
    with make_client(model) as client:
        run = ask(client)
        wait_for(lambda: len(model.calls) == 1)  # the run is inside its first model call
        with client.stream("GET", run["events"]):
            pass  # the client goes away before the run ends
        assert client.get(run["result_url"]).json()["state"] == "running"
        gate.set()
        wait_for(lambda: client.get(run["result_url"]).json()["state"] == "cancelled")
        view = client.get(run["result_url"]).json()
        assert view["error"] == "cancelled: its client disconnected" and view["result"] is None
    assert len(model.calls) == 1  # stopped before its next model call


def test_a_queued_run_whose_client_disconnects_leaves_the_queue():
    gate = threading.Event()
    model = curie_model(gate=gate)
    with make_client(model) as client:
        first = ask(client)
        queued = ask(client)
        with client.stream("GET", queued["events"]):
            pass
        view = client.get(queued["result_url"]).json()
        assert view["state"] == "cancelled" and client.get("/api/info").json()["queued"] == 0
        with client.stream("GET", queued["events"]) as response:  # a late follower just hears the end
            assert read_events(response) == [("end", {"id": queued["id"], "state": "cancelled", "error": view["error"], "model": None, "result": None})]
        gate.set()
        wait_for(lambda: client.get(first["result_url"]).json()["state"] == "done")


def test_delete_cancels_a_run():
    gate = threading.Event()
    with make_client(curie_model(gate=gate)) as client:
        running = ask(client)
        queued = ask(client)
        assert client.delete(queued["result_url"]).json()["state"] == "cancelled"
        client.delete(running["result_url"])
        gate.set()
        wait_for(lambda: client.get(running["result_url"]).json()["state"] == "cancelled")
        assert client.get(running["result_url"]).json()["error"] == "cancelled on request"


def test_finished_runs_are_forgotten_beyond_the_limit():
    with make_client(limits=Limits(keep_runs=2)) as client:
        runs = [ask(client) for _ in range(4)]
        wait_for(lambda: client.get(runs[-1]["result_url"]).json().get("state") == "done")
        assert client.get(runs[0]["result_url"]).status_code == 404
        assert client.get(runs[-2]["result_url"]).json()["state"] == "done"


def test_a_token_is_required_when_configured():
    with make_client(token="s3cret") as client:
        refused = client.get("/api/info")
        assert refused.status_code == 401 and "token" in refused.json()["error"]
        assert client.get("/", follow_redirects=False).status_code == 401
        assert client.get("/api/info", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/api/info", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        opened = client.get("/?token=s3cret", follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        assert "httponly" in opened.headers["set-cookie"].lower()
        assert client.get("/api/info").status_code == 200  # the page's cookie now carries it


def test_a_loopback_server_refuses_other_host_names(client):
    # DNS rebinding: a page of another site that resolves its name to 127.0.0.1 gets nothing.
    assert client.get("/api/info", headers={"host": "attacker.example"}).status_code == 400
    assert client.get("/api/info", headers={"host": "localhost:8000"}).status_code == 200


def test_the_page_and_its_files_come_from_this_server_only(client):
    page = client.get("/")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    for path in ("/vendor/vis-network/vis-network.min.js", "/vendor/vis-network/vis-network.css", "/static/app.js", "/static/app.css"):
        response = client.get(path)
        assert response.status_code == 200, path
    served = client.get("/vendor/vis-network/vis-network.min.js").content
    assert served == (vis_network_folder() / "vis-network.min.js").read_bytes() and b"@version 9." in served[:300]
    for text in (page.text, client.get("/static/app.js").text):
        assert "http:" not in text and "https:" not in text and "//cdn" not in text


def test_the_openapi_page_documents_the_api_offline(client):
    schema = client.get("/api/openapi.json").json()
    assert {"/api/runs", "/api/runs/{run_id}", "/api/runs/{run_id}/events", "/api/entities", "/api/edges", "/api/traces"} <= set(schema["paths"])
    docs = client.get("/api/docs").text
    assert "/api/docs-files/swagger-ui-bundle.js" in docs and "cdn" not in docs
    assert client.get("/api/docs-files/swagger-ui-bundle.js").status_code == 200
