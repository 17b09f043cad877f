"""A local SPARQL endpoint for trying the backend offline: an RDF file served by `oxigraph`.

The `oxigraph` command comes from the PyPI package of that name (in arkg's `dev` extra). Tests and
benchmarks use it as a real SPARQL 1.1 server on 127.0.0.1.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arkg.errors import ArkgError
from arkg.processes import stop_process


def oxigraph_command() -> str:
    beside_python = Path(sys.executable).with_name("oxigraph")
    found = str(beside_python) if beside_python.is_file() else shutil.which("oxigraph")
    if found is None:
        raise ArkgError("the `oxigraph` server is not installed: pip install oxigraph (or arkg[dev])")
    return found


@contextmanager
def serve_rdf(data: Path, workdir: Path, *, deadline_s: float = 60.0) -> Iterator[str]:
    """Load `data` (Turtle, N-Triples, ...) into a new store under `workdir`, serve it read-only
    on a free port of 127.0.0.1, and yield its query URL; the server is stopped on exit."""
    command = oxigraph_command()
    store = workdir / "oxigraph"
    loaded = subprocess.run([command, "load", "--location", str(store), "--file", str(data)], capture_output=True)
    if loaded.returncode != 0:
        raise ArkgError(f"{data}: oxigraph could not load it ({loaded.stderr.decode(errors='replace').strip()})")
    port = _free_port()
    with (workdir / "oxigraph.log").open("wb") as log:
        server = subprocess.Popen(
            [command, "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/query"
        try:
            _wait_until_ready(url, server, time.monotonic() + deadline_s)
            yield url
        finally:
            stop_process(server)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_ready(url: str, server: subprocess.Popen[bytes], deadline: float) -> None:
    probe = urllib.request.Request(f"{url}?query=ASK%7B%7D", headers={"Accept": "application/sparql-results+json"})
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ArkgError(f"oxigraph exited with status {server.returncode} before serving {url}")
        try:
            with urllib.request.urlopen(probe, timeout=1):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.05)
    raise ArkgError(f"oxigraph did not answer at {url} within the deadline")
