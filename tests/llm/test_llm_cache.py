"""The SQLite response cache, driven by a scripted model."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from arkg.errors import ModelError
from arkg.llm import CachedModel, Choice, Message, Sampling, ScriptedModel, Usage, open_model
from arkg.llm.cache import request_key


class Verdict(BaseModel):
    answer: bool
    reasons: list[str]


QUESTION = [Message(role="system", content="Be brief."), Message(role="user", content="Is Sablé in France?")]
CITIES = Choice(["Sablé-sur-Sarthe", 'The "Big" Apple', "東京"])


def counting_model() -> ScriptedModel:
    """Answers depend on the seed, so a wrong cache hit would show up as a wrong value."""

    def reply(messages, output, sampling):  # type: ignore[no-untyped-def]
        if isinstance(output, Choice):
            return output.options[(sampling.seed or 0) % len(output.options)]
        return {"answer": True, "reasons": [f"seed {sampling.seed}", messages[-1].content]}

    return ScriptedModel(reply, name="scripted:test")


def run(model: CachedModel) -> list[object]:
    return [
        model.complete(QUESTION, CITIES, Sampling(seed=1)).value,
        model.complete(QUESTION, Verdict, Sampling(seed=1)).value,
        model.complete(QUESTION, CITIES, Sampling(seed=2, temperature=1.0)).value,
    ]


def test_second_identical_run_makes_no_calls_and_returns_identical_values(tmp_path: Path) -> None:
    inner = counting_model()
    first = run(CachedModel(inner, tmp_path / "cache.sqlite"))
    assert len(inner.calls) == 3

    rerun_inner = counting_model()
    cached = CachedModel(rerun_inner, tmp_path / "cache.sqlite")  # a new process would open it like this
    second = run(cached)
    assert rerun_inner.calls == []
    assert second == first
    assert isinstance(second[1], Verdict)
    assert (cached.hits, cached.misses) == (3, 0)


def test_hit_reports_recorded_tokens_as_cached_call(tmp_path: Path) -> None:
    model = CachedModel(counting_model(), tmp_path / "cache.sqlite")
    miss = model.complete(QUESTION, Verdict)
    hit = model.complete(QUESTION, Verdict)
    assert miss.usage.calls == 1 and miss.usage.cached_calls == 0
    assert hit.usage == Usage(
        calls=0,
        cached_calls=1,
        prompt_tokens=miss.usage.prompt_tokens,
        completion_tokens=miss.usage.completion_tokens,
        latency_s=0.0,
    )
    assert hit.raw == miss.raw
    assert model.name == "scripted:test"


def test_anything_that_changes_the_reply_is_a_miss(tmp_path: Path) -> None:
    inner = counting_model()
    model = CachedModel(inner, tmp_path / "cache.sqlite")
    model.complete(QUESTION, CITIES, Sampling(seed=1))
    model.complete(QUESTION, CITIES, Sampling(seed=2))
    model.complete(QUESTION, CITIES, Sampling(seed=1, temperature=0.5))
    model.complete(QUESTION, CITIES, Sampling(seed=1, max_tokens=7))
    model.complete(QUESTION[1:], CITIES, Sampling(seed=1))
    model.complete(QUESTION, Choice([*CITIES.options, "Berlin"]), Sampling(seed=1))
    model.complete(QUESTION, Verdict, Sampling(seed=1))
    assert (model.hits, model.misses) == (0, 7)
    model.complete(QUESTION, CITIES, Sampling(seed=2))
    assert (model.hits, model.misses) == (1, 7)
    assert len(inner.calls) == 7


def test_model_name_is_part_of_the_key() -> None:
    one = request_key("llamacpp:a.gguf", QUESTION, CITIES, Sampling())
    assert one == request_key("llamacpp:a.gguf", QUESTION, CITIES, Sampling())
    assert one != request_key("llamacpp:b.gguf", QUESTION, CITIES, Sampling())


def test_open_model_cache_switch(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "default"))
    spec = "openai:some-model@http://127.0.0.1:9/v1"
    off = open_model(spec, cache=False)
    assert not isinstance(off, CachedModel)
    default = open_model(spec)
    assert isinstance(default, CachedModel)
    assert default.path == tmp_path / "default" / "responses.sqlite"
    assert default.name == off.name == "openai:some-model@http://127.0.0.1:9/v1"
    chosen = open_model(spec, cache=tmp_path / "mine.sqlite")
    assert isinstance(chosen, CachedModel) and chosen.path == tmp_path / "mine.sqlite"


def test_concurrent_threads_share_one_cache(tmp_path: Path) -> None:
    inner = counting_model()
    model = CachedModel(inner, tmp_path / "cache.sqlite")
    samplings = [Sampling(seed=i % 10) for i in range(200)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        values = list(pool.map(lambda s: model.complete(QUESTION, CITIES, s).value, samplings))
    assert values == [CITIES.options[(s.seed or 0) % 3] for s in samplings]
    assert model.hits + model.misses == 200
    assert model.misses >= 10  # each seed missed at least once; racing threads may both miss
    rows = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT count(*) FROM responses").fetchone()
    assert rows == (10,)


_WRITER = """
import sys
from arkg.llm import CachedModel, Choice, Message, Sampling, ScriptedModel
model = CachedModel(ScriptedModel(lambda m, o, s: o.options[s.seed % 2], name="scripted:test"), sys.argv[1])
for seed in range(int(sys.argv[2]), int(sys.argv[2]) + 50):
    model.complete([Message(role="user", content="q")], Choice(["a", "b"]), Sampling(seed=seed))
"""


def test_processes_write_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(start)]) for start in (0, 50)]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("SELECT count(*) FROM responses").fetchone() == (100,)
    assert {json.loads(v) for (v,) in db.execute("SELECT value FROM responses")} == {"a", "b"}


def test_a_file_that_is_not_a_cache_is_a_clear_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are my notes, not a database " * 100)
    with pytest.raises(ModelError, match=f"Response cache {notes} cannot be used"):
        CachedModel(counting_model(), notes)
    assert notes.read_text().startswith("these are my notes")
