"""The HTTP API given text no one would type: NUL, lone surrogates, names far too long for a file.
Each is answered, or refused with a JSON error that says why; none is a server error."""

from __future__ import annotations

import pytest
from support.serving import read_events
from test_serve_api import ask, client  # noqa: F401


@pytest.mark.parametrize("query", ["Marie\x00", "\x00Marie Curie", "Ma\x00rie Curie"])
def test_entity_search_takes_nul_like_any_other_character(client, query):  # noqa: F811
    response = client.get("/api/entities", params={"q": query})
    assert response.status_code == 200, response.text
    assert response.json()[0]["name"] == "Marie Curie"


@pytest.mark.parametrize("query", ["\x00", "\x00\x00\x00\x00"])
def test_entity_search_for_nul_alone_finds_nothing(client, query):  # noqa: F811
    response = client.get("/api/entities", params={"q": query})
    assert response.status_code == 200 and response.json() == []


def test_a_question_holding_nul_is_answered(client):  # noqa: F811
    run = ask(client, "Was Marie Curie\x00 born in Warsaw?")
    with client.stream("GET", run["events"]) as response:
        kind, end = read_events(response)[-1]
    assert kind == "end" and end["state"] == "done" and end["error"] is None
    assert end["result"]["answer"] is True


@pytest.mark.parametrize("escaped", ["\\ud800", "Was Marie Curie born in Warsaw?\\udfff", "\\udc00\\ud800"])
def test_a_question_holding_a_lone_surrogate_is_refused_with_a_json_error(client, escaped):  # noqa: F811
    body = '{"question": "' + escaped + '"}'
    response = client.post("/api/runs", content=body.encode(), headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    error = response.json()
    assert error["status"] == 422
    assert error["error"].startswith("question: holds \\u") and "half of a UTF-16 surrogate pair" in error["error"]
    assert client.get("/api/info").json()["queued"] == 0


def test_a_surrogate_pair_is_one_character_and_accepted(client):  # noqa: F811
    body = '{"question": "Was Marie Curie born in Warsaw? \\ud83d\\ude00"}'
    response = client.post("/api/runs", content=body.encode(), headers={"content-type": "application/json"})
    assert response.status_code == 202 and response.json()["question"].endswith("\U0001f600")


@pytest.mark.parametrize("name", ["a" * 5000, "a" * 5000 + ".json", "a" * 300 + ".jsonl", "d/" * 2100 + "x.json"])
@pytest.mark.parametrize("path", ["/api/traces/runs", "/api/traces/replay"])
def test_a_trace_name_too_long_for_a_file_is_not_found(client, path, name):  # noqa: F811
    response = client.get(path, params={"name": name})
    assert response.status_code == 404, response.text
    assert response.json()["status"] == 404 and "no trace file" in response.json()["error"]
