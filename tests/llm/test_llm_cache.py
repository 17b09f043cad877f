"""The SQLite response cache, driven by a scripted model."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
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
from arkg.llm.file_digest import REMEMBER_FROM_BYTES


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


_OPENER = """
import sys
from pathlib import Path
from arkg.llm import CachedModel, Choice, Message, ScriptedModel

class FileBacked(ScriptedModel):
    def cache_identity(self, file_sha256):
        return "test:sha256:" + file_sha256(Path(sys.argv[2]))

model = CachedModel(FileBacked(lambda m, o, s: o.options[0]), sys.argv[1])
model.complete([Message(role="user", content=sys.argv[3])], Choice(["a"]))
"""


def test_processes_opening_an_older_cache_file_together(tmp_path: Path) -> None:
    """The digest table and new columns are added safely by processes that start at once."""
    path, weights = tmp_path / "cache.sqlite", tmp_path / "model.gguf"
    weights.write_bytes(b"weights".ljust(REMEMBER_FROM_BYTES, b"\0"))
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, raw TEXT NOT NULL, "
        "value TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)"
    )
    old.close()
    openers = [
        subprocess.Popen([sys.executable, "-c", _OPENER, str(path), str(weights), f"question {i}"]) for i in range(6)
    ]
    assert [opener.wait(timeout=120) for opener in openers] == [0] * 6
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM responses WHERE reasoning_tokens = 0").fetchone() == (6,)
    assert db.execute("SELECT path FROM file_digests_v2").fetchall() == [(str(weights.resolve()),)]


def test_a_file_that_is_not_a_cache_is_a_clear_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are my notes, not a database " * 100)
    with pytest.raises(ModelError, match=f"Response cache {notes} cannot be used"):
        CachedModel(counting_model(), notes)
    assert notes.read_text().startswith("these are my notes")


class FileBackedModel(ScriptedModel):
    """Replies with its weights file's text: like a GGUF model, what it says depends on the file's content."""

    def __init__(self, path: Path) -> None:
        super().__init__(lambda messages, output, sampling: path.read_text(), name=f"llamacpp:{path.name}")
        self.path = path

    def cache_identity(self, file_sha256) -> str:  # type: ignore[no-untyped-def]
        return f"test:sha256:{file_sha256(self.path)}"


TWO_CITIES = Choice(["Lyon", "Nantes"])


def test_another_model_file_under_the_same_name_is_not_answered_from_the_cache(tmp_path: Path) -> None:
    """The key names the model by its content, not its file name."""
    first, second = tmp_path / "a" / "model.gguf", tmp_path / "b" / "model.gguf"
    for path, city in ((first, "Lyon"), (second, "Nantes")):
        path.parent.mkdir()
        path.write_text(city)
    cache = tmp_path / "cache.sqlite"
    assert CachedModel(FileBackedModel(first), cache).complete(QUESTION, TWO_CITIES).value == "Lyon"
    other = CachedModel(FileBackedModel(second), cache)
    assert other.name == "llamacpp:model.gguf"  # the readable name is unchanged; only the key differs
    assert other.complete(QUESTION, TWO_CITIES).value == "Nantes"
    assert (other.hits, other.misses) == (0, 1)

    first.write_text("Nantes")  # the same path, rewritten: a new mtime and content
    assert CachedModel(FileBackedModel(first), cache).complete(QUESTION, TWO_CITIES).value == "Nantes"
    same_content = tmp_path / "copy.gguf"
    same_content.write_text("Nantes")
    rerun = CachedModel(FileBackedModel(same_content), cache)
    assert rerun.complete(QUESTION, TWO_CITIES).value == "Nantes" and rerun.hits == 1


def test_a_file_digest_is_computed_once_and_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The content hash of a large file is remembered by path, size, mtime, inode and change time."""
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"weights ".ljust(REMEMBER_FROM_BYTES, b"\0"))
    first = CachedModel(FileBackedModel(weights), tmp_path / "cache.sqlite")
    assert first.identity == f"test:sha256:{hashlib.sha256(weights.read_bytes()).hexdigest()}"
    row = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT path, size, mtime_ns FROM file_digests_v2").fetchone()
    assert row == (str(weights.resolve()), weights.stat().st_size, weights.stat().st_mtime_ns)

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} hashed again")

    monkeypatch.setattr("arkg.llm.file_digest.file_sha256", no_hashing)
    assert CachedModel(FileBackedModel(weights), tmp_path / "cache.sqlite").identity == first.identity
    monkeypatch.undo()
    weights.write_bytes(b"other weights")
    assert CachedModel(FileBackedModel(weights), tmp_path / "cache.sqlite").identity != first.identity


@pytest.mark.parametrize("size", [5_000_000, REMEMBER_FROM_BYTES], ids=["adapter-sized", "remembered"])
def test_another_file_copied_over_the_path_with_its_mtime_set_back_is_another_model(tmp_path: Path, size: int) -> None:
    """`cp b.gguf a.gguf && touch -r`: the path, size and modification time stay; the content decides."""
    first, second = tmp_path / "a.gguf", tmp_path / "b.gguf"
    first.write_bytes(b"first".ljust(size, b"\0"))
    second.write_bytes(b"second".ljust(size, b"\0"))
    cache = tmp_path / "cache.sqlite"
    assert CachedModel(FileBackedModel(first), cache).identity == f"test:sha256:{hashlib.sha256(first.read_bytes()).hexdigest()}"
    before = first.stat()
    shutil.copyfile(second, first)
    os.utime(first, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (first.stat().st_size, first.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert CachedModel(FileBackedModel(first), cache).identity == f"test:sha256:{hashlib.sha256(second.read_bytes()).hexdigest()}"


def test_a_digest_remembered_by_an_older_cache_for_the_same_path_size_and_mtime_is_not_trusted(tmp_path: Path) -> None:
    """Such a row says nothing of the inode or change time, so it may describe another file."""
    weights, path = tmp_path / "model.gguf", tmp_path / "cache.sqlite"
    weights.write_bytes(b"weights".ljust(REMEMBER_FROM_BYTES, b"\0"))
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE file_digests (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL)")
    old.execute("INSERT INTO file_digests VALUES (?, ?, ?, ?)", (str(weights.resolve()), weights.stat().st_size, weights.stat().st_mtime_ns, "0" * 64))
    old.commit()
    old.close()
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert CachedModel(FileBackedModel(weights), path).identity == f"test:sha256:{digest}"
    assert sqlite3.connect(path).execute("SELECT sha256, inode FROM file_digests_v2").fetchall() == [(digest, weights.stat().st_ino)]


def _store_then_damage(tmp_path: Path, output, column: str, stored: object) -> CachedModel:  # type: ignore[no-untyped-def]
    """A cache holding one entry for (QUESTION, output) whose `column` was overwritten with `stored`."""
    model = CachedModel(counting_model(), tmp_path / "cache.sqlite")
    model.complete(QUESTION, output)
    # Bytes are stored as TEXT that is not UTF-8, which SQLite itself refuses to read back.
    value = "CAST(? AS TEXT)" if isinstance(stored, bytes) else "?"
    model._db.execute(f"UPDATE responses SET {column} = {value}", (stored,))
    return CachedModel(counting_model(), tmp_path / "cache.sqlite")


@pytest.mark.parametrize(
    ("output", "column", "stored", "reason"),
    [
        (CITIES, "value", json.dumps("Berlin"), "none of the options offered"),
        (CITIES, "value", json.dumps(["Sablé-sur-Sarthe"]), "none of the options offered"),
        (CITIES, "value", '"Sablé-sur-', "not JSON"),
        (Verdict, "value", '{"answer": "perhaps"}', "does not validate as Verdict"),
        (Verdict, "value", "{not json", "does not validate as Verdict"),
        (Verdict, "prompt_tokens", "many", "wrong types"),
        (Verdict, "prompt_tokens", 2.5, "wrong types"),
        (Verdict, "completion_tokens", -3, "wrong types"),
        (CITIES, "value", b"\xff\xfe not UTF-8", "cannot read entry"),
    ],
)
def test_an_unusable_entry_is_a_miss_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, output, column: str, stored: object, reason: str  # type: ignore[no-untyped-def]
) -> None:
    """A cached value is validated against the request; a corrupt entry is never a traceback."""
    model = _store_then_damage(tmp_path, output, column, stored)
    with caplog.at_level(logging.WARNING, logger="arkg.llm.cache"):
        completion = model.complete(QUESTION, output)
    assert completion.value == counting_model().complete(QUESTION, output).value
    assert (model.hits, model.misses) == (0, 1) and len(model.model.calls) == 1
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert str(model.path) in caplog.text and reason in caplog.text
    assert model.complete(QUESTION, output).value == completion.value  # the fresh reply replaced the entry
    assert model.hits == 1


def test_a_damaged_cache_file_is_a_miss_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Pages of the file overwritten with garbage cost model calls, not a traceback."""
    path = tmp_path / "cache.sqlite"
    model = CachedModel(counting_model(), path)
    padding = "x" * 3000  # a few entries per page, so the table spans many pages
    for seed in range(60):
        model.complete([Message(role="user", content=f"{padding} {seed}")], Verdict, Sampling(seed=seed))
    model._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    model.close()
    page_size = 4096
    with path.open("r+b") as file:  # keep page 1 (the schema), ruin every other page
        file.seek(page_size)
        file.write(bytes(range(256)) * ((path.stat().st_size - page_size) // 256))
    damaged = CachedModel(counting_model(), path)
    with caplog.at_level(logging.WARNING, logger="arkg.llm.cache"):
        completion = damaged.complete([Message(role="user", content=f"{padding} 7")], Verdict, Sampling(seed=7))
    assert completion.value.reasons[0] == "seed 7"
    assert "malformed" in caplog.text and str(path) in caplog.text
