"""Reasoning models behind OpenAI-compatible servers (a scripted server on 127.0.0.1): thinking is set apart."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from scripted_server import Reply, chat_completion

from arkg.errors import ModelError
from arkg.llm import CachedModel, Choice, Message, OpenAICompatModel, Sampling, ScriptedModel, Usage, open_model
from arkg.llm.cache import request_key

QUESTION = [Message(role="system", content="You judge."), Message(role="user", content="Is it so?")]
ANSWER = '{"answer": true, "reason": "it is"}'
THINKING = "The user asks whether it is so. Options: {\"answer\": false}? No: it is."


class Verdict(BaseModel):
    answer: bool
    reason: str


def sent(content: str | None, **fields: Any) -> Reply:
    return Reply(body=json.dumps(chat_completion(content, **fields)))


@pytest.mark.parametrize(
    "reply",
    [
        sent(f"<think>\n{THINKING}\n</think>\n\n{ANSWER}", reasoning_tokens=42),
        sent(f"  <think>{THINKING}</think>{ANSWER}", reasoning_tokens=42),
        sent(f"{THINKING}\n</think>\n\n{ANSWER}", reasoning_tokens=42),  # the template opened the block
        sent(ANSWER, reasoning_content=THINKING, reasoning_tokens=42),  # vLLM, DeepSeek
        sent(ANSWER, reasoning=THINKING, reasoning_tokens=42),  # Ollama, OpenRouter
    ],
    ids=["think-block", "think-block-inline", "closing-tag-only", "reasoning_content", "reasoning"],
)
def test_thinking_is_set_apart_before_validation_and_kept(serve: Any, reply: Reply) -> None:
    """A reasoning model's reply validates; its thinking and reasoning tokens are kept."""
    server = serve(reply)
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)
    assert completion.value == Verdict(answer=True, reason="it is")
    assert completion.raw == ANSWER
    assert completion.reasoning == THINKING
    assert (completion.usage.reasoning_tokens, completion.usage.completion_tokens) == (42, 5)
    assert len(server.received) == 1  # no re-ask


def test_an_empty_think_block_as_sent_with_thinking_off(serve: Any) -> None:
    server = serve(sent(f"<think>\n\n</think>\n\n{ANSWER}"))
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)
    assert (completion.value.answer, completion.raw, completion.reasoning) == (True, ANSWER, None)


def test_no_reasoning_tokens_are_invented(serve: Any) -> None:
    """A server that reports no reasoning tokens gets 0, whatever the thinking's length."""
    server = serve(sent(f"<think>{THINKING}</think>{ANSWER}"))
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)
    assert completion.reasoning == THINKING and completion.usage.reasoning_tokens == 0


def test_a_choice_after_thinking(serve: Any) -> None:
    server = serve(sent('<think>Lyon is in France.</think>{"choice": "Lyon"}'))
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Choice(["Lyon", "Oslo"]))
    assert (completion.value, completion.reasoning) == ("Lyon", "Lyon is in France.")


@pytest.mark.parametrize(
    "reply",
    [
        sent(f"<think>\n{THINKING} And then", finish_reason="length", reasoning_tokens=33),
        sent(None, reasoning_content=THINKING, finish_reason="length", reasoning_tokens=33),
        sent("", reasoning_content=THINKING, finish_reason="length", reasoning_tokens=33),
    ],
    ids=["unclosed-think-block", "reasoning_content-no-content", "reasoning_content-empty-content"],
)
def test_thinking_cut_off_by_max_tokens_is_a_clear_error(serve: Any, reply: Reply) -> None:
    """A reply cut off while still thinking says so and how to fix it, without re-asking."""
    server = serve(reply)
    model = OpenAICompatModel("m", server.url, structured="json_schema")
    with pytest.raises(ModelError, match=r"cut off at max_tokens=33 while still reasoning \(\d+ characters of reasoning, 33 tokens\)") as caught:
        model.complete(QUESTION, Verdict, Sampling(max_tokens=33))
    assert "enable_thinking=false" in str(caught.value)
    assert len(server.received) == 1


def test_a_reply_that_ends_inside_its_thinking(serve: Any) -> None:
    server = serve(sent("<think>I will never close this", finish_reason="stop"))
    with pytest.raises(ModelError, match=r"ended \(finish_reason=stop\) inside its reasoning"):
        OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)


def test_a_re_ask_shows_the_answer_without_the_thinking(serve: Any) -> None:
    server = serve(sent('<think>hmm</think>{"answer": "perhaps"}'), Reply(content=ANSWER))
    completion = OpenAICompatModel("m", server.url, structured="json_schema").complete(QUESTION, Verdict)
    assert completion.value.answer is True
    assert server.received[1].body["messages"][-2] == {"role": "assistant", "content": '{"answer": "perhaps"}'}


def test_the_model_spec_passes_server_specific_request_fields(serve: Any, tmp_path: Path) -> None:
    """E.g. Qwen3's thinking switched off through the chat template, from the spec."""
    server = serve(Reply(content=ANSWER))
    spec = f"openai:qwen3@{server.url}?body.chat_template_kwargs.enable_thinking=false&body.top_k=20&retries=0"
    model = open_model(spec, cache=tmp_path / "cache.sqlite")
    model.complete(QUESTION, Verdict)
    body = server.received[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["top_k"] == 20
    assert body["messages"][-1]["content"] == "Is it so?"
    # The fields change replies, so they are part of the cache identity, not of the readable name.
    thinking = open_model(f"openai:qwen3@{server.url}", cache=tmp_path / "cache.sqlite")
    assert model.name == thinking.name == f"openai:qwen3@{server.url}"
    assert model.identity != thinking.identity
    thinking.complete(QUESTION, Verdict)
    assert len(server.received) == 2 and "chat_template_kwargs" not in server.received[1].body


def test_the_cache_keeps_the_thinking_and_its_tokens(serve: Any, tmp_path: Path) -> None:
    """A cache hit gives back what the miss gave."""
    server = serve(sent(ANSWER, reasoning_content=THINKING, reasoning_tokens=42))
    model = CachedModel(OpenAICompatModel("m", server.url, structured="json_schema"), tmp_path / "cache.sqlite")
    miss = model.complete(QUESTION, Verdict)
    hit = model.complete(QUESTION, Verdict)
    assert (hit.value, hit.raw, hit.reasoning) == (miss.value, miss.raw, THINKING)
    assert hit.usage.cached_calls == 1 and hit.usage.reasoning_tokens == 42
    assert len(server.received) == 1


def test_a_cache_file_from_before_reasoning_keeps_its_entries(tmp_path: Path) -> None:
    """The reasoning columns are added to a cache file written without them."""
    path = tmp_path / "cache.sqlite"
    city = Choice(["Lyon", "Oslo"])
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, raw TEXT NOT NULL, "
        "value TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)"
    )
    key = request_key("scripted:test", QUESTION, city, Sampling())
    old.execute("INSERT INTO responses VALUES (?, 'scripted:test', 'Oslo', '\"Oslo\"', 7, 1)", (key,))
    old.commit()
    old.close()
    model = CachedModel(ScriptedModel.from_replies([], name="scripted:test"), path)
    hit = model.complete(QUESTION, city)
    assert (hit.value, hit.reasoning, hit.usage.prompt_tokens, hit.usage.reasoning_tokens) == ("Oslo", None, 7, 0)
    columns = [row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(responses)")]
    assert columns[-2:] == ["reasoning", "reasoning_tokens"]


def test_usage_adds_up_every_field() -> None:
    """Reasoning tokens add up along a run like every other count."""
    one = Usage(**{name: index + 1 for index, name in enumerate(Usage.model_fields)})
    assert (one + one).model_dump() == {name: 2 * value for name, value in one.model_dump().items()}
    assert (one + one).reasoning_tokens == 2 * one.reasoning_tokens > 0
