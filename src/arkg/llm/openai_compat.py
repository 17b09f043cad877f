"""HTTP backend for OpenAI-compatible servers (OpenAI, vLLM, Ollama, llama.cpp's server, OpenRouter, ...)."""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

import openai
from pydantic import BaseModel, ValidationError, create_model

from arkg.errors import ModelError, ModelUnavailable
from arkg.llm.base import Choice, Completion, FileHasher, Message, OutputSpec, Sampling, Usage
from arkg.llm.chat_reply import ChatReply, read_reply
from arkg.retry import TRANSIENT_STATUSES, CallBudget, RetryPolicy
from arkg.text import clip, one_line

StructuredMode = Literal["json_schema", "json_object", "auto"]


class OpenAICompatModel:
    """ChatModel over the official `openai` SDK.

    Structured output: `json_schema` sends the reply's JSON schema as `response_format` (servers
    then constrain decoding); `json_object` asks for JSON mode, states the schema in the system
    prompt and also passes it as `response_format.schema` (honoured by llama.cpp's Python server
    and Anyscale-style servers, ignored elsewhere); `auto` starts with `json_schema` and switches
    to `json_object` for good once the server rejects the `response_format`. In every mode the reply
    is validated; an invalid one is re-asked up to `max_reasks` times with the validation error.
    A Choice is asked for as `{"choice": <one of the options>}` (a JSON-schema enum).

    Reasoning models: their thinking is set apart before validation (see arkg.llm.chat_reply) and
    kept in Completion.reasoning; usage counts the reasoning tokens a server reports. `extra_body`
    adds server-specific fields to every request, e.g. {"chat_template_kwargs": {"enable_thinking":
    False}} for Qwen3 on vLLM or SGLang; they are part of the cache identity.

    Limits (see arkg.retry): each attempt waits at most `timeout` seconds for the server; a request
    that meets a connection error, a timeout or HTTP 408/409/429/500/502/503/504 is retried up to
    `max_retries` times with backoff (0.5 s doubling, at most 8 s, up to 25 % shorter at random) or
    what the server's Retry-After asks; one complete() takes at most `timeout × (max_retries + 1)`
    seconds, waits and re-asks included, and a wait that would not fit ends the call at once.
    A server that cannot be reached, does not answer in time, or answers 502/503/504 to the last
    attempt raises ModelUnavailable; the message says how many attempts were made in how long.
    Thread-safe: the SDK client is shared by concurrent calls.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60,
        max_retries: int = 3,
        structured: StructuredMode = "auto",
        max_reasks: int = 2,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
            raise ModelError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if not (isinstance(max_retries, int) and max_retries >= 0):
            raise ModelError(f"retries must be a whole number, 0 or more, not {max_retries!r}")
        api_key = os.environ.get(api_key_env)
        if api_key is None:
            if base_url is None:
                raise ModelError(f"OpenAI needs an API key: set the environment variable {api_key_env}")
            api_key = "unused"  # local servers accept any key; the SDK insists on one
        # The SDK's own retries are off: it knows no limit for a whole call, honours Retry-After up to
        # two minutes per retry, and does not say how many attempts it made.
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)
        self.model = model
        self.base_url = str(self._client.base_url).rstrip("/")
        self.name = f"openai:{model}@{self.base_url}"
        self.structured = structured
        self.max_reasks = max_reasks
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_policy = RetryPolicy(retries=max_retries, jitter=0.25)
        self.api_key_env = api_key_env
        self.extra_body = dict(extra_body or {})
        # In "auto" mode: None until the first reply tells whether the server takes json_schema.
        self._schema_supported: bool | None = {"json_schema": True, "json_object": False, "auto": None}[structured]

    def cache_identity(self, file_sha256: FileHasher) -> str:
        """The name, plus the extra request fields: they change replies (e.g. thinking on or off)."""
        if not self.extra_body:
            return self.name
        return f"{self.name}?body={json.dumps(self.extra_body, sort_keys=True, ensure_ascii=False)}"

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        reply_model = _reply_model(output)
        conversation = _conversation(messages)
        usage = Usage()
        started = time.perf_counter()
        budget = CallBudget(self.timeout, self.max_retries)
        for reask in range(self.max_reasks + 1):
            reply = self._create(conversation, reply_model, sampling, budget)
            usage += reply.usage
            if reply.answer is None:
                raise self._no_answer(reply, sampling)
            raw = reply.answer
            try:
                parsed = reply_model.model_validate_json(raw)
            except ValidationError as error:
                if reask == self.max_reasks:
                    cut = " (cut off at max_tokens)" if reply.finish_reason == "length" else ""
                    raise ModelError(
                        f"{self.name}: reply{cut} still does not validate as {reply_model.__name__} after "
                        f"{self.max_reasks} re-asks: {error}"
                    ) from error
                # Without the reasoning: chat templates of reasoning models drop it from past turns.
                conversation += [
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": _reask_prompt(error)},
                ]
                continue
            value = parsed.choice if isinstance(output, Choice) else parsed
            usage = usage.model_copy(update={"latency_s": time.perf_counter() - started})
            return Completion(value=value, raw=raw, usage=usage, reasoning=reply.reasoning)
        raise AssertionError("unreachable: the loop returns or raises")

    def _no_answer(self, reply: ChatReply, sampling: Sampling) -> ModelError:
        size = f"{len(reply.reasoning or ''):,} characters of reasoning"
        if reply.usage.reasoning_tokens:
            size += f", {reply.usage.reasoning_tokens:,} tokens"
        if reply.finish_reason == "length":
            return ModelError(
                f"{self.name}: the reply was cut off at max_tokens={sampling.max_tokens} while still reasoning "
                f"({size}), before any answer; raise max_tokens, or switch thinking off if the server allows "
                "(e.g. ?body.chat_template_kwargs.enable_thinking=false on the model spec)"
            )
        return ModelError(
            f"{self.name}: the reply ended (finish_reason={reply.finish_reason}) inside its reasoning ({size}), "
            "without an answer"
        )

    def request_arguments(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> dict[str, Any]:
        """The `chat.completions.create` arguments of this request's first attempt, in the current mode.

        For inspection and benchmarks: the same request can be sent with the SDK directly.
        """
        use_schema = self._schema_supported is not False
        return self._arguments(_conversation(messages), _reply_model(output), sampling, use_schema=use_schema)

    def _arguments(
        self, conversation: list[dict[str, str]], reply_model: type[BaseModel], sampling: Sampling, *, use_schema: bool
    ) -> dict[str, Any]:
        if use_schema:
            response_format = _json_schema_format(reply_model)
        else:
            response_format, instruction = _json_object_format(reply_model)
            conversation = _with_instruction(conversation, instruction)
        arguments = {
            "model": self.model,
            "messages": conversation,
            "response_format": response_format,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "seed": sampling.seed,
            "max_tokens": sampling.max_tokens,
        }
        if self.extra_body:
            arguments["extra_body"] = self.extra_body  # the SDK merges these fields into the request body
        return arguments

    def _create(
        self, conversation: list[dict[str, str]], reply_model: type[BaseModel], sampling: Sampling, budget: CallBudget
    ) -> ChatReply:
        """One reply from the server, after as many attempts as the retry policy and the call's budget allow."""
        retrying = self.retry_policy.retrying(_transient, budget=budget)
        try:
            return retrying(self._request, conversation, reply_model, sampling, budget)
        except openai.APIStatusError as error:
            raise self._status_error(error, budget) from error
        except openai.APIConnectionError as error:  # APITimeoutError included
            raise self._unavailable(error, budget) from error

    def _request(
        self, conversation: list[dict[str, str]], reply_model: type[BaseModel], sampling: Sampling, budget: CallBudget
    ) -> ChatReply:
        """One attempt: a request, or two when the server turns out not to take json_schema."""
        while True:
            use_schema = self._schema_supported is not False
            arguments = self._arguments(conversation, reply_model, sampling, use_schema=use_schema)
            timeout = budget.start()
            if timeout is None:
                raise ModelUnavailable(
                    f"{self.base_url} did not answer in time: {budget.summary()} used up the call's limit of "
                    f"{budget.limit_s:g} s (timeout {self.timeout:g} s x {self.max_retries + 1} attempts)"
                )
            try:
                response = self._client.chat.completions.with_raw_response.create(**arguments, timeout=timeout)
            except openai.APIStatusError as error:
                if self._schema_supported is None and _rejects_response_format(error):
                    # A server without json_schema support may reject it with a 5xx (llama.cpp's Python
                    # server does): that is an answer, so JSON mode follows at once, with no backoff.
                    self._schema_supported = False
                    continue
                raise
            if use_schema:
                self._schema_supported = True
            # The raw body, not the SDK's parse: that one fails with JSONDecodeError on a broken
            # body and hands back a str for an HTML page.
            return read_reply(response.text, self.base_url)

    def _unavailable(self, error: openai.APIConnectionError, budget: CallBudget) -> ModelUnavailable:
        limits = f"timeout {self.timeout:g} s per attempt, {self.max_retries} retries"
        if isinstance(error, openai.APITimeoutError):
            return ModelUnavailable(f"{self.base_url} did not answer: no reply after {budget.summary()} ({limits})")
        cause = error.__cause__ or error
        return ModelUnavailable(f"Cannot reach {self.base_url}: {cause} ({budget.summary()}; {limits})")

    def _status_error(self, error: openai.APIStatusError, budget: CallBudget) -> ModelError:
        hint = f" (is ${self.api_key_env} set?)" if error.status_code == 401 else ""
        tried = f" ({budget.summary()})" if budget.made > 1 or budget.refusal else ""
        message = f"{self.base_url} answered HTTP {error.status_code}{hint}: {_server_said(error)}{tried}"
        # Gateways answer these for a server behind them that is down or hanging.
        return (ModelUnavailable if error.status_code in (502, 503, 504) else ModelError)(message)


def _server_said(error: openai.APIStatusError) -> str:
    """The message that came with an error status (an HTML page from a proxy, too), clipped."""
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        said = body["message"]
    elif body is None or isinstance(body, str):
        said = body or ""
    else:
        said = json.dumps(body, ensure_ascii=False)
    return clip(one_line(said)) if said else "(no message)"


def _transient(error: BaseException) -> bool:
    if isinstance(error, openai.APIStatusError):
        return error.status_code in TRANSIENT_STATUSES
    return isinstance(error, openai.APIConnectionError)


def _conversation(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _reply_model(output: OutputSpec) -> type[BaseModel]:
    return _choice_model(output) if isinstance(output, Choice) else output


@lru_cache(maxsize=256)
def _choice_model(choice: Choice) -> type[BaseModel]:
    """The JSON shape of a Choice reply: {"choice": <one of the options>}."""
    return create_model("Choice", choice=(Literal[choice.options], ...))  # type: ignore[valid-type]


# Schemas are built once per output spec, not per call.
@lru_cache(maxsize=256)
def _json_schema_format(reply_model: type[BaseModel]) -> dict[str, Any]:
    name = re.sub(r"[^A-Za-z0-9_-]", "_", reply_model.__name__)[:64]
    # strict=False: OpenAI's strict mode rejects ordinary pydantic schemas (optional fields, defaults).
    schema = reply_model.model_json_schema()
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}


@lru_cache(maxsize=256)
def _json_object_format(reply_model: type[BaseModel]) -> tuple[dict[str, Any], str]:
    """JSON mode's response_format and the prompt line stating the schema."""
    schema = reply_model.model_json_schema()
    compact = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    instruction = f"Reply with a single JSON object matching this JSON schema: {compact}"
    return {"type": "json_object", "schema": schema}, instruction


def _rejects_response_format(error: openai.APIStatusError) -> bool:
    return error.status_code in (400, 422, 500, 501) and "response_format" in str(error.message)


def _with_instruction(conversation: list[dict[str, str]], instruction: str) -> list[dict[str, str]]:
    """Add to the system message (many chat templates allow only one, and only first)."""
    if conversation and conversation[0]["role"] == "system":
        first = {"role": "system", "content": f"{conversation[0]['content']}\n\n{instruction}"}
        return [first, *conversation[1:]]
    return [{"role": "system", "content": instruction}, *conversation]


def _reask_prompt(error: ValidationError) -> str:
    return f"That reply is not valid: {error}\nReply again with only the corrected JSON object, nothing else."
