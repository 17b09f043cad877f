"""Run llama-cpp-python's OpenAI-compatible server on a GGUF model (the bundled one by default).

Useful to serve a local model to other tools, and to test or benchmark the HTTP backend against a
real server on 127.0.0.1. Needs the server extra: pip install 'llama-cpp-python[server]'.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arkg.errors import ModelError
from arkg.llm.bundled import bundled_model_path
from arkg.processes import stop_process


@dataclass
class RunningServer:
    base_url: str  # e.g. http://127.0.0.1:8765/v1
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        """Terminate the server process (killed if it does not exit within 15 s)."""
        stop_process(self.process, grace_s=15)


@contextmanager
def llama_server(
    model_path: str | Path | None = None,
    *,
    port: int | None = None,
    n_ctx: int = 2048,
    ready_timeout_s: float = 90,
) -> Iterator[RunningServer]:
    """Start llama-cpp-python's server (`python -m llama_cpp.server`, through arkg.llm.llamacpp_serve for
    its CPU settings) on 127.0.0.1, wait until it answers, stop it on exit."""
    model = Path(model_path) if model_path is not None else bundled_model_path()
    port = port or _free_port()
    log_path = Path(tempfile.mkstemp(prefix=f"llama-server-{port}-", suffix=".log")[1])
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "arkg.llm.llamacpp_serve", "--model", str(model),
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    server = RunningServer(f"http://127.0.0.1:{port}/v1", process, log_path)
    try:
        _wait_until_ready(server, ready_timeout_s)
        yield server
    finally:
        server.stop()
        log_path.unlink(missing_ok=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_ready(server: RunningServer, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ModelError(f"llama_cpp.server exited with status {server.process.returncode}:\n{_log_tail(server)}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:  # not listening yet
            time.sleep(0.2)
    raise ModelError(
        f"llama_cpp.server did not answer {server.base_url}/models within {timeout_s} s:\n{_log_tail(server)}"
    )


def _log_tail(server: RunningServer) -> str:
    return server.log_path.read_text(errors="replace")[-3000:]
