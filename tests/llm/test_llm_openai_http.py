"""OpenAICompatModel against a scripted HTTP server on 127.0.0.1: retries, backoff, fallbacks, re-asks."""

from __future__ import annotations

import json
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import pytest
from pydantic import BaseModel
from scripted_server import Reply, chat_completion

from arkg.errors import ModelError, ModelUnavailable
from arkg.llm import Choice, Message, OpenAICompatModel, Sampling, open_model

QUESTION = [Message(role="system", content="You judge."), Message(role="user", content="Is it so?")]


class Verdict(BaseModel):
    answer: bool
    reason: str


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


def test_retry_after_as_an_http_date_sets_the_wait(serve: Any) -> None:
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=3), usegmt=True)
    server = serve(Reply(503, headers={"retry-after": later}), GOOD)
    model = OpenAICompatModel("m", server.url, structured="json_schema", timeout=5, max_retries=1)
    model.complete(QUESTION, Verdict)
    assert len(server.received) == 2
    assert 1.5 <= server.received[1].at - server.received[0].at < 4.5  # whole seconds: 2 to 3 s, not 0.5


def test_retries_are_bounded(serve: Any) -> None:
    server = serve(Reply(503, error="overloaded"))
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=2)
    with pytest.raises(ModelUnavailable, match=r"answered HTTP 503: overloaded \(3 attempts in \d\.\d s\)") as caught:
        model.complete(QUESTION, Verdict)
    assert server.url in str(caught.value)
    assert len(server.received) == 3


def test_a_server_error_is_not_a_server_down(serve: Any) -> None:
    server = serve(Reply(500, error="prompt too long"))
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=1)
    with pytest.raises(ModelError, match="HTTP 500: prompt too long") as caught:
        model.complete(QUESTION, Verdict)
    assert not isinstance(caught.value, ModelUnavailable)


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
    with pytest.raises(ModelUnavailable, match=r"did not answer: no reply after 1 attempt in [\d.]+ s \(timeout 0\.3 s per attempt, 0 retries\)"):
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 1.9  # the reply would come after 2 s


HANGS = Reply(delay_s=60, content=GOOD.content)


@pytest.mark.parametrize("structured", ["auto", "json_schema"])
def test_a_hanging_server_costs_what_the_user_set_and_the_message_says_what_it_cost(
    serve: Any, structured: str
) -> None:
    """Retries x timeout, no hidden attempts, and the true time and attempts reported."""
    server = serve(HANGS)
    # Per-attempt limits of a second: on a busy 2-core machine one attempt of 0.4 s was seen taking 1.7 s.
    model = OpenAICompatModel("m", server.url, structured=structured, timeout=1.0, max_retries=2)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as caught:
        model.complete(QUESTION, Verdict)
    elapsed = time.monotonic() - started
    assert elapsed < 1.0 * 3 + 1.5  # the call's limit, and some slack for a busy machine
    reported = re.search(r"no reply after (\d+) attempts in ([\d.]+) s", str(caught.value))
    assert reported is not None, str(caught.value)
    attempts, seconds = int(reported[1]), float(reported[2])
    assert attempts == len(server.received) >= 2  # the auto probe is one of them, not an extra
    assert abs(seconds - elapsed) < 0.2
    assert f"{server.url} did not answer" in str(caught.value) and "timeout 1 s per attempt, 2 retries" in str(caught.value)


def test_the_model_spec_sets_the_limits(serve: Any) -> None:
    """`?timeout=&retries=` on the spec bound a call to a hanging server."""
    server = serve(HANGS)
    model = open_model(f"openai:m@{server.url}?timeout=1&retries=1", cache=False)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"no reply after 2 attempts in [12]\.\d s \(timeout 1 s per attempt, 1 retries\)"):
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 2 + 0.4
    assert len(server.received) == 2


def test_backoff_waits_count_against_the_limit(serve: Any) -> None:
    """A retry that could not finish in time is not started."""
    server = serve(HANGS)
    model = OpenAICompatModel("m", server.url, structured="json_schema", timeout=0.5, max_retries=3)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"no reply after 2 attempts .*more than the 0\.\d s left"):
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 0.5 * 4 + 0.3
    assert len(server.received) == 2


def test_re_asks_share_the_limit(serve: Any) -> None:
    """A slow server that keeps answering badly cannot stretch one call past the limit."""
    server = serve(Reply(delay_s=0.3, content='{"answer": "perhaps"}'))
    model = OpenAICompatModel("m", server.url, structured="json_schema", timeout=1, max_retries=0, max_reasks=5)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as caught:
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 1.7  # six replies would take 1.8 s (margin for a busy machine)
    reported = re.search(r"did not answer: no reply after (\d+) attempts in [\d.]+ s", str(caught.value))
    assert reported is not None, str(caught.value)
    assert int(reported[1]) == len(server.received) >= 2


def test_a_retry_after_beyond_the_limit_ends_the_call_at_once(serve: Any) -> None:
    """The server's Retry-After cannot stretch a call past the limit either."""
    server = serve(Reply(429, headers={"retry-after": "30"}, error="slow down"))
    model = OpenAICompatModel("m", server.url, structured="json_schema", timeout=1, max_retries=3)
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"HTTP 429: slow down \(1 attempt in [\d.]+ s; the server asked to wait 30\.0 s"):
        model.complete(QUESTION, Verdict)
    assert time.monotonic() - started < 1


@pytest.mark.parametrize(("timeout", "retries"), [(0, 1), (-1, 1), (float("inf"), 1), (1, -1), (1, 1.5)])
def test_bad_limits_are_a_clear_error(timeout: float, retries: int) -> None:
    with pytest.raises(ModelError, match="timeout must be|retries must be"):
        OpenAICompatModel("m", "http://127.0.0.1:9/v1", timeout=timeout, max_retries=retries)


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


def _completion_body(**changes: Any) -> str:
    return json.dumps({**chat_completion(GOOD.content or ""), **changes})


HTML_PAGE = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>" + "<p>nginx</p>" * 4000


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(body=HTML_PAGE, content_type="text/html"), "an HTML page instead of a chat completion: <!DOCTYPE html>\\n"),
        (Reply(body=HTML_PAGE), "an HTML page instead of a chat completion"),
        (Reply(body='{"id": "x", "choices": [{"mess'), 'a body that is not JSON instead of a chat completion: {"id": "x"'),
        (Reply(body=""), "an empty body"),
        (Reply(body="[" * 100_000), "a body that is not JSON"),
        (Reply(body='["a", "list"]'), "JSON that is not a chat completion (body: Input should be a valid dictionary"),
        (Reply(body='{"id": "x"}'), "(choices: Field required)"),
        (Reply(body=_completion_body(choices=[])), "(choices: List should have at least 1 item"),
        (Reply(body=_completion_body(choices="yes")), "(choices: Input should be a valid list"),
        (Reply(body=_completion_body(choices=[{"index": 0}])), "(choices.0.message: Field required"),
        (Reply(body=_completion_body(choices=[{"message": {"content": 42}}])), "(choices.0.message.content: Input should be a valid string"),
        (Reply(body=_completion_body(choices=[{"message": "hi"}])), "(choices.0.message: Input should be a valid dictionary"),
        (Reply(body=_completion_body(usage={"prompt_tokens": "many"})), "(usage.prompt_tokens: Input should be a valid integer"),
        (Reply(body=_completion_body(usage={"completion_tokens": -5})), "(usage.completion_tokens: Input should be greater than or equal to 0"),
        (Reply(body=_completion_body(choices=[{"message": {"content": None}, "finish_reason": "stop"}])), "without content (finish_reason=stop)"),
        (Reply(body=_completion_body(choices=[{"message": {"content": None, "refusal": "I can't."}}])), "a refusal: I can't."),
        (Reply(body='{"error": {"message": "model not loaded"}}'), 'answered with an error: {"message": "model not loaded"}'),
    ],
)
def test_a_malformed_reply_is_a_model_error_saying_what_came(serve: Any, reply: Reply, said: str) -> None:
    """No JSONDecodeError or AttributeError, whatever a server sends with HTTP 200."""
    server = serve(reply)
    model = OpenAICompatModel("m", server.url, structured="json_schema", max_retries=0)
    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION, Verdict)
    message = str(caught.value)
    assert not isinstance(caught.value, ModelUnavailable)  # the server answered: it is not down
    assert message.startswith(f"{server.url} ") and said in message
    assert len(message) < 600  # the body is clipped
    assert len(server.received) == 1


@pytest.mark.parametrize("usage", [None, {}, {"prompt_tokens": None, "completion_tokens": 3}])
def test_missing_token_counts_count_as_zero(serve: Any, usage: Any) -> None:
    """Usage the server does not report is not invented, and not an error."""
    server = serve(Reply(body=_completion_body(usage=usage)))
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)
    assert completion.value == Verdict(answer=True, reason="it is")
    assert completion.usage.calls == 1 and completion.usage.prompt_tokens == 0
    assert completion.usage.completion_tokens == (usage or {}).get("completion_tokens", 0)
