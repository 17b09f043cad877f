"""A FalkorDB Bolt server for tests: on a free port of 127.0.0.1, reachable from this machine only (see
arkg.graph.bolt.local_server), stopped at the end."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from arkg.graph.bolt.local_server import ServerUnavailable, serve_falkordb


@contextmanager
def falkordb(workdir: Path, *, password: str | None = None) -> Iterator[str]:
    """The bolt:// URL of a fresh server; the test is skipped only when FalkorDB cannot run here, or cannot
    be kept off the network here (no network namespace)."""
    with ExitStack() as stack:
        try:
            url = stack.enter_context(serve_falkordb(workdir, password=password))
        except ServerUnavailable as error:
            pytest.skip(f"FalkorDB cannot run here, so the Bolt backend is not tested: {error}")
        yield url
