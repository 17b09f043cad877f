"""Stopping an evaluation at the next model call: a thread-safe stop signal, and a model wrapper
that checks it before every call.

A question may run for minutes (ARK makes dozens of calls), so waiting for it to end is no way to
stop. Instead the strategy's model raises StopRequested at its next `complete()`; the runner drops
that question (it is answered again on resume) and keeps every finished one.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from arkg.llm.base import ChatModel, Completion, Message, OutputSpec, Sampling


class StopRequested(Exception):
    """Raised at a cancellation point once a stop was requested. Not an ArkgError: no strategy may
    record it as a failed answer."""


class StopSignal:
    """Set once (by Ctrl-C, or by the runner when the model server is down); read from any thread."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def request(self) -> None:
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """The cancellation point: raise StopRequested if a stop was requested."""
        if self._event.is_set():
            raise StopRequested


class StoppableModel:
    """A ChatModel that passes calls through to `model` until `stop` is requested."""

    def __init__(self, model: ChatModel, stop: StopSignal) -> None:
        self.model = model
        self.stop = stop
        self.name = model.name

    def complete(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()) -> Completion[Any]:
        self.stop.check()
        return self.model.complete(messages, output, sampling)
