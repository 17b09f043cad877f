"""llama.cpp's HTTP server on the bundled model, for the OpenAI-compatible backend's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arkg.llm.llamacpp_server import llama_server


@pytest.fixture(scope="module")
def llama_server_url() -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on the bundled model, on a free port of 127.0.0.1."""
    with llama_server() as server:
        yield server.base_url
