"""HTTP backend for OpenAI-compatible servers (OpenAI, vLLM, Ollama, llama.cpp's server, OpenRouter, ...)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

import openai
from pydantic import BaseModel, ValidationError, create_model

from arkg.errors import ModelError, ModelUnavailable
from arkg.llm.base import Choice, Completion, Message, OutputSpec, Sampling, Usage
from arkg.llm.chat_reply import ChatReply, read_reply

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

    Retries: the SDK retries 408/409/429/5xx and connection errors `max_retries` times with
    exponential backoff (0.5 s doubling, at most 8 s, jittered; a Retry-After header wins).
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
    ) -> None:
        api_key = os.environ.get(api_key_env)
        if api_key is None:
            if base_url is None:
                raise ModelError(f"OpenAI needs an API key: set the environment variable {api_key_env}")
            api_key = "unused"  # local servers accept any key; the SDK insists on one
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
        self.model = model
        self.base_url = str(self._client.base_url).rstrip("/")
        self.name = f"openai:{model}@{self.base_url}"
        self.structured = structured
        self.max_reasks = max_reasks
        self.timeout = timeout
        self.max_retries = max_retries
        self.api_key_env = api_key_env
        # In "auto" mode: None until the first reply tells whether the server takes json_schema.
        self._schema_supported: bool | None = {"json_schema": True, "json_object": False, "auto": None}[structured]

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        reply_model = _reply_model(output)
        conversation = _conversation(messages)
        usage = Usage()
        started = time.perf_counter()
        for attempt in range(self.max_reasks + 1):
            reply = self._create(conversation, reply_model, sampling)
            usage += reply.usage
            raw = reply.content
            try:
                parsed = reply_model.model_validate_json(raw)
            except ValidationError as error:
                if attempt == self.max_reasks:
                    cut = " (cut off at max_tokens)" if reply.finish_reason == "length" else ""
                    raise ModelError(
                        f"{self.name}: reply{cut} still does not validate as {reply_model.__name__} after "
                        f"{self.max_reasks} re-asks: {error}"
                    ) from error
                conversation += [
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": _reask_prompt(error)},
                ]
                continue
            value = parsed.choice if isinstance(output, Choice) else parsed
            usage = usage.model_copy(update={"latency_s": time.perf_counter() - started})
            return Completion(value=value, raw=raw, usage=usage)
        raise AssertionError("unreachable: the loop returns or raises")

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
        return {
            "model": self.model,
            "messages": conversation,
            "response_format": response_format,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "seed": sampling.seed,
            "max_tokens": sampling.max_tokens,
        }

    def _create(
        self, conversation: list[dict[str, str]], reply_model: type[BaseModel], sampling: Sampling
    ) -> ChatReply:
        try:
            # The raw body, not the SDK's parse: that one fails with JSONDecodeError on a broken body
            # and hands back a str for an HTML page (hardening item 5).
            return read_reply(self._create_structured(conversation, reply_model, sampling).text, self.base_url)
        except openai.APITimeoutError as error:
            raise ModelUnavailable(
                f"{self.base_url} did not answer within {self.timeout} s (after {self.max_retries} retries)"
            ) from error
        except openai.APIConnectionError as error:
            raise ModelUnavailable(
                f"Cannot reach {self.base_url} (after {self.max_retries} retries): {error.__cause__ or error}"
            ) from error
        except openai.APIStatusError as error:
            hint = f" (is ${self.api_key_env} set?)" if error.status_code == 401 else ""
            raise ModelError(f"{self.base_url} answered HTTP {error.status_code}{hint}: {error.message}") from error

    def _create_structured(
        self, conversation: list[dict[str, str]], reply_model: type[BaseModel], sampling: Sampling
    ) -> Any:
        if self._schema_supported is None:
            # Probe once without the SDK's retries: a server without json_schema support may reject
            # it with a 5xx (llama.cpp's Python server does), which must not cost a round of backoff.
            probe = self._client.with_options(max_retries=0)
            try:
                arguments = self._arguments(conversation, reply_model, sampling, use_schema=True)
                response = probe.chat.completions.with_raw_response.create(**arguments)
                self._schema_supported = True
                return response
            except openai.APIStatusError as error:
                if _rejects_response_format(error):
                    self._schema_supported = False
            except openai.APIConnectionError:
                pass  # a transient failure: asked again below, with the full retry budget
        arguments = self._arguments(conversation, reply_model, sampling, use_schema=self._schema_supported is not False)
        return self._client.chat.completions.with_raw_response.create(**arguments)


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
