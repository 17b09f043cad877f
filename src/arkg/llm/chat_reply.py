"""Read the body of an OpenAI-compatible chat-completion reply, trusting nothing in it.

Servers behind proxies and half-compatible servers send all sorts under HTTP 200: HTML error pages,
truncated JSON, JSON without choices, nulls and strings where numbers belong. Each becomes a
ModelError that says what came, clipped, instead of a Python error from deep inside a parser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError

from arkg.errors import ModelError
from arkg.llm.base import Usage
from arkg.text import clip, one_line


class _Message(BaseModel):
    content: str | None = None
    refusal: str | None = None


class _Choice(BaseModel):
    message: _Message
    finish_reason: str | None = None


class _TokenCounts(BaseModel):
    # Counts a server leaves out or sends as null are not known: they count as 0, never guessed.
    prompt_tokens: int | None = Field(None, ge=0)
    completion_tokens: int | None = Field(None, ge=0)


class ChatCompletion(BaseModel):
    """The parts of a chat completion that arkg reads; other fields are ignored."""

    choices: list[_Choice] = Field(min_length=1)
    usage: _TokenCounts | None = None


@dataclass(frozen=True)
class ChatReply:
    """The first choice of a chat completion: its text, why it ended, and what it cost (calls=1)."""

    content: str
    finish_reason: str | None
    usage: Usage


def read_reply(body: str, source: str) -> ChatReply:
    """The chat completion in `body`, as sent by `source` (a URL for messages); ModelError if it is none."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ModelError(f"{source} sent {_not_json(body)} instead of a chat completion: {_quote(body)}") from None
    if isinstance(data, dict) and "error" in data and "choices" not in data:
        raise ModelError(f"{source} answered with an error: {_quote(json.dumps(data['error'], ensure_ascii=False))}")
    try:
        completion = ChatCompletion.model_validate(data)
    except ValidationError as error:
        raise ModelError(
            f"{source} sent JSON that is not a chat completion ({_problems(error)}): {_quote(body)}"
        ) from None
    choice = completion.choices[0]
    if choice.message.content is None:
        said = f"a refusal: {_quote(choice.message.refusal)}" if choice.message.refusal else _quote(body)
        raise ModelError(f"{source} sent a chat completion without content (finish_reason={choice.finish_reason}): {said}")
    tokens = completion.usage or _TokenCounts()
    usage = Usage(calls=1, prompt_tokens=tokens.prompt_tokens or 0, completion_tokens=tokens.completion_tokens or 0)
    return ChatReply(content=choice.message.content, finish_reason=choice.finish_reason, usage=usage)


_HTML = re.compile(r"\s*<(!doctype|html|head|body|title)\b", re.IGNORECASE)


def _not_json(body: str) -> str:
    if not body.strip():
        return "an empty body"
    if _HTML.match(body):
        return "an HTML page"
    return "a body that is not JSON"


def _problems(error: ValidationError) -> str:
    """The first few problems, as 'choices.0.message: Field required'."""
    problems = [f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in error.errors()[:3]]
    more = error.error_count() - len(problems)
    return "; ".join(problems) + (f"; {more} more" if more > 0 else "")


def _quote(text: str) -> str:
    return clip(one_line(text))
