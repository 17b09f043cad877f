"""The real bundled model for the agent's integration tests, loaded once per session."""

from __future__ import annotations

import pytest

from arkg.llm.llamacpp import LlamaCppModel


@pytest.fixture(scope="session")
def smollm() -> LlamaCppModel:
    return LlamaCppModel(n_ctx=4096)
