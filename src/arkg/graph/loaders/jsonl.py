"""JSON Lines: one `{"head": ..., "relation": ..., "tail": ..., "props": {...}}` object per line.

`props` is optional; blank lines are skipped. The file is streamed in batches of lines. A batch is
decoded as one JSON array, several times faster than a decoder call per line (the per-call
overhead dominates for small objects). The array's separator holds a newline, which no JSON
string may contain, and a record holds no nested lists, so a batch that decodes to exactly one
valid record per line was read exactly as line by line would; any other batch is read again line
by line, which names the first bad line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, byte_lines, decode_line, is_name, is_props, name_field, props_field

_REQUIRED = ("head", "relation", "tail")
_ALLOWED = frozenset((*_REQUIRED, "props"))
_BATCH_LINES = 1_000


def read(path: Path) -> Iterator[Record]:
    batch: list[tuple[int, bytes]] = []
    for number, line in byte_lines(path):
        if not line.isspace():
            batch.append((number, line))
            if len(batch) == _BATCH_LINES:
                yield from _read_batch(path, batch)
                batch = []
    yield from _read_batch(path, batch)


def _read_batch(path: Path, lines: list[tuple[int, bytes]]) -> list[Record]:
    try:
        values = json.loads((b"[" + b",\n".join(line for _, line in lines) + b"]").decode("utf-8"))
        if len(values) == len(lines):
            return [_record(value, path, number) for value, (number, _) in zip(values, lines, strict=True)]
    except (UnicodeDecodeError, json.JSONDecodeError, LoadError):
        pass
    return [_record(_decode(line, path, number), path, number) for number, line in lines]


def _decode(line: bytes, path: Path, number: int) -> Any:
    try:
        return json.loads(decode_line(line, path, number))
    except json.JSONDecodeError as error:
        raise LoadError(path, f"line {number}", f"malformed JSON at column {error.colno}: {error.msg}") from None


def _record(value: Any, path: Path, number: int) -> Record:
    if type(value) is dict and _ALLOWED.issuperset(value):
        head, relation, tail, props = value.get("head"), value.get("relation"), value.get("tail"), value.get("props")
        if is_name(head) and is_name(relation) and is_name(tail) and is_props(props):
            return head, relation, tail, props or {}
    return _checked_record(value, path, f"line {number}")


def _checked_record(value: Any, path: Path, where: str) -> Record:
    """The record, or a LoadError that says what is wrong with it."""
    if not isinstance(value, dict):
        raise LoadError(path, where, 'expected an object {"head", "relation", "tail", "props"}')
    if not _ALLOWED.issuperset(value):
        unknown = ", ".join(sorted(value.keys() - _ALLOWED))
        raise LoadError(path, where, f"unexpected key(s) {unknown}; allowed: {', '.join(sorted(_ALLOWED))}")
    if not ("head" in value and "relation" in value and "tail" in value):
        raise LoadError(path, where, f"missing key(s) {', '.join(key for key in _REQUIRED if key not in value)}")
    return (
        name_field(value["head"], "head", path, where),
        name_field(value["relation"], "relation", path, where),
        name_field(value["tail"], "tail", path, where),
        props_field(value.get("props"), path, where),
    )
