"""Memory of a long-running server: what a run holds is freed once the run is forgotten."""

from __future__ import annotations

import gc
import time
import weakref

from arkg.llm.base import Message
from arkg.server import ServerConfig
from arkg.server.api import AskRequest
from arkg.server.app import run_request
from arkg.server.runs import RunQueue, RunState
from arkg.session import Session

KEEP = 3
RUNS = 12


def _finish(queue: RunQueue, question: str) -> weakref.ref:
    run = queue.submit(run_request(AskRequest(question=question), ServerConfig(strategy="ark")))
    deadline = time.monotonic() + 30
    while not run.done:
        assert time.monotonic() < deadline, f"run {run.id} did not finish"
        time.sleep(0.001)
    assert run.state is RunState.DONE, run.error
    return weakref.ref(run)


def test_forgotten_runs_leave_nothing_behind():
    # `arkg serve --model test` opens its model from the spec, as here; that model used to log every
    # call's prompts for ever, so each run's messages outlived the run by as long as the server ran.
    session = Session(model="test")
    queue = RunQueue(session, queue_size=1, keep=KEEP)
    queue.start()
    try:
        questions = [f"Was Marie Curie born in Warsaw? (asked as number {number:03d})" for number in range(RUNS)]
        runs = [_finish(queue, question) for question in questions]
    finally:
        queue.stop()
    gc.collect()

    forgotten = RUNS - KEEP
    assert [run() is None for run in runs] == [True] * forgotten + [False] * KEEP  # the queue keeps the last KEEP
    prompts = [item.content for item in gc.get_objects() if isinstance(item, Message)]
    still_held = [question for question in questions[:forgotten] if any(question in prompt for prompt in prompts)]
    assert not still_held, f"prompts of {len(still_held)} forgotten runs are still in memory"
