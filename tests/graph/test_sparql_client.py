"""The SPARQL protocol client against a real local HTTP server that misbehaves on cue."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from arkg import __version__
from arkg.errors import ArkgError
from arkg.graph.sparql import SparqlClient, SparqlError
from arkg.graph.sparql.terms import Term

ROW = {"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "hi", "xml:lang": "en"}}]}}


class Script:
    """What the server answers next: a queue of (status, body, headers); the last one repeats."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, bytes, dict[str, str]]] = [(200, json.dumps(ROW).encode(), {})]
        self.requests: list[tuple[dict[str, str], dict[str, list[str]]]] = []
        self.delay = 0.0

    def next_reply(self) -> tuple[int, bytes, dict[str, str]]:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            script.requests.append((dict(self.headers), parse_qs(body)))
            time.sleep(script.delay)
            status, payload, headers = script.next_reply()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return None

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/sparql", script
    httpd.shutdown()
    httpd.server_close()


def _client(url: str, sleeps: list[float], **options: float) -> SparqlClient:
    return SparqlClient(url, sleep=sleeps.append, **options)


def test_select_posts_the_query_with_json_accept_and_a_descriptive_user_agent(server) -> None:
    url, script = server
    rows = _client(url, []).select("SELECT ?x WHERE {}")
    assert rows == [{"x": Term("literal", "hi", None, "en")}]
    headers, form = script.requests[0]
    assert form == {"query": ["SELECT ?x WHERE {}"]}
    assert headers["Accept"] == "application/sparql-results+json"
    assert f"arkg/{__version__}" in headers["User-Agent"] and "https://" in headers["User-Agent"]


def test_results_are_cached_per_query_text(server) -> None:
    url, script = server
    client = _client(url, [])
    assert client.select("SELECT 1") == client.select("SELECT 1")
    client.select("SELECT 2")
    assert len(script.requests) == 2


def test_transient_failures_are_retried_with_exponential_backoff(server) -> None:
    url, script = server
    script.replies[:0] = [(503, b"busy", {}), (502, b"gateway", {})]
    sleeps: list[float] = []
    assert _client(url, sleeps, backoff=0.25).select("SELECT ?x {}")[0]["x"].value == "hi"
    assert sleeps == [0.25, 0.5]
    assert len(script.requests) == 3


def test_retry_after_is_honoured_up_to_a_bound(server) -> None:
    url, script = server
    script.replies[:0] = [(429, b"slow down", {"Retry-After": "7"}), (429, b"slow down", {"Retry-After": "999"})]
    sleeps: list[float] = []
    _client(url, sleeps, backoff=0.1, max_wait=20).select("SELECT ?x {}")
    assert sleeps == [7.0, 20]


def test_retry_after_as_an_http_date_is_honoured_up_to_the_bound(server) -> None:
    url, script = server
    now = datetime.now(timezone.utc)
    soon, late = (format_datetime(now + timedelta(seconds=delta), usegmt=True) for delta in (9, 600))
    script.replies[:0] = [(503, b"busy", {"Retry-After": soon}), (503, b"busy", {"Retry-After": late})]
    sleeps: list[float] = []
    _client(url, sleeps, backoff=0.1, max_wait=20).select("SELECT ?x {}")
    assert 7 <= sleeps[0] <= 9 and sleeps[1] == 20  # an HTTP date has whole seconds
    assert len(script.requests) == 3


def test_retries_are_bounded(server) -> None:
    url, script = server
    script.replies = [(503, b"down for maintenance", {})]
    sleeps: list[float] = []
    with pytest.raises(SparqlError, match="HTTP 503: down for maintenance"):
        _client(url, sleeps, retries=2).select("SELECT ?x {}")
    assert len(sleeps) == 2 and len(script.requests) == 3


def test_a_redirect_is_followed_with_the_query(server) -> None:
    url, script = server
    script.replies[:0] = [(307, b"", {"Location": url + "?moved=1"})]
    assert _client(url, []).select("SELECT ?x {}")[0]["x"].value == "hi"
    assert [form for _, form in script.requests] == [{"query": ["SELECT ?x {}"]}] * 2


def test_a_rejected_query_fails_at_once_with_the_server_message(server) -> None:
    url, script = server
    script.replies = [(400, b"Parse error at line 1", {})]
    with pytest.raises(SparqlError, match="HTTP 400: Parse error at line 1"):
        _client(url, []).select("SELEKT")
    assert len(script.requests) == 1


def test_a_slow_server_times_out_after_bounded_retries(server) -> None:
    url, script = server
    script.delay = 0.5
    with pytest.raises(SparqlError, match="no answer after 2 tries"):
        _client(url, [], timeout=0.1, retries=1).select("SELECT ?x {}")


def test_an_unreachable_endpoint_is_reported(server) -> None:
    url, _ = server
    closed = url.rsplit(":", 1)[0] + ":9/sparql"
    with pytest.raises(SparqlError, match="no answer after 1 tries"):
        _client(closed, [], retries=0).ask("ASK {}")


def test_answers_that_are_not_sparql_json_are_reported(server) -> None:
    url, script = server
    script.replies = [(200, b"<html>maintenance</html>", {})]
    with pytest.raises(SparqlError, match="not SPARQL JSON"):
        _client(url, []).select("SELECT ?x {}")
    script.replies = [(200, b'{"head": {}}', {})]
    with pytest.raises(SparqlError, match="malformed ASK result"):
        _client(url, []).ask("ASK {}")


@pytest.mark.parametrize("endpoint", ["ftp://example.org/sparql", "http://exa mple.org/", "example.org/sparql", "http://x/<"])
def test_endpoint_urls_are_validated(endpoint: str) -> None:
    with pytest.raises(ArkgError, match="not an http"):
        SparqlClient(endpoint)
