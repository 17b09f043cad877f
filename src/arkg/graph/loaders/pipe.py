"""`head|relation|tail`, one triple per line: the MetaQA / WikiMovies knowledge base (`kb.txt`).

    Kismet|directed_by|William Dieterle
    Kismet|release_year|1944

No header and no quoting: a name cannot hold `|`, so a line with another number of fields is an
error naming it. Blank lines are skipped; a repeated line is one triple (the store keeps one).
Recognised by content: the first line splits into three names at `|` and looks like no other
format arkg reads (JSON, N-Triples, Turtle, a tab-separated row).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, byte_lines, decode_line, quoted

_FIELDS = ("head", "relation", "tail")
# First characters of a line in the formats that could also hold two `|` in their first line.
_OTHER_FORMATS = tuple('{["<@_#')


def read(path: Path) -> Iterator[Record]:
    for number, raw in byte_lines(path):
        text = decode_line(raw, path, number).rstrip("\r\n")
        if not text.strip():
            continue
        fields = text.split("|")
        if len(fields) != len(_FIELDS):
            raise LoadError(
                path, f"line {number}", f"expected head|relation|tail, found {len(fields)} field(s) in {quoted(text)}"
            )
        for name, value in zip(_FIELDS, fields, strict=True):
            if not value.strip():
                raise LoadError(path, f"line {number}", f"{name} is empty")
        yield fields[0], fields[1], fields[2], {}


def recognise(path: Path) -> bool:
    """Whether the file's first non-blank line is a head|relation|tail triple (read from its first 64 KiB)."""
    try:
        with path.open("rb") as stream:
            head = stream.read(65536)
    except OSError:
        return False  # the reader says why
    for raw in head.removeprefix(b"\xef\xbb\xbf").splitlines():
        text = raw.decode("utf-8", errors="replace")
        if text.strip():
            fields = text.split("|")
            return (
                len(fields) == 3 and "\t" not in text and not text.startswith(_OTHER_FORMATS)
                and all(field.strip() for field in fields)
            )
    return False
