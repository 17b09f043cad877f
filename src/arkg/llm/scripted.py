"""A model whose replies come from a Python function: deterministic tests without a network.

Part of the public API so that users can test their own pipelines the same way:

    model = ScriptedModel.from_replies(["Sablé", "owned by", {"cited": ["T1"], ...}])
    model = ScriptedModel(lambda messages, output, sampling: ...)

A model that needs no script at all, replying minimally to whatever is asked, is
arkg.llm.testing.TestModel (`--model test` on the command line).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from pydantic import BaseModel, ValidationError

from arkg.errors import ModelError
from arkg.llm.base import Choice, Completion, Message, OutputSpec, Sampling, Usage

Reply = str | dict[str, Any] | BaseModel
ReplyFunction = Callable[[Sequence[Message], OutputSpec, Sampling], Reply]


@dataclass(frozen=True)
class ScriptedCall:
    """One request the scripted model received, kept so tests can assert on the context."""

    messages: tuple[Message, ...]
    output: OutputSpec
    sampling: Sampling


def _count_tokens(text: str) -> int:
    # Whitespace words stand in for tokens: deterministic and good enough for usage accounting.
    return len(text.split())


class ScriptedModel:
    """ChatModel driven by `function(messages, output, sampling) -> reply`.

    Every call is kept in `calls`, unless keep_calls is False: a model that serves indefinitely (a
    server's, `--model test`) would otherwise hold every prompt of every run for as long as it runs.
    """

    def __init__(self, function: ReplyFunction, name: str = "scripted", *, keep_calls: bool = True) -> None:
        self.function = function
        self.name = name
        self.keep_calls = keep_calls
        self.calls: list[ScriptedCall] = []
        self.call_count = 0

    @classmethod
    def from_replies(cls, replies: Iterable[Reply], name: str = "scripted") -> "ScriptedModel":
        """Answer each call with the next reply in order; running out is an error naming the call."""
        queue = list(replies)
        position = 0

        def next_reply(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply:
            nonlocal position
            if position >= len(queue):
                raise ModelError(f"ScriptedModel ran out of replies at call {position + 1} ({len(queue)} scripted)")
            position += 1
            return queue[position - 1]

        return cls(next_reply, name=name)

    def complete(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()) -> Completion[Any]:
        started = time.perf_counter()
        self.call_count += 1
        if self.keep_calls:
            self.calls.append(ScriptedCall(tuple(messages), output, sampling))
        reply = self.function(messages, output, sampling)
        value, raw = _validate(reply, output, call_number=self.call_count)
        usage = Usage(
            calls=1,
            prompt_tokens=sum(_count_tokens(m.content) for m in messages),
            completion_tokens=_count_tokens(raw),
            latency_s=time.perf_counter() - started,
        )
        return Completion(value=value, raw=raw, usage=usage)


def _validate(reply: Reply, output: OutputSpec, call_number: int) -> tuple[Any, str]:
    if isinstance(output, Choice):
        if not isinstance(reply, str) or reply not in output.options:
            raise ModelError(
                f"ScriptedModel call {call_number}: reply {reply!r} is not one of the "
                f"{len(output.options)} options {list(output.options)[:10]}"
            )
        return reply, reply
    try:
        if isinstance(reply, BaseModel):
            value = output.model_validate(reply.model_dump())
        elif isinstance(reply, dict):
            value = output.model_validate(reply)
        else:
            value = output.model_validate_json(reply)
    except ValidationError as error:
        raise ModelError(f"ScriptedModel call {call_number}: reply does not fit {output.__name__}: {error}") from error
    raw = reply if isinstance(reply, str) else json.dumps(value.model_dump(mode="json"), ensure_ascii=False)
    return value, raw
