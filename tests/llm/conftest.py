"""Real-model fixtures for the LLM tests: the bundled model in process, and llama.cpp's HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arkg.llm import LlamaCppModel
from arkg.llm.llamacpp_server import llama_server


@pytest.fixture(scope="session")
def bundled_model() -> LlamaCppModel:
    """The bundled SmolLM2-135M, loaded once for the whole session."""
    return LlamaCppModel(n_ctx=2048)


@pytest.fixture(scope="module")
def llama_server_url() -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on the bundled model, on a free port of 127.0.0.1."""
    with llama_server() as server:
        yield server.base_url
