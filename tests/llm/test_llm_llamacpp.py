"""The in-process backend with the real bundled model: grammar-constrained decisions always validate."""

from __future__ import annotations

import hashlib
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, StringConstraints

from arkg.errors import ModelError
from arkg.llm import CachedModel, Choice, LlamaCppModel, Message, Sampling, open_model

pytestmark = pytest.mark.slow

CANDIDATES = [
    'The "Big" Apple',
    "C:\\data\\kg",
    "Paris, Texas",
    "Paris",
    "São Paulo",
    "Zürich",
    "Köln",
    "Sablé-sur-Sarthe",
    "東京",
    "北京市",
    "서울",
    "Αθήνα",
    "Москва",
    "O'Hare",
    'say "hi", then \\ leave',
    "a, b, and c",
    "Ñandú",
    "Łódź",
    "Reykjavík",
    "Malmö",
] + [f"entity {i}, kind {i % 3}" for i in range(30)]

CHOOSE = [
    Message(role="system", content="You pick one entity from the list. Reply with the entity only."),
    Message(role="user", content="Which entity is a city in Japan? Options: " + "; ".join(CANDIDATES)),
]


def test_fifty_tricky_candidates_sampled_twenty_times_are_always_a_candidate(bundled_model: LlamaCppModel) -> None:
    assert len(CANDIDATES) == 50
    picks = []
    for seed in range(20):
        completion = bundled_model.complete(
            CHOOSE, Choice(CANDIDATES), Sampling(temperature=1.0, seed=seed, max_tokens=8)
        )
        assert completion.value in CANDIDATES
        assert completion.raw == completion.value  # the raw text is the candidate itself, no JSON quoting
        assert (
            completion.usage.calls == 1
            and completion.usage.prompt_tokens > 0
            and completion.usage.completion_tokens > 0
        )
        picks.append(completion.value)
    assert len(set(picks)) > 1, "different seeds at temperature 1.0 should not all agree"


def test_hundreds_of_candidates(bundled_model: LlamaCppModel) -> None:
    many = CANDIDATES + [f'Q{i}: Ärger, "quoted" \\ 北' for i in range(350)]
    assert len(many) == 400
    for seed in range(3):
        completion = bundled_model.complete(CHOOSE, Choice(many), Sampling(temperature=1.0, seed=seed, max_tokens=8))
        assert completion.value in many


def test_same_seed_same_pick(bundled_model: LlamaCppModel) -> None:
    sampling = Sampling(temperature=1.0, seed=123, max_tokens=8)
    first = bundled_model.complete(CHOOSE, Choice(CANDIDATES), sampling).value
    assert all(bundled_model.complete(CHOOSE, Choice(CANDIDATES), sampling).value == first for _ in range(2))


Short = Annotated[str, StringConstraints(max_length=12)]


class Evidence(BaseModel):
    relation: Short
    supports: bool


class Step(BaseModel):
    answer: Literal["True", "False", "None"]
    tag: Literal['say "yes"', "C:\\dir", "Café", "東京"]
    cited: list[Short] = Field(max_length=3)
    evidence: Evidence
    done: bool


REASON = [
    Message(role="system", content="Answer in JSON."),
    Message(role="user", content="Triples: T1 (Paris, capital of, France). Is Paris the capital of France? Cite T1."),
]


@pytest.mark.parametrize("seed", range(6))
def test_nested_model_parses_at_temperature_one(bundled_model: LlamaCppModel, seed: int) -> None:
    completion = bundled_model.complete(REASON, Step, Sampling(temperature=1.0, seed=seed, max_tokens=160))
    assert isinstance(completion.value, Step)
    assert Step.model_validate_json(completion.raw) == completion.value


def test_truncated_json_is_an_error_not_garbage(bundled_model: LlamaCppModel) -> None:
    # The error shows how the reply began, to tell which field ran long.
    with pytest.raises(ModelError, match=r"cut off at max_tokens=4 \(\d+ characters so far, starting '\{"):
        bundled_model.complete(REASON, Step, Sampling(max_tokens=4))


def test_prompt_longer_than_the_context_is_an_error(bundled_model: LlamaCppModel) -> None:
    huge = [Message(role="user", content="word " * 5000)]
    with pytest.raises(ModelError, match=re.escape("llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf: Requested tokens")):
        bundled_model.complete(huge, Choice(["a", "b"]))


def test_concurrent_callers_take_turns(bundled_model: LlamaCppModel) -> None:
    greedy = Sampling(temperature=0.0, max_tokens=8)
    alone = bundled_model.complete(CHOOSE, Choice(CANDIDATES), greedy).value
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(lambda _: bundled_model.complete(CHOOSE, Choice(CANDIDATES), greedy).value, range(3)))
    assert together == [alone] * 3


def test_unreadable_model_file_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    with pytest.raises(ModelError, match=f"Could not load the GGUF model {broken}"):
        LlamaCppModel(broken)


def test_the_cache_tells_gguf_files_of_the_same_name_apart(bundled_model: LlamaCppModel, tmp_path: Path) -> None:
    """A different GGUF file under the bundled file's name gets no stale replies."""
    altered = tmp_path / "elsewhere" / bundled_model.path.name
    altered.parent.mkdir()
    shutil.copyfile(bundled_model.path, altered)
    with altered.open("r+b") as file:  # one byte of the last tensor's weights: still a loadable model
        file.seek(-4096, 2)
        byte = file.read(1)[0]
        file.seek(-4096, 2)
        file.write(bytes([byte ^ 0xFF]))
    other = open_model(f"llamacpp:{altered}", cache=False)
    assert other.name == bundled_model.name == "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"

    cache = tmp_path / "cache.sqlite"
    original = CachedModel(bundled_model, cache)
    digest = hashlib.sha256(bundled_model.path.read_bytes()).hexdigest()
    assert original.identity == f"llamacpp:sha256:{digest}"
    ask, pick = [Message(role="user", content="Pick a city.")], Choice(["Paris", "東京"])
    original.complete(ask, pick)
    altered_cached = CachedModel(other, cache)
    altered_cached.complete(ask, pick)
    assert (altered_cached.hits, altered_cached.misses) == (0, 1)
    assert CachedModel(bundled_model, cache).complete(ask, pick).usage.cached_calls == 1
