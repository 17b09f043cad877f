"""JSON Lines: one `{"head": ..., "relation": ..., "tail": ..., "props": {...}}` object per line.

`props` is optional; blank lines are skipped. Duplicate keys, NaN and Infinity are errors (see
_common.STRICT_JSON). The file is streamed in batches of lines.

A batch is decoded as one JSON array by msgspec's decoder, in C straight from the bytes, several
times faster than a decoder call per line (the per-call overhead dominates for small objects). It
reads what the json module reads but refuses more (NaN, lone surrogates, invalid UTF-8, integers of
thousands of digits): what it refuses is read again line by line, by the strict decoder, which names
the first bad line. The array's separator holds a newline, which no JSON string may contain, and a
record holds no nested lists, so a batch that decodes to exactly one valid record per line was read
exactly as line by line would; any other batch is read again line by line too. So is a batch with a
`\\uD800`-`\\uDFFF` escape, or with `\\u003a` (see below).

Duplicate keys cost a Python call per object to find, which slows reading by about a third. A
batch is decoded without that check, then its colons are counted: each key is followed by one
colon, so the batch text holds as many colons as the decoded objects hold keys plus the colons
inside their strings, unless a key was repeated (its pair, colon included, is missing from the
decoded objects). Counting first without the strings' colons, then with them (the names joined,
the props re-encoded by the json module), each count can only fall short, so an equality proves
that no key was repeated; otherwise the batch is decoded again with the check. A colon written as
the escape `\\u003a` is no colon in the text, which would spoil the count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec

from arkg.errors import LoadError
from arkg.graph.loaders._common import (
    JSON_FAILURES,
    STRICT_JSON,
    Record,
    are_names,
    byte_line_batches,
    decode_line,
    is_props,
    name_field,
    parse_json_line,
    props_field,
    quoted,
)

_REQUIRED = ("head", "relation", "tail")
_ALLOWED = frozenset((*_REQUIRED, "props"))
_BATCH_LINES = 1_000
# Escapes that a batch's fast path cannot check: surrogates, and colons (see the module docstring).
_UNCHECKED_ESCAPE = re.compile(rb"\\u(?:[dD][89a-fA-F]|003[aA])")
_decode_batch = msgspec.json.Decoder().decode


def read(path: Path) -> Iterator[Record]:
    for first, lines in byte_line_batches(path, _BATCH_LINES):
        yield from _plain_batch(lines) or _checked_batch(path, first, lines)


def _plain_batch(lines: list[bytes]) -> list[Record] | None:
    """The batch's records when its lines are plain records and the batch checks prove it (see the
    module docstring), else None."""
    if any(map(bytes.isspace, lines)):
        lines = [line for line in lines if not line.isspace()]
    text = b"[" + b",\n".join(lines) + b"]"
    if b"\\u" in text and _UNCHECKED_ESCAPE.search(text):
        return None
    try:
        values = _decode_batch(text)
        if len(values) != len(lines) or (records := _plain_records(values)) is None:
            return None
        if not _no_key_repeated(text, values, records):
            STRICT_JSON.decode(text.decode("utf-8"))
    except (msgspec.DecodeError, UnicodeDecodeError, *JSON_FAILURES):
        return None
    return records


def _checked_batch(path: Path, first: int, lines: list[bytes]) -> list[Record]:
    """The batch read line by line: a LoadError names the first bad line and what is wrong with it."""
    return [
        _checked_record(_decode(line, path, number), path, f"line {number}")
        for number, line in enumerate(lines, first)
        if not line.isspace()
    ]


def _plain_records(values: list[Any]) -> list[Record] | None:
    """The records, when every value is an object whose fields _checked_record accepts as they are;
    else None. Checked column by column at C speed: per-record Python calls would cost more than decoding."""
    if set(map(type, values)) != {dict} or not all(map(_ALLOWED.issuperset, values)):
        return None
    try:
        heads, relations, tails = (list(map(itemgetter(key), values)) for key in _REQUIRED)
    except KeyError:
        return None
    props = [value.get("props") for value in values]
    names_valid = are_names(heads) and are_names(relations) and are_names(tails)
    if names_valid and all(is_props(given) for given in props if given is not None):
        return list(zip(heads, relations, tails, [given or {} for given in props], strict=True))
    return None


_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
_NAMES, _PROPS = itemgetter(0, 1, 2), itemgetter(3)


def _no_key_repeated(text: bytes, values: list[dict[str, Any]], records: list[Record]) -> bool:
    """True when the colon count proves that no object of the batch repeated a key (see the module docstring)."""
    colons, keys = text.count(b":"), sum(map(len, values))
    if colons == keys + sum(map(len, map(_PROPS, records))):  # the common case: no string holds a colon
        return True
    props = [record[3] for record in records if record[3]]
    names = "".join(chain.from_iterable(map(_NAMES, records)))
    return colons == keys + _ENCODE(props).count(":") + names.count(":")


def _decode(line: bytes, path: Path, number: int) -> Any:
    text = decode_line(line, path, number)
    if text.startswith("\ufeff"):
        raise LoadError(path, f"line {number}", "a byte order mark (U+FEFF) starts the line; remove it")
    return parse_json_line(text, path, number)


def _checked_record(value: Any, path: Path, where: str) -> Record:
    """The record, or a LoadError that says what is wrong with it."""
    if not isinstance(value, dict):
        raise LoadError(path, where, 'expected an object {"head", "relation", "tail", "props"}')
    if not _ALLOWED.issuperset(value):
        unknown = ", ".join(quoted(key, 40) for key in sorted(value.keys() - _ALLOWED)[:5])
        raise LoadError(path, where, f"unexpected key(s) {unknown}; allowed: {', '.join(sorted(_ALLOWED))}")
    if not ("head" in value and "relation" in value and "tail" in value):
        raise LoadError(path, where, f"missing key(s) {', '.join(key for key in _REQUIRED if key not in value)}")
    return (
        name_field(value["head"], "head", path, where),
        name_field(value["relation"], "relation", path, where),
        name_field(value["tail"], "tail", path, where),
        props_field(value.get("props"), path, where),
    )
