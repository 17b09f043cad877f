"""The run kit every strategy uses for one query: model calls, seeds, budget, events, stopping.

    kit = RunKit(model, options)
    value, call = kit.complete(messages, output, purpose="anchor", step=1)   # seed = base seed + call number
    kit.emit(event)                                                          # to the caller's callback

A call that would go over the budget raises RunStopped before reaching the model; so does a call
after the caller asked to cancel. `RunKit.finish` turns a budget stop into the strategy's own
"no answer" result, so every strategy records it the same way; a cancellation propagates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.trace import ModelCall, total_usage
from arkg.llm.base import ChatModel, Message, OutputSpec, Sampling, Usage

EventCallback = Callable[[Any], None]
T = TypeVar("T")

BUDGET_SPENT = "the run budget was spent"


class Budget(BaseModel):
    """Limits on one query's model use; None means no limit. Cached calls count like real ones, so a
    rerun from the response cache stops exactly where the first run did."""

    model_config = ConfigDict(frozen=True)

    max_calls: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)

    def exceeded(self, usage: Usage) -> str | None:
        """Why one more call is not allowed after `usage`, or None."""
        calls = usage.total_calls
        if self.max_calls is not None and calls >= self.max_calls:
            return f"{calls} model calls made (max_calls={self.max_calls})"
        if self.max_tokens is not None and usage.total_tokens >= self.max_tokens:
            return f"{usage.total_tokens} tokens spent (max_tokens={self.max_tokens})"
        return None


class RunStopped(Exception):
    """A query was stopped before its next model call: budget spent, or cancelled by the caller.

    Not an ArkgError: it is no failure of the query, and callers that record failures must not
    mistake a cancellation for one."""

    def __init__(self, reason: str, cancelled: bool = False) -> None:
        self.reason = reason
        self.cancelled = cancelled
        super().__init__(reason)


@dataclass(frozen=True)
class RunOptions:
    """How to run one query: sampling of every call (seed + call number per call), budget, callbacks."""

    sampling: Sampling = Sampling(max_tokens=256)
    budget: Budget = Budget()
    on_event: EventCallback | None = None
    # Set by the caller to stop the query at its next model call (e.g. on Ctrl-C).
    cancel: threading.Event | None = None


@dataclass
class RunKit:
    model: ChatModel
    options: RunOptions = field(default_factory=RunOptions)
    calls: list[ModelCall] = field(default_factory=list)

    def complete(
        self,
        messages: Sequence[Message],
        output: OutputSpec,
        purpose: str | Enum,
        step: int = 0,
        attempt: int = 1,
    ) -> tuple[Any, ModelCall]:
        """One model call on `messages`; the reply's value and its ModelCall (also kept in `calls`)."""
        cancel = self.options.cancel
        if cancel is not None and cancel.is_set():
            raise RunStopped("cancelled", cancelled=True)
        if (reason := self.options.budget.exceeded(self.usage)) is not None:
            raise RunStopped(f"{BUDGET_SPENT}: {reason}")
        completion = self.model.complete(messages, output, self.sampling())
        call = ModelCall(
            purpose=purpose.value if isinstance(purpose, Enum) else purpose,
            step=step,
            attempt=attempt,
            shown=messages[-1].content if messages else "",
            raw=completion.raw,
            reasoning=completion.reasoning,
            usage=completion.usage,
        )
        self.calls.append(call)
        return completion.value, call

    def sampling(self) -> Sampling:
        # A fresh seed per call: with temperature > 0 a retry must not replay the failed sample.
        sampling = self.options.sampling
        if sampling.seed is None:
            return sampling
        return sampling.model_copy(update={"seed": sampling.seed + len(self.calls)})

    def emit(self, event: Any) -> None:
        if self.options.on_event is not None:
            self.options.on_event(event)

    @property
    def usage(self) -> Usage:
        return total_usage(self.calls)

    @staticmethod
    def finish(execute: Callable[[], T], stopped: Callable[[RunStopped], T]) -> T:
        """Run the query; a budget stop becomes `stopped(reason)`, a cancellation propagates."""
        try:
            return execute()
        except RunStopped as stop:
            if stop.cancelled:
                raise
            return stopped(stop)
