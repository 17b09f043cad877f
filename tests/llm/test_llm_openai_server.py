"""OpenAICompatModel against a real llama.cpp server (llama-cpp-python's) started on 127.0.0.1."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from arkg.errors import ModelError
from arkg.llm import Choice, Message, OpenAICompatModel, Sampling
from arkg.llm.llamacpp_server import llama_server

pytestmark = pytest.mark.slow


class Capital(BaseModel):
    country: str = Field(max_length=20)
    is_capital: bool
    confidence: Literal["low", "high"]


ASK = [
    Message(role="system", content="You answer in JSON."),
    Message(role="user", content="Is Paris the capital of France?"),
]
# No quotes or backslashes: llama-cpp-python's server builds the enum grammar with a converter that
# does not escape them, and crashes (arkg's in-process backend fixes that converter, see grammar.py).
CITIES = ["Le Grand Café", "Zürich, CH", "東京", "São Paulo"]


def test_structured_pydantic_output_validates(llama_server_url: str) -> None:
    model = OpenAICompatModel("smollm2", llama_server_url, timeout=60, max_retries=1)
    for seed in range(3):
        completion = model.complete(ASK, Capital, Sampling(temperature=1.0, seed=seed, max_tokens=60))
        assert isinstance(completion.value, Capital)
        assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0
        assert completion.usage.calls >= 1 and completion.usage.latency_s > 0


def test_structured_choice_validates(llama_server_url: str) -> None:
    model = OpenAICompatModel("smollm2", llama_server_url, timeout=60, max_retries=1)
    for seed in range(3):
        completion = model.complete(ASK, Choice(CITIES), Sampling(temperature=1.0, seed=seed, max_tokens=30))
        assert completion.value in CITIES
        assert completion.usage.total_tokens > 0


def test_stopped_server_is_a_clear_error() -> None:
    with llama_server() as server:
        # The timeout only has to cover the first, successful call on a busy machine: a stopped
        # server refuses connections at once, and one retry adds a 0.5 s backoff.
        model = OpenAICompatModel("smollm2", server.base_url, timeout=30, max_retries=1)
        assert model.complete(ASK, Choice(CITIES), Sampling(max_tokens=30)).value in CITIES
        server.stop()
        started = time.monotonic()
        with pytest.raises(ModelError, match=f"Cannot reach {server.base_url}"):
            model.complete(ASK, Choice(CITIES), Sampling(max_tokens=30))
        assert time.monotonic() - started < 10


def test_server_that_cannot_start_reports_its_log(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    with pytest.raises(ModelError, match=r"llama_cpp\.server exited with status"), llama_server(broken):
        pass
