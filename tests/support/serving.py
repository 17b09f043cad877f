"""Helpers of the server tests: a scripted model that answers the sample question, and a real server
on 127.0.0.1 (the app in a thread of this process, or `arkg serve` itself in a child process)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from arkg.llm.base import Message, OutputSpec, Sampling
from arkg.llm.scripted import ScriptedModel
from arkg.llm.testing import valid_reply

SAMPLE_QUESTION = "Was Marie Curie born in Warsaw?"
# The fields curie_model fills in; its citations are valid_reply's: the first key a step offers.
CURIE_FIELDS = {
    "implication": "Her place of birth is Warsaw.",
    "continue_exploring": False,
    "explanation": "The knowledge graph gives Warsaw as her place of birth.",
    "answer": "yes",
}


def curie_model(delay_s: float = 0.0, gate: threading.Event | None = None, name: str = "scripted") -> ScriptedModel:
    """ARK over the sample KG: anchors on Marie Curie, follows `place of birth`, cites T1, answers yes.

    With a `gate`, every call waits until the gate is set (at most 10 s): a run that stays running."""

    def reply(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Any:
        if gate is not None:
            gate.wait(10)
        time.sleep(delay_s)
        return valid_reply(output, ("Marie Curie", "place of birth"), CURIE_FIELDS)

    return ScriptedModel(reply, name=name)


def read_events(response: Any) -> list[tuple[str, dict[str, Any]]]:
    """(event, data) pairs of a server-sent event stream, read to its end."""
    events, kind = [], "message"
    for line in response.iter_lines():
        if line.startswith("event:"):
            kind = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line.partition(":")[2])))
            kind = "message"
    return events


class LiveServer:
    """An ASGI app served by uvicorn on 127.0.0.1, on a free port, in a thread of this process."""

    def __init__(self, app: Any) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
        self.socket.close()


@contextmanager
def live_server(app: Any) -> Iterator[LiveServer]:
    server = LiveServer(app)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# `arkg serve` as a user runs it, with curie_model in place of the bundled model.
SCRIPTED_SERVE = (
    f"import sys; sys.path.insert(0, {str(Path(__file__).parents[1])!r}); import arkg.session, support.serving; "
    "arkg.session.open_model = lambda spec, **options: support.serving.curie_model(); "
    "from arkg.cli import main; main()"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_json(url: str, process: subprocess.Popen, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"arkg serve exited: {process.stdout.read()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return json.load(response)
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"arkg serve did not answer {url} within {seconds} s")


@contextmanager
def scripted_serve(arguments: Sequence[str], cwd: Path) -> Iterator[str]:
    """`arkg serve --port P ARGUMENTS` on a free port of 127.0.0.1, with curie_model: yields its URL
    once /api/info answers; stopped with Ctrl-C (SIGINT) on exit."""
    port = free_port()
    command = [sys.executable, "-c", SCRIPTED_SERVE, "serve", "--port", str(port), *arguments]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_json(f"{url}/api/info", process, 60)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
