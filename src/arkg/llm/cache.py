"""A response cache in SQLite: reruns of a cached run make no model calls and give identical results.

Replies are keyed on what determines them, the model's identity included (`model_identity`): a GGUF
model is known by its file's SHA-256, not its file name, so another file of the same name is never
answered from the cache. A stored reply is used only if its fields have the right types and its value
fits the request's output spec; any other entry (damaged, or stored by an older arkg) is a miss that
is logged as a warning, and the model's fresh reply replaces it. The warning goes through `logging`,
not `warnings`: nothing in the caller's code causes or can avoid it, and every such entry deserves
its line (the default warnings filter would show only the first).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arkg.errors import ModelError
from arkg.llm.base import ChatModel, Choice, Completion, FileHasher, Message, OutputSpec, Sampling, Usage, output_spec_key
from arkg.llm.file_digest import SCHEMA as FILE_DIGESTS_SCHEMA
from arkg.llm.file_digest import file_sha256, remembered_sha256
from arkg.text import clip, one_line

_log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    raw TEXT NOT NULL,
    value TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    reasoning TEXT,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0
)
"""
# Columns that files written by earlier versions lack; their entries stay valid.
_ADDED_COLUMNS = {"reasoning": "TEXT", "reasoning_tokens": "INTEGER NOT NULL DEFAULT 0"}
_COLUMNS = "key, model, raw, value, prompt_tokens, completion_tokens, reasoning, reasoning_tokens"


def model_identity(model: ChatModel, file_sha256: FileHasher) -> str:
    """What the cache keys `model`'s replies on: `model.cache_identity(file_sha256)` where the model
    defines it (see ChatModel), else `model.name`."""
    identify = getattr(model, "cache_identity", None)
    return identify(file_sha256) if identify is not None else model.name


def request_key(identity: str, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> str:
    """SHA-256 over everything that determines a reply: model identity, messages, output spec, sampling (incl. seed)."""
    request = {
        "model": identity,
        "messages": [[m.role, m.content] for m in messages],
        "sampling": sampling.model_dump(),
    }
    canonical = _canonical_json(request) + _canonical_output(output)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# A pydantic model's JSON schema is rebuilt on every call otherwise; specs repeat across calls.
@lru_cache(maxsize=256)
def _canonical_output(output: OutputSpec) -> str:
    return _canonical_json(output_spec_key(output))


_LOCK_TIMEOUT_S = 30.0


def _setup(db: sqlite3.Connection) -> None:
    """Switch to WAL and create the tables, waiting out other processes doing the same.

    SQLite answers "database is locked" to a journal-mode change at once, without its busy
    handler, while another connection sets up the same new file; so the wait is ours.
    """
    deadline = time.monotonic() + _LOCK_TIMEOUT_S
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # In WAL mode this still never corrupts the file; it only skips an fsync per entry.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            _add_columns(db)
            db.execute(FILE_DIGESTS_SCHEMA)
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _add_columns(db: sqlite3.Connection) -> None:
    present = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
    for column, declaration in _ADDED_COLUMNS.items():
        if column not in present:
            try:
                db.execute(f"ALTER TABLE responses ADD COLUMN {column} {declaration}")
            except sqlite3.OperationalError as error:
                if "duplicate column" not in str(error):  # else another process added it first
                    raise


class _UnusableEntry(Exception):
    """A stored reply that cannot answer the request; the message says why."""


class CachedModel:
    """Wraps a ChatModel; identical requests are answered from a SQLite file instead of the model.

    A hit returns the stored value, raw text and reasoning with usage calls=0, cached_calls=1, the
    originally recorded token counts and zero latency. The file is in WAL mode and each entry is written in
    one transaction, so threads and processes can share it and a crash never leaves half an entry.
    `name` is the wrapped model's; `identity` is what entries are keyed on (model_identity).
    """

    def __init__(self, model: ChatModel, path: str | Path) -> None:
        self.model = model
        self.name = model.name
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self.misses = 0
        # One connection shared by this object's threads; the lock keeps them from interleaving
        # statements. Model calls happen outside the lock.
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=_LOCK_TIMEOUT_S, check_same_thread=False, isolation_level=None)
            _setup(self._db)
        except sqlite3.DatabaseError as error:
            raise ModelError(f"Response cache {self.path} cannot be used: {error}") from error
        self.identity = model_identity(model, self._file_sha256)

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        key = request_key(self.identity, messages, output, sampling)
        cached = self._lookup(key, output)
        if cached is not None:
            return cached
        completion = self.model.complete(messages, output, sampling)
        self._store(key, completion, output)
        return completion

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _lookup(self, key: str, output: OutputSpec) -> Completion[Any] | None:
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT raw, value, prompt_tokens, completion_tokens, reasoning, reasoning_tokens "
                    "FROM responses WHERE key = ?",
                    (key,),
                ).fetchone()
            except sqlite3.DatabaseError as error:  # a damaged page, or a row that is not UTF-8
                self._warn(f"cannot read entry {key[:12]} ({error})")
                return None
        if row is None:
            return None
        try:
            completion = _completion(row, output)
        except _UnusableEntry as reason:
            self._warn(f"ignoring entry {key[:12]}: {reason}")
            return None
        with self._lock:
            self.hits += 1
        return completion

    def _store(self, key: str, completion: Completion[Any], output: OutputSpec) -> None:
        with self._lock:
            self.misses += 1
            try:
                self._db.execute(
                    f"INSERT OR REPLACE INTO responses ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        key,
                        self.identity,
                        completion.raw,
                        _dump_value(completion.value, output),
                        completion.usage.prompt_tokens,
                        completion.usage.completion_tokens,
                        completion.reasoning,
                        completion.usage.reasoning_tokens,
                    ),
                )
            except sqlite3.DatabaseError as error:
                self._warn(f"cannot store entry {key[:12]} ({error})")

    def _file_sha256(self, path: Path) -> str:
        try:
            return remembered_sha256(self._db, path)
        except sqlite3.DatabaseError as error:
            self._warn(f"cannot remember the SHA-256 of {path} ({error})")
            return file_sha256(path)

    def _warn(self, problem: str) -> None:
        _log.warning("Response cache %s: %s; asking the model instead", self.path, problem)


def _completion(row: tuple[Any, ...], output: OutputSpec) -> Completion[Any]:
    raw, value, prompt_tokens, completion_tokens, reasoning, reasoning_tokens = row
    texts_ok = isinstance(raw, str) and isinstance(value, str) and isinstance(reasoning, (str, type(None)))
    if not (texts_ok and all(map(_is_count, (prompt_tokens, completion_tokens, reasoning_tokens)))):
        raise _UnusableEntry("its fields have the wrong types")
    usage = Usage(
        cached_calls=1,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_tokens,
    )
    return Completion(value=_load_value(value, output), raw=raw, usage=usage, reasoning=reasoning)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and value >= 0


def _dump_value(value: Any, output: OutputSpec) -> str:
    if isinstance(output, Choice):
        return json.dumps(value, ensure_ascii=False)
    return value.model_dump_json()


def _load_value(stored: str, output: OutputSpec) -> Any:
    if isinstance(output, Choice):
        try:
            option = json.loads(stored)
        except (ValueError, RecursionError):
            raise _UnusableEntry(f"its value is not JSON: {clip(one_line(stored), 80)}") from None
        if not isinstance(option, str) or option not in output.options:
            raise _UnusableEntry(f"its value {clip(one_line(stored), 80)} is none of the options offered")
        return option
    try:
        return output.model_validate_json(stored)
    except ValidationError as error:
        raise _UnusableEntry(f"its value does not validate as {output.__name__} ({error.error_count()} errors)") from None
