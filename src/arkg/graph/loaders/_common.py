"""What every loader shares: the record type, strict UTF-8 reading, and field validation."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arkg.errors import LoadError
from arkg.graph.model import PropValue

# A triple as loaders produce it: a plain tuple, because loading builds millions of them.
Record = tuple[str, str, str, dict[str, PropValue]]

_SCALARS = (str, int, float, bool)
_SCALAR_TYPES = frozenset(_SCALARS)


def utf8_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of the file, streamed; invalid UTF-8 is a LoadError."""
    for number, raw in byte_lines(path):
        yield number, decode_line(raw, path, number)


def byte_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) for each line of the file, streamed, without a UTF-8 byte order mark."""
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, 1):
            yield number, raw.removeprefix(codecs.BOM_UTF8) if number == 1 else raw


def decode_line(raw: bytes, path: Path, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LoadError(path, f"line {number}", _utf8_reason(raw, error.start)) from None


def utf8_text(path: Path) -> str:
    """The whole file as text; invalid UTF-8 is a LoadError naming the line."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        raise LoadError(path, f"line {line}", _utf8_reason(data[line_start:], error.start - line_start)) from None


def _utf8_reason(line: bytes, offset: int) -> str:
    return f"not valid UTF-8 (byte 0x{line[offset]:02x} at byte {offset + 1} of the line); re-encode the file as UTF-8"


def is_name(value: Any) -> bool:
    """Whether a value may be a head, relation or tail (the fast check; name_field explains failures)."""
    return type(value) is str and bool(value) and not value.isspace()


def is_props(value: Any) -> bool:
    """Whether a value may be edge props (the fast check; props_field explains failures)."""
    return value is None or (
        type(value) is dict and all(item is None or type(item) in _SCALAR_TYPES for item in value.values())
    )


def name_field(value: Any, field: str, path: Path, where: str) -> str:
    """A head, relation or tail: a non-empty string."""
    if not isinstance(value, str):
        raise LoadError(path, where, f"{field} must be a string, not {_json_type(value)}")
    if not value.strip():
        raise LoadError(path, where, f"{field} is empty")
    return value


def props_field(value: Any, path: Path, where: str) -> dict[str, PropValue]:
    """Edge properties: a flat mapping of names to strings, numbers, booleans or null."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LoadError(path, where, f"props must be an object, not {_json_type(value)}")
    for key, item in value.items():
        if item is not None and not isinstance(item, _SCALARS):
            raise LoadError(
                path, where, f"property {key!r} must be a string, number, boolean or null, not {_json_type(item)}"
            )
    return value


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
