"""What every loader shares: the record type, strict UTF-8 reading, strict JSON, and field validation."""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from arkg.errors import LoadError
from arkg.graph.model import PropValue
from arkg.text import clip

# A triple as loaders produce it: a plain tuple, because loading builds millions of them.
Record = tuple[str, str, str, dict[str, PropValue]]

_SCALARS = (str, int, float, bool)
_EXACT_SCALARS = frozenset((str, int, bool))  # floats are checked apart: NaN and infinities are not allowed
_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of the file, streamed; invalid UTF-8 is a LoadError."""
    for number, raw in byte_lines(path):
        yield number, decode_line(raw, path, number)


def byte_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) for each line of the file, streamed, without a UTF-8 byte order mark."""
    for first, lines in byte_line_batches(path):
        yield from enumerate(lines, first)


def byte_line_batches(path: Path, size: int = 1_000) -> Iterator[tuple[int, list[bytes]]]:
    """(number of the first line, the next `size` lines as bytes), streamed, without a UTF-8 byte order mark."""
    with path.open("rb") as stream:
        first = 1
        while lines := list(islice(stream, size)):
            if first == 1:
                lines[0] = lines[0].removeprefix(codecs.BOM_UTF8)
            yield first, lines
            first += len(lines)


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


def quoted(text: str, limit: int = 80) -> str:
    """Input text for an error message: as a Python literal (control characters escaped), cut to `limit`."""
    return clip(repr(text), limit)


# -- strict JSON ------------------------------------------------------------------------------


class _Rejected(ValueError):
    """Valid JSON syntax that arkg refuses (a duplicate key, NaN or Infinity); says why."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Rejected(f"duplicate key {quoted(key)} in one object; keep one of them")
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    raise _Rejected(f"{name} is not a JSON number; write it as a string, or leave the property out")


# Python's json module takes the last of duplicate keys and reads NaN/Infinity, where other JSON tools
# differ or refuse: such a file means different things to different readers, so it is an error.
STRICT_JSON = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def json_reason(error: Exception) -> str | None:
    """Why strict decoding failed, for failures other than syntax errors (None for anything else).

    These carry no position: callers name the line or record by decoding smaller pieces.
    """
    if isinstance(error, _Rejected):
        return str(error)
    if isinstance(error, RecursionError):
        return "nested too deeply (arrays or objects inside each other thousands of levels deep)"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        return f"a number with more than {sys.get_int_max_str_digits():,} digits; write it as a string"
    return None


# What STRICT_JSON.decode raises for bad input: JSONDecodeError and _Rejected are ValueErrors, and so
# is Python's refusal to convert an integer of thousands of digits.
JSON_FAILURES = (ValueError, RecursionError)


def read_json(path: Path, item: str = "record") -> Any:
    """A whole JSON file, strictly decoded; a LoadError names the line, or the list item (`item` N) and its line."""
    return parse_json(utf8_text(path), path, item)


def parse_json_line(text: str, path: Path, number: int) -> Any:
    """One line of a JSON lines file, strictly decoded; a LoadError names the line."""
    return _strictly_decoded(
        text,
        path,
        lambda error: (f"line {number}", f"malformed JSON at column {error.colno}: {error.msg}"),
        lambda: f"line {number}",
    )


def parse_json(text: str, path: Path, item: str = "record") -> Any:
    """The JSON text of the file `path`, strictly decoded (see read_json)."""
    return _strictly_decoded(
        text,
        path,
        lambda error: (f"line {error.lineno}, column {error.colno}", f"malformed JSON: {error.msg}"),
        lambda: _locate(text, item),
    )


def _strictly_decoded(
    text: str,
    path: Path,
    syntax_error: Callable[[json.JSONDecodeError], tuple[str, str]],
    where: Callable[[], str | None],
) -> Any:
    """STRICT_JSON's value of `text`; a LoadError says where (`syntax_error` gives place and reason of a
    syntax error, `where` the place of a refused value, which carries no position) and why."""
    try:
        return STRICT_JSON.decode(text)
    except json.JSONDecodeError as error:
        raise LoadError(path, *syntax_error(error)) from None
    except JSON_FAILURES as error:
        reason = json_reason(error)
        if reason is None:
            raise
        raise LoadError(path, where(), reason) from None


_SPACE = re.compile(r"[ \t\n\r]*")


def _locate(text: str, item: str) -> str | None:
    """Where a decoding failure without a position lies: the list item that fails when decoded alone.

    Only the outer list (or the members of the outer object, and a list under "graph") are walked;
    each item is decoded by the same strict decoder, so the first item that fails is the culprit.
    Called on failures only.
    """
    position = _SPACE.match(text).end()
    if text.startswith("{", position):
        for key, start in _members(text, position):
            if key == "graph" and text.startswith("[", start):
                if found := _locate_in_list(text, start, item):
                    return found
            elif _fails(text, start):
                return _line(text, start)
        return None
    if text.startswith("[", position):
        return _locate_in_list(text, position, item)
    return _line(text, position)


def _members(text: str, position: int) -> Iterator[tuple[str, int]]:
    """(key, start of value) for each member of the object at `position` (valid JSON up to the failure)."""
    position = _past(text, position)  # the brace
    while text.startswith('"', position):
        key, position = STRICT_JSON.raw_decode(text, position)
        position = _past(text, _SPACE.match(text, position).end())  # the colon
        yield key, position
        _, position = STRICT_JSON.raw_decode(text, position)
        position = _SPACE.match(text, position).end()
        if not text.startswith(",", position):
            return
        position = _past(text, position)


def _locate_in_list(text: str, position: int, item: str) -> str | None:
    number = 0
    position = _past(text, position)  # the bracket
    while not text.startswith("]", position):
        number += 1
        try:
            _, position = STRICT_JSON.raw_decode(text, position)
        except JSON_FAILURES:
            return f"{item} {number} ({_line(text, position)})"
        position = _SPACE.match(text, position).end()
        if not text.startswith(",", position):
            return None
        position = _past(text, position)
    return None


def _past(text: str, position: int) -> int:
    """The position after the punctuation at `position` and the white space that follows it."""
    return _SPACE.match(text, position + 1).end()


def _fails(text: str, position: int) -> bool:
    try:
        STRICT_JSON.raw_decode(text, position)
    except JSON_FAILURES:
        return True
    return False


def _line(text: str, position: int) -> str:
    return f"line {text.count(chr(10), 0, position) + 1}"


# -- fields -----------------------------------------------------------------------------------


def are_names(values: list[Any]) -> bool:
    """Whether every value may be a head, relation or tail (the fast check, at C speed for a column of
    a batch; name_field explains failures).

    Text decoded from JSON escapes may hold lone surrogates: callers that may see them use name_field.
    """
    return set(map(type, values)) <= {str} and all(values) and not any(map(str.isspace, values))


def is_props(value: Any) -> bool:
    """Whether a value may be edge props (the fast check; props_field explains failures)."""
    return value is None or (
        type(value) is dict
        and all(
            item is None or type(item) in _EXACT_SCALARS or (type(item) is float and math.isfinite(item))
            for item in value.values()
        )
    )


def name_field(value: Any, field: str, path: Path, where: str) -> str:
    """A head, relation or tail: a non-empty string of Unicode characters."""
    if not isinstance(value, str):
        raise LoadError(path, where, f"{field} must be a string, not {_json_type(value)}")
    if not value.strip():
        raise LoadError(path, where, f"{field} is empty")
    check_text(value, field, path, where)
    return value


def props_field(value: Any, path: Path, where: str) -> dict[str, PropValue]:
    """Edge properties: a flat mapping of names to strings, finite numbers, booleans or null."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LoadError(path, where, f"props must be an object, not {_json_type(value)}")
    for key, item in value.items():
        check_text(key, "a property name", path, where)
        if item is not None and not isinstance(item, _SCALARS):
            raise LoadError(
                path, where, f"property {quoted(key)} must be a string, number, boolean or null, not {_json_type(item)}"
            )
        if isinstance(item, float) and not math.isfinite(item):
            raise LoadError(path, where, f"property {quoted(key)} is too large a number ({item}); write it as a string")
        if isinstance(item, str):
            check_text(item, f"property {quoted(key)}", path, where)
    return value


def check_text(text: str, what: str, path: Path, where: str | None) -> None:
    """A LoadError if the text holds a lone surrogate (from an escape such as `\\ud800`), which is no character."""
    if not text.isascii() and (found := _SURROGATE.search(text)):
        raise LoadError(
            path,
            where,
            f"{what} holds \\u{ord(found.group()):04x}, half of a UTF-16 surrogate pair and not a character;"
            " write the character itself",
        )


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
