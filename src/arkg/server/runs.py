"""Runs of the server's one model: a bounded queue, one worker thread, steps streamed as they happen.

The in-process model answers one question at a time, so runs wait in a queue of fixed size; a full
queue refuses a new run at once (QueueFull, with a retry estimate) instead of piling up work. A run
cancelled while queued leaves the queue; one cancelled while running stops at its next model call.
Finished runs are kept, newest first, up to a fixed count, so memory stays flat however long the
server runs.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel

from arkg.agents import Budget, Query, RunStopped
from arkg.errors import ArkgError
from arkg.llm.base import Sampling
from arkg.server.steps import StepMaker, result_view, view_of
from arkg.session import Session, model_label

log = logging.getLogger(__name__)


class RunState(str, Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED = (RunState.DONE, RunState.FAILED, RunState.CANCELLED)


class QueueFull(Exception):
    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"the server is busy: {retry_after} s until a place in its queue is likely free")


@dataclass(frozen=True)
class RunRequest:
    """What to run, checked already (strategy, settings and budget are valid)."""

    query: Query
    strategy: str
    settings: BaseModel
    sampling: Sampling
    budget: Budget


@dataclass(eq=False)
class Run:
    request: RunRequest
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    state: RunState = RunState.QUEUED
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None  # Result.model_dump(mode="json"), trace included
    error: str | None = None
    model: str | None = None  # which model and adapter answer it (session.model_label), once it runs
    cancel: threading.Event = field(default_factory=threading.Event)
    cancel_reason: str | None = None
    watchers: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.state in FINISHED

    def add_step(self, step: dict[str, Any]) -> None:
        with self._lock:
            self.steps.append(step)
        self._wake()

    def end(self, state: RunState, result: dict[str, Any] | None = None, error: str | None = None) -> None:
        with self._lock:
            self.state, self.result, self.error, self.finished = state, result, error, time.time()
        self._wake()

    def outcome(self) -> dict[str, Any]:
        """How the run ended, as its last server-sent event says it."""
        view = result_view(self.result) if self.result is not None else None
        return {"id": self.id, "state": self.state.value, "error": self.error, "model": self.model, "result": view}

    async def follow(self) -> AsyncIterator[dict[str, Any]]:
        """The run's steps from the first, then each new one as it comes, until the run ends."""
        loop = asyncio.get_running_loop()
        sent = 0
        while True:
            wake = asyncio.Event()
            with self._lock:
                new, done = self.steps[sent:], self.done
                if not new and not done:
                    self._waiting.append((loop, wake))
            for step in new:
                yield step
            sent += len(new)
            if not new:
                if done:
                    return
                await wake.wait()

    def _wake(self) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, []
        for loop, wake in waiting:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:  # that client's event loop is gone
                pass


class RunQueue:
    """Runs `session.ask` for one run at a time, in the order asked, on its own thread."""

    def __init__(self, session: Session, queue_size: int, keep: int) -> None:
        self.session = session
        self.queue_size = queue_size
        self.keep = keep
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._pending: deque[Run] = deque()
        self._current: Run | None = None
        self._durations: deque[float] = deque(maxlen=20)
        self._changed = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._work, name="arkg-runs", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Cancel every run, let the running one stop at its next model call, and end the worker."""
        with self._changed:
            self._stopping = True
            pending, self._pending = list(self._pending), deque()
            if self._current is not None:
                self._current.cancel_reason = "the server stopped"
                self._current.cancel.set()
            self._changed.notify_all()
        for run in pending:
            run.end(RunState.CANCELLED, error="the server stopped")
        if self._thread.is_alive():
            self._thread.join()

    def submit(self, request: RunRequest) -> Run:
        """Queue a run; QueueFull when the queue holds `queue_size` runs already."""
        with self._changed:
            if self._stopping:
                raise ArkgError("the server is stopping")
            if len(self._pending) >= self.queue_size:
                raise QueueFull(self._retry_after())
            run = Run(request)
            self._pending.append(run)
            self._runs[run.id] = run
            self._forget_old()
            self._changed.notify_all()
        return run

    def get(self, run_id: str) -> Run | None:
        with self._changed:
            return self._runs.get(run_id)

    def position(self, run: Run) -> int:
        """How many runs are ahead of a queued one (the running one included); 0 when it runs or ended."""
        with self._changed:
            if run not in self._pending:
                return 0
            return self._pending.index(run) + (self._current is not None)

    def cancel(self, run: Run, reason: str) -> None:
        """Stop a run: a queued one ends now, a running one at its next model call; an ended one stays as it is."""
        with self._changed:
            run.cancel_reason = run.cancel_reason or reason
            run.cancel.set()
            queued = run in self._pending
            if queued:
                self._pending.remove(run)
        if queued:
            run.end(RunState.CANCELLED, error=reason)

    def attach(self, run: Run) -> None:
        with self._changed:
            run.watchers += 1

    def detach(self, run: Run) -> None:
        """A client stopped following the run: when it was the last one and the run has not ended, cancel it."""
        with self._changed:
            run.watchers -= 1
            orphaned = run.watchers == 0 and not run.done
        if orphaned:
            self.cancel(run, "cancelled: its client disconnected")

    @property
    def waiting(self) -> int:
        with self._changed:
            return len(self._pending)

    def _retry_after(self) -> int:
        typical = sum(self._durations) / len(self._durations) if self._durations else 1.0
        return max(1, math.ceil(typical * (len(self._pending) + 1)))

    def _forget_old(self) -> None:
        finished = [run_id for run_id, run in self._runs.items() if run.done]
        for run_id in finished[: max(0, len(finished) - self.keep)]:
            del self._runs[run_id]

    def _work(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._stopping:
                    self._changed.wait()
                if self._stopping:
                    return
                run = self._current = self._pending.popleft()
                run.state, run.started = RunState.RUNNING, time.time()
            try:
                self._execute(run)
            finally:
                with self._changed:
                    self._current = None
                    self._durations.append(time.time() - (run.started or time.time()))
                    self._forget_old()

    def _execute(self, run: Run) -> None:
        request = run.request
        maker = StepMaker(view_of(request.strategy))
        try:
            run.model = model_label(self.session.model_for(request.strategy).name)  # a first run loads its adapter
            result = self.session.ask(
                request.query,
                request.strategy,
                request.settings,
                sampling=request.sampling,
                budget=request.budget,
                on_event=lambda event: run.add_step(maker.step(event)),
                cancel=run.cancel,
            )
        except RunStopped as stop:
            run.end(RunState.CANCELLED, error=run.cancel_reason or stop.reason)
        except ArkgError as error:
            run.end(RunState.FAILED, error=str(error))
        except Exception as error:  # a bug: the run fails, the server goes on
            log.exception("run %s failed", run.id)
            run.end(RunState.FAILED, error=f"internal error ({type(error).__name__}: {error})")
        else:
            run.end(RunState.DONE, result=result.model_dump(mode="json"))
