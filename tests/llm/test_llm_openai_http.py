"""OpenAICompatModel against a scripted HTTP server on 127.0.0.1: retries, backoff, fallbacks, re-asks."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel

from arkg.errors import ModelError
from arkg.llm import Choice, Message, OpenAICompatModel, Sampling

QUESTION = [Message(role="system", content="You judge."), Message(role="user", content="Is it so?")]


class Verdict(BaseModel):
    answer: bool
    reason: str


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the assistant message; None with status 200 means "echo nothing"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    error: str = "scripted failure"


@dataclass
class Received:
    at: float
    body: dict[str, Any]


class ScriptedServer:
    """Answers each POST with the next scripted Reply (the last one repeats) and records requests."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.received: list[Received] = []
        script = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                script.received.append(Received(time.monotonic(), body))
                reply = script.replies[min(len(script.received), len(script.replies)) - 1]
                time.sleep(reply.delay_s)
                if reply.status == 200:
                    payload = _chat_completion(reply.content or "")
                else:
                    payload = {"error": {"message": reply.error, "type": "scripted"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _chat_completion(content: str) -> dict[str, Any]:
    return {
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
    }


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def start(*replies: Reply) -> ScriptedServer:
        servers.append(ScriptedServer(list(replies)))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


GOOD = Reply(content='{"answer": true, "reason": "it is"}')


def test_retries_429_and_500_with_exponential_backoff(serve: Any) -> None:
    server = serve(Reply(429), Reply(500), GOOD)
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=3)
    completion = model.complete(QUESTION, Verdict)
    assert completion.value == Verdict(answer=True, reason="it is")
    assert len(server.received) == 3
    first_wait = server.received[1].at - server.received[0].at
    second_wait = server.received[2].at - server.received[1].at
    # 0.5 s then 1 s, each shortened by up to 25 % jitter (upper bounds leave room for a busy machine).
    assert 0.37 <= first_wait < 1.5
    assert 0.74 <= second_wait < 2.5
    assert completion.usage.calls == 1 and completion.usage.prompt_tokens == 11


def test_retry_after_header_sets_the_wait(serve: Any) -> None:
    server = serve(Reply(429, headers={"retry-after": "1.5"}), GOOD)
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=3)
    model.complete(QUESTION, Verdict)
    assert len(server.received) == 2
    assert 1.45 <= server.received[1].at - server.received[0].at < 3  # not the default 0.5 s


def test_retries_are_bounded(serve: Any) -> None:
    server = serve(Reply(503, error="overloaded"))
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=2)
    with pytest.raises(ModelError, match=r"answered HTTP 503.*overloaded") as caught:
        model.complete(QUESTION, Verdict)
    assert server.url in str(caught.value)
    assert len(server.received) == 3


def test_client_errors_are_not_retried(serve: Any) -> None:
    server = serve(Reply(401, error="bad key"))
    model = OpenAICompatModel("m", server.url, api_key_env="ARKG_TEST_KEY", structured="json_schema")
    with pytest.raises(ModelError, match=r"HTTP 401 \(is \$ARKG_TEST_KEY set\?\)"):
        model.complete(QUESTION, Verdict)
    assert len(server.received) == 1


def test_timeout_is_a_model_error(serve: Any) -> None:
    server = serve(Reply(delay_s=2.0, content=GOOD.content))
    model = OpenAICompatModel("m", server.url, structured="json_schema", timeout=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"did not answer within 0.3 s"):
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 1.9  # the reply would come after 2 s


def test_unreachable_server_names_the_url() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    model = OpenAICompatModel("m", url, structured="json_schema", max_retries=1)
    with pytest.raises(ModelError, match=f"Cannot reach {url}"):
        model.complete(QUESTION, Verdict)


def test_json_schema_request_carries_the_schema(serve: Any) -> None:
    server = serve(GOOD)
    model = OpenAICompatModel("m", server.url, structured="json_schema")
    model.complete(QUESTION, Verdict, Sampling(temperature=0.7, top_p=0.9, seed=42, max_tokens=33))
    body = server.received[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == Verdict.model_json_schema()
    assert (body["temperature"], body["top_p"], body["seed"], body["max_tokens"]) == (0.7, 0.9, 42, 33)
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in QUESTION]


def test_auto_falls_back_to_json_mode_once_without_backoff(serve: Any) -> None:
    rejection = Reply(
        500, error="1 validation error: ('body', 'response_format', 'type') Input should be 'json_object'"
    )
    server = serve(rejection, GOOD, GOOD)
    model = OpenAICompatModel("m", server.url, structured="auto", max_retries=3)
    assert model.complete(QUESTION, Verdict).value.answer is True
    assert model.complete(QUESTION, Verdict).value.answer is True
    formats = [r.body["response_format"]["type"] for r in server.received]
    # Had the probe been retried, the second request would have been json_schema again.
    assert formats == ["json_schema", "json_object", "json_object"]
    json_mode = server.received[1].body
    assert json_mode["response_format"]["schema"] == Verdict.model_json_schema()
    system = json_mode["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You judge.")
    assert '"reason"' in system["content"]  # the schema is stated in the prompt
    assert len(json_mode["messages"]) == len(QUESTION)


def test_auto_keeps_json_schema_after_an_unrelated_failure(serve: Any) -> None:
    server = serve(Reply(500, error="GPU on fire"), GOOD, GOOD)
    model = OpenAICompatModel("m", server.url, structured="auto", max_retries=2)
    model.complete(QUESTION, Verdict)
    model.complete(QUESTION, Verdict)
    assert [r.body["response_format"]["type"] for r in server.received] == ["json_schema"] * 3


def test_invalid_reply_is_reasked_with_the_validation_error(serve: Any) -> None:
    server = serve(Reply(content='{"answer": "perhaps"}'), GOOD)
    model = OpenAICompatModel("m", server.url, structured="json_object")
    completion = model.complete(QUESTION, Verdict)
    assert completion.value == Verdict(answer=True, reason="it is")
    assert completion.usage.calls == 2 and completion.usage.prompt_tokens == 22
    reask = server.received[1].body["messages"]
    assert reask[-2] == {"role": "assistant", "content": '{"answer": "perhaps"}'}
    assert reask[-1]["role"] == "user" and "reason" in reask[-1]["content"] and "Field required" in reask[-1]["content"]


def test_reasks_are_bounded(serve: Any) -> None:
    server = serve(Reply(content="not json"))
    model = OpenAICompatModel("m", server.url, structured="json_object", max_reasks=2)
    with pytest.raises(ModelError, match="after 2 re-asks"):
        model.complete(QUESTION, Verdict)
    assert len(server.received) == 3


def test_choice_is_an_enum_and_returns_the_bare_option(serve: Any) -> None:
    options = ['Le "Grand" Café', "東京", "a\\b"]
    server = serve(Reply(content=json.dumps({"choice": "東京"})))
    model = OpenAICompatModel("m", server.url, structured="json_schema")
    completion = model.complete(QUESTION, Choice(options))
    assert completion.value == "東京"
    schema = server.received[0].body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["choice"]["enum"] == options


def test_choice_outside_the_options_is_reasked(serve: Any) -> None:
    server = serve(Reply(content='{"choice": "Paris"}'), Reply(content='{"choice": "Lyon"}'))
    model = OpenAICompatModel("m", server.url, structured="json_schema")
    assert model.complete(QUESTION, Choice(["Lyon", "Nantes"])).value == "Lyon"


def test_concurrent_calls(serve: Any) -> None:
    server = serve(Reply(content='{"answer": true, "reason": "x"}', delay_s=0.2))
    model = OpenAICompatModel("m", server.url, structured="json_schema")
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        completions = list(pool.map(lambda _: model.complete(QUESTION, Verdict), range(8)))
    assert all(c.value == Verdict(answer=True, reason="x") for c in completions)
    assert len(server.received) == 8
    assert time.monotonic() - started < 1.4  # overlapped, not 8 x 0.2 s in a row


def test_request_arguments_show_the_request_of_the_current_mode(serve: Any) -> None:
    server = serve(GOOD)
    sampling = Sampling(seed=5, max_tokens=20)
    schema_mode = OpenAICompatModel("m", server.url, structured="json_schema").request_arguments(
        QUESTION, Verdict, sampling
    )
    json_mode = OpenAICompatModel("m", server.url, structured="json_object").request_arguments(
        QUESTION, Verdict, sampling
    )
    assert (
        schema_mode["response_format"]["type"] == "json_schema"
        and schema_mode["messages"][0]["content"] == "You judge."
    )
    assert (
        json_mode["response_format"]["type"] == "json_object" and "JSON schema" in json_mode["messages"][0]["content"]
    )
    assert schema_mode["seed"] == json_mode["seed"] == 5
    model = OpenAICompatModel("m", server.url, structured="json_object")
    model.complete(QUESTION, Verdict, sampling)
    assert server.received[0].body == model.request_arguments(QUESTION, Verdict, sampling)
