"""A response cache in SQLite: reruns of a cached run make no model calls and give identical results."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.base import ChatModel, Choice, Completion, Message, OutputSpec, Sampling, Usage, output_spec_key

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    raw TEXT NOT NULL,
    value TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
)
"""


def request_key(model_name: str, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> str:
    """SHA-256 over everything that determines a reply: model, messages, output spec, sampling (incl. seed)."""
    request = {
        "model": model_name,
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
    """Switch to WAL and create the table, waiting out other processes doing the same.

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
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class CachedModel:
    """Wraps a ChatModel; identical requests are answered from a SQLite file instead of the model.

    A hit returns the stored value and raw text with usage calls=0, cached_calls=1, the originally
    recorded token counts and zero latency. The file is in WAL mode and each entry is written in
    one transaction, so threads and processes can share it and a crash never leaves half an entry.
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

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        key = request_key(self.name, messages, output, sampling)
        with self._lock:
            row = self._db.execute(
                "SELECT raw, value, prompt_tokens, completion_tokens FROM responses WHERE key = ?", (key,)
            ).fetchone()
            if row is not None:
                self.hits += 1
        if row is not None:
            raw, value, prompt_tokens, completion_tokens = row
            usage = Usage(cached_calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
            return Completion(value=_load_value(value, output), raw=raw, usage=usage)

        completion = self.model.complete(messages, output, sampling)
        with self._lock:
            self.misses += 1
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    self.name,
                    completion.raw,
                    _dump_value(completion.value, output),
                    completion.usage.prompt_tokens,
                    completion.usage.completion_tokens,
                ),
            )
        return completion

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _dump_value(value: Any, output: OutputSpec) -> str:
    if isinstance(output, Choice):
        return json.dumps(value, ensure_ascii=False)
    return value.model_dump_json()


def _load_value(stored: str, output: OutputSpec) -> Any:
    if isinstance(output, Choice):
        return json.loads(stored)
    return output.model_validate_json(stored)
