"""Servers for the OpenAI-compatible backend's tests: a scripted one, and llama.cpp's on the bundled model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from scripted_server import Reply, ScriptedServer

from arkg.llm.llamacpp_server import llama_server


@pytest.fixture(scope="module")
def llama_server_url() -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on the bundled model, on a free port of 127.0.0.1."""
    with llama_server() as server:
        yield server.base_url


@pytest.fixture
def serve() -> Iterator[Any]:
    """`serve(*replies)` starts a ScriptedServer on 127.0.0.1 (a function of the request body works too)."""
    servers: list[ScriptedServer] = []

    def start(*replies: Reply) -> ScriptedServer:
        servers.append(ScriptedServer(replies[0] if len(replies) == 1 and callable(replies[0]) else list(replies)))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
