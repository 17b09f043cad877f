"""The digest that says exactly which KG a synthesis read: its content, however it was stored."""

from __future__ import annotations

import hashlib
import json

from arkg.graph.sqlite_store import SQLiteGraph


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
