"""An adapter whose every stored value is finite can still overflow in llama.cpp's activations, and
llama.cpp then aborts the process while sampling. arkg runs an adapter on a short prompt when it loads
it, never lets a non-finite logit reach llama.cpp's samplers, and `arkg tune` exports nothing it
cannot run."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from support.serving import SAMPLE_QUESTION, read_events

from arkg.data import tuned_adapter_path
from arkg.errors import ModelError
from arkg.llm import open_model
from arkg.llm.base import Choice, Message, Sampling
from arkg.llm.llamacpp import adapter_run_failure
from arkg.server import ServerConfig, create_app
from arkg.session import Session
from arkg.tune.adapter_file import read_lora_file, write_lora_file

pytestmark = pytest.mark.slow

RUN_FAILURE = r"run on SmolLM2-135M-Instruct\.Q4_1\.gguf, it gives [\d,]+ NaN or infinite logits \(of 49,152\) for a short prompt; llama\.cpp cannot decode with it"


def _uniform_adapter(path: Path, update: float, *, verify=None) -> Path:  # type: ignore[no-untyped-def]
    """The shipped adapter's tensors, every value one number, so that (alpha / r) B A changes every
    weight by `update`: finite, and under the bound the file check tests."""
    shapes = {name: values.shape for name, values in read_lora_file(tuned_adapter_path("tuned")).tensors.items()}
    rank = next(iter(shapes.values()))[0]
    value = math.sqrt(update / rank)
    return write_lora_file({name: np.full(shape, value, np.float32) for name, shape in shapes.items()}, path, alpha=rank, verify=verify)


@pytest.fixture(scope="module")
def overflowing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _uniform_adapter(tmp_path_factory.mktemp("adapter") / "overflowing.gguf", update=10)


def test_an_adapter_that_overflows_when_run_is_refused_in_one_line_by_the_command(tmp_path: Path, overflowing: Path) -> None:
    adapter = overflowing
    done = subprocess.run(
        [sys.executable, "-c", "from arkg.cli import main; main()", "ask", SAMPLE_QUESTION, "--model", f"llamacpp:+{adapter}"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**os.environ, "ARKG_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "400"},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if not line.startswith("llama_adapter_lora_init_impl")]
    assert len(lines) == 1 and lines[0].startswith(f"Error: {adapter}: run on "), done.stderr[-2000:]
    assert "(tuned with too high a learning rate?)" in lines[0]


def test_the_check_runs_the_shipped_adapters_and_finds_them_sound() -> None:
    assert adapter_run_failure(tuned_adapter_path("tuned")) is None
    assert adapter_run_failure(tuned_adapter_path("tuned-kg-agent")) is None


def test_the_model_with_the_refused_adapter_is_not_half_loaded(overflowing: Path) -> None:
    """The adapter is unloaded again: the same loaded weights answer with no adapter, or the shipped one."""
    plain = open_model("llamacpp", cache=False)
    with pytest.raises(ModelError, match=RUN_FAILURE):
        plain.with_adapter(overflowing)
    assert overflowing not in plain._weights._adapters
    tuned = plain.with_adapter(tuned_adapter_path("tuned"))
    for model in (plain, tuned):
        reply = model.complete([Message(role="user", content=SAMPLE_QUESTION)], Choice(["yes", "no"]), Sampling(max_tokens=4))
        assert reply.value in ("yes", "no")


def test_writing_an_adapter_with_a_run_check_leaves_nothing_when_it_fails(tmp_path: Path) -> None:
    target = tmp_path / "adapter.gguf"
    with pytest.raises(ModelError, match=f"^{target}: not written: {RUN_FAILURE}$"):
        _uniform_adapter(target, 10, verify=adapter_run_failure)
    assert list(tmp_path.iterdir()) == []


_DECODE_PAST_THE_CHECK = """
import sys
from arkg.errors import ModelError
from arkg.llm import open_model
from arkg.llm.base import Choice, Message, Sampling
from arkg.llm.base import Message, Sampling
from arkg.llm.llamacpp import _LoadedWeights
from pydantic import BaseModel

class Reply(BaseModel):
    answer: bool
    reason: str

_LoadedWeights._run_failure = lambda self, adapter: None  # as if the load-time run had passed
model = open_model(f"llamacpp:+{sys.argv[1]}", cache=False)
try:
    model.complete([Message(role="user", content="Was Marie Curie born in Warsaw?")], Reply, Sampling(max_tokens=48))
except ModelError as error:
    print(error)
    sys.exit(1)
"""


def test_non_finite_logits_while_decoding_are_an_error_not_an_abort(overflowing: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _DECODE_PAST_THE_CHECK, str(overflowing)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])  # llama.cpp's abort: -6, or 134 from a shell
    assert done.stdout.strip() == (
        "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf+overflowing.gguf: the model gave NaN or infinite logits at token 1"
        " of its reply; it cannot decode with these weights (a damaged model or adapter?)"
    )


def test_the_server_survives_a_run_on_an_adapter_that_overflows(overflowing: Path) -> None:
    session = Session(model=f"llamacpp:+{overflowing}", cache=False)
    with TestClient(create_app(session, ServerConfig()), base_url="http://127.0.0.1") as client:
        for _ in range(2):  # the failed load is not remembered as loaded: the second run fails the same way
            run = client.post("/api/runs", json={"question": SAMPLE_QUESTION, "strategy": "ark", "max_calls": 2}).json()
            with client.stream("GET", run["events"]) as stream:
                kind, end = read_events(stream)[-1]
            assert kind == "end" and end["state"] == "failed", end
            assert str(overflowing) in end["error"] and "NaN or infinite logits" in end["error"]
        # Still serving: the graph answers, and the model's error is an answer too, not a crash.
        assert client.get("/api/entities", params={"q": "Marie Curie"}).status_code == 200
        info = client.get("/api/info")
        assert info.status_code == 422 and "NaN or infinite logits" in info.json()["error"]
