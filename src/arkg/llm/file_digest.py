"""SHA-256 of large files (model weights), computed once and remembered in a SQLite table.

Hashing a GGUF file takes a noticeable fraction of a second per 100 MB; a table keyed by the file's
resolved path, size, modification time, inode and change time (ns) answers later asks at once. The
modification time alone can be set back (`cp` then `touch -r`, os.utime); the change time cannot, and
any write or rename sets it, so another file put at the path is hashed again. Files smaller than
REMEMBER_FROM_BYTES (LoRA adapters, a few MB) are hashed every time: it takes milliseconds, and a
file that small can be rewritten within one tick of the clock that stamps the change time.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

# Named anew: earlier versions keep their table (file_digests), keyed on path, size and mtime alone,
# whose rows are never trusted here.
SCHEMA = """
CREATE TABLE IF NOT EXISTS file_digests_v2 (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL
)
"""
# Hashing this much takes longer than a tick of the kernel's coarse clock, which stamps change times.
REMEMBER_FROM_BYTES = 32 * 2**20

_SHA256 = re.compile(r"[0-9a-f]{64}")


def remembered_sha256(db: sqlite3.Connection, path: Path) -> str:
    """Hex SHA-256 of the file at `path`, read from `db`'s file_digests_v2 table or computed and stored there.

    sqlite3 errors reach the caller; the table must exist (SCHEMA).
    """
    path = path.resolve()
    before = _file_version(path)
    if before[0] < REMEMBER_FROM_BYTES:
        return file_sha256(path)
    identity = (str(path), *before)
    row = db.execute(
        "SELECT sha256 FROM file_digests_v2 WHERE path = ? AND size = ? AND mtime_ns = ? AND inode = ? AND ctime_ns = ?", identity
    ).fetchone()
    if row is not None and isinstance(row[0], str) and _SHA256.fullmatch(row[0]):
        return row[0]
    digest = file_sha256(path)
    # A file written to while it was read has no single digest: use this one, remember none.
    if _file_version(path) == before:
        db.execute("INSERT OR REPLACE INTO file_digests_v2 VALUES (?, ?, ?, ?, ?, ?)", (*identity, digest))
    return digest


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file at `path`, computed now."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _file_version(path: Path) -> tuple[int, int, int, int]:
    """What changes whenever other content is put at `path`: size, mtime, inode and change time (ns)."""
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns
