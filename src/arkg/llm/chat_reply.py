"""Read the body of an OpenAI-compatible chat-completion reply, trusting nothing in it.

Servers behind proxies and half-compatible servers send all sorts under HTTP 200: HTML error pages,
truncated JSON, JSON without choices, nulls and strings where numbers belong. Each becomes a
ModelError that says what came, clipped, instead of a Python error from deep inside a parser.

Reasoning models think before they answer. A server with a reasoning parser puts the thinking in the
message's `reasoning_content` (vLLM, DeepSeek) or `reasoning` field (Ollama, OpenRouter); one
without sends it in the content, as a `<think>...</think>` block before the answer, or with only the
closing tag when the chat template opened the block in the prompt (DeepSeek-R1 distills, Qwen3).
Either way the thinking is set apart from the answer, which alone is validated.
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
    reasoning_content: str | None = None
    reasoning: str | None = None
    refusal: str | None = None


class _Choice(BaseModel):
    message: _Message
    finish_reason: str | None = None


class _CompletionDetails(BaseModel):
    reasoning_tokens: int | None = Field(None, ge=0)


class _TokenCounts(BaseModel):
    # Counts a server leaves out or sends as null are not known: they count as 0, never guessed.
    prompt_tokens: int | None = Field(None, ge=0)
    completion_tokens: int | None = Field(None, ge=0)
    completion_tokens_details: _CompletionDetails | None = None


class ChatCompletion(BaseModel):
    """The parts of a chat completion that arkg reads; other fields are ignored."""

    choices: list[_Choice] = Field(min_length=1)
    usage: _TokenCounts | None = None


@dataclass(frozen=True)
class ChatReply:
    """The first choice of a chat completion: its answer, its reasoning, why it ended, what it cost (calls=1).

    `answer` is None when the reply ended before its reasoning did (e.g. cut off at max_tokens).
    """

    answer: str | None
    reasoning: str | None
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
    message = choice.message
    beside = message.reasoning_content or message.reasoning
    if message.content is None and not beside:
        said = f"a refusal: {_quote(message.refusal)}" if message.refusal else _quote(body)
        raise ModelError(f"{source} sent a chat completion without content (finish_reason={choice.finish_reason}): {said}")
    within, answer = split_reasoning(message.content or "")
    reasoning = "\n\n".join(part for part in (beside, within) if part) or None
    if reasoning and not (answer or "").strip():
        answer = None  # the reasoning came, the answer did not
    tokens = completion.usage or _TokenCounts()
    details = tokens.completion_tokens_details or _CompletionDetails()
    usage = Usage(
        calls=1,
        prompt_tokens=tokens.prompt_tokens or 0,
        completion_tokens=tokens.completion_tokens or 0,
        reasoning_tokens=details.reasoning_tokens or 0,
    )
    return ChatReply(answer=answer, reasoning=reasoning, finish_reason=choice.finish_reason, usage=usage)


_OPEN, _CLOSE = "<think>", "</think>"


def split_reasoning(content: str) -> tuple[str | None, str | None]:
    """(reasoning, answer) of a reply's content: `<think>R</think>A` -> (R, A); `<think>R` never
    closed -> (R, None); `R</think>A` -> (R, A) unless the content starts as JSON does; else (None, content)."""
    text = content.lstrip()
    if text.startswith(_OPEN):
        reasoning, closed, answer = text[len(_OPEN) :].partition(_CLOSE)
        return reasoning.strip(), answer.strip() if closed else None
    if _CLOSE in text and not text.startswith(("{", "[", '"')):
        reasoning, _, answer = text.partition(_CLOSE)
        return reasoning.strip(), answer.strip()
    return None, content


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
