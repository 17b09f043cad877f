"""Digests that say exactly which data a synthesis read: files by SHA-256, a KG by its content."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from arkg.graph.sqlite_store import SQLiteGraph

_CHUNK = 1 << 20


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as data:
        while chunk := data.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def kg_digest(kg: SQLiteGraph) -> tuple[str, int]:
    """SHA-256 of the KG's triples as sorted JSON lines, and how many there are.

    The same triples give the same digest however they were stored or in which order (a store
    file's bytes differ between two builds of the same KG, and an in-memory KG has no file)."""
    lines = sorted(
        json.dumps([t.head, t.relation, t.tail, t.props], ensure_ascii=False, sort_keys=True) for t in kg.iter_triples()
    )
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8") + b"\n")
    return f"sha256:{digest.hexdigest()}", len(lines)
