"""SHA-256 of large files (model weights), computed once and remembered in a SQLite table.

Hashing a GGUF file takes a noticeable fraction of a second per 100 MB; a table keyed by the file's
resolved path, size and modification time (ns) answers later asks at once. A file rewritten in
place gets a new mtime, so it is hashed again.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS file_digests (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL
)
"""

_SHA256 = re.compile(r"[0-9a-f]{64}")


def remembered_sha256(db: sqlite3.Connection, path: Path) -> str:
    """Hex SHA-256 of the file at `path`, read from `db`'s file_digests table or computed and stored there.

    sqlite3 errors reach the caller; the table must exist (SCHEMA).
    """
    path = path.resolve()
    before = path.stat()
    identity = (str(path), before.st_size, before.st_mtime_ns)
    row = db.execute("SELECT sha256 FROM file_digests WHERE path = ? AND size = ? AND mtime_ns = ?", identity).fetchone()
    if row is not None and isinstance(row[0], str) and _SHA256.fullmatch(row[0]):
        return row[0]
    digest = file_sha256(path)
    after = path.stat()
    # A file written to while it was read has no single digest: use this one, remember none.
    if (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns):
        db.execute("INSERT OR REPLACE INTO file_digests VALUES (?, ?, ?, ?)", (*identity, digest))
    return digest


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file at `path`, computed now."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()
