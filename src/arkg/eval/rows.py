"""The entries of a data set file, whatever holds them: JSON lines, one JSON document (a list, an
object holding one list, or a single question object), CSV with a header row, or parquet.

The container is told by content: parquet by its magic bytes, JSON lines by a first line that is a
whole JSON object, a JSON document by its first character, CSV by a header with a `question` column
(separated by commas, semicolons or tabs; names are matched without case). Each entry carries where
it is, for problems and errors, and its number: the line it starts on for JSON lines and CSV (as an
editor or a spreadsheet counts), its position for a JSON list or a parquet file. Lines may end in
LF, CR LF, or a lone CR (as spreadsheets of old Macs save CSV).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arkg.errors import LoadError
from arkg.graph.loaders._common import JSON_FAILURES, STRICT_JSON, parse_json, parse_json_line, utf8_lines, utf8_text

PARQUET_MAGIC = b"PAR1"
_DELIMITERS = (",", ";", "\t")
_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class Entry:
    where: str | None  # "line 3", "entry 3", "row 3"; None for the one object of a single-object file
    number: int
    value: Any  # a JSON value; a dict of column -> text for CSV, of column -> value for parquet
    defect: str | None = None  # why the entry could not be read as a whole (a CSV row of the wrong width)


@dataclass(frozen=True)
class Entries:
    container: str  # "JSON lines", "JSON", "CSV" or "parquet"
    items: list[Entry]

    @property
    def first(self) -> Any:
        """The first entry's value: what formats are told apart by."""
        return self.items[0].value


def place(path: Path, entries: Entries, entry: Entry) -> str | None:
    """Where an entry is, for an error about it: its line (JSON lines, CSV) or row (parquet); for an item
    of a JSON list, its position and the line it starts on."""
    if entries.container != "JSON" or entry.where is None:
        return entry.where
    line = _json_item_line(utf8_text(path), entry.number)
    return entry.where if line is None else f"{entry.where} (line {line})"


def _json_item_line(text: str, number: int) -> int | None:
    """The line that item `number` of the document's list starts on: the list is the document, or the
    one member of its object that is a list (see _holds_one_list). None if it is not found."""
    decoder = json.JSONDecoder()
    position = _SPACE.match(text).end()
    try:
        if text.startswith("{", position):
            while True:  # position: at the "{" or at the "," before the next member
                _, position = decoder.raw_decode(text, _SPACE.match(text, position + 1).end())  # the key
                position = _SPACE.match(text, _SPACE.match(text, position).end() + 1).end()  # past the ":"
                if text.startswith("[", position):
                    break
                _, position = decoder.raw_decode(text, position)
                position = _SPACE.match(text, position).end()
        for item in range(1, number + 1):  # position: at the "[" or at the "," before the next item
            position = _SPACE.match(text, position + 1).end()
            if item == number:
                return text.count("\n", 0, position) + 1
            _, position = decoder.raw_decode(text, position)
            position = _SPACE.match(text, position).end()
    except ValueError:
        return None
    return None


def read_entries(path: Path) -> Entries | None:
    """The file's entries, or None when it is none of these containers (plain text lines, say)."""
    with path.open("rb") as stream:
        if stream.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC:
            return _parquet(path)
    first = first_line(path)
    if first is None:
        raise LoadError(path, None, "the file is empty")
    if isinstance(_decoded(first), dict):
        return _json_lines(path)
    if first.lstrip().startswith(("[", "{")):
        return _json_document(path)
    delimiter = _csv_delimiter(first)
    return None if delimiter is None else _csv(path, delimiter)


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of the file, streamed; invalid UTF-8 is a LoadError.

    A file whose first line holds a lone CR ends its lines that way: it is read whole (split at LF
    alone, its first line would be all of it anyway) and split at every CR, LF and CR LF.
    """
    lines = utf8_lines(path)
    try:
        first = next(lines, None)
        if first is None:
            return
        if "\r" not in first[1].rstrip("\r\n"):
            yield first
            yield from lines
            return
    finally:
        lines.close()
    yield from enumerate(io.StringIO(utf8_text(path), newline=""), 1)


def first_line(path: Path) -> str | None:
    """The file's first line that is not blank (None when there is none)."""
    lines = text_lines(path)
    try:
        return next((text for _, text in lines if text.strip()), None)
    finally:
        lines.close()


def _decoded(text: str) -> Any:
    try:
        return STRICT_JSON.decode(text)
    except JSON_FAILURES:
        return None


def _json_lines(path: Path) -> Entries:
    items = [
        Entry(f"line {number}", number, parse_json_line(text, path, number))
        for number, text in text_lines(path)
        if text.strip()
    ]
    # One object alone may be a whole document written on one line.
    return _json_document(path) if len(items) == 1 and _holds_one_list(items[0].value) else Entries("JSON lines", items)


def _json_document(path: Path) -> Entries:
    document = parse_json(utf8_text(path), path, item="entry")
    if isinstance(document, dict) and _holds_one_list(document):
        [document] = [value for value in document.values() if isinstance(value, list)]
    if isinstance(document, list):
        return Entries("JSON", [Entry(f"entry {number}", number, value) for number, value in enumerate(document, 1)])
    if isinstance(document, dict):
        return Entries("JSON", [Entry(None, 1, document)])
    raise LoadError(path, None, f"expected a list of questions or an object, found {type(document).__name__}")


def _holds_one_list(value: Any) -> bool:
    """An object that is no question but a wrapper: {"questions": [...]} (other members are metadata)."""
    return (
        isinstance(value, dict)
        and "question" not in value
        and sum(isinstance(member, list) for member in value.values()) == 1
    )


def _csv_delimiter(header: str) -> str | None:
    for delimiter in _DELIMITERS:
        try:
            columns = _columns(next(csv.reader([header], delimiter=delimiter), []))
        except csv.Error:  # no header of a CSV file (_csv reports a malformed one, with its line)
            continue
        if "question" in columns:
            return delimiter
    return None


def _columns(header: list[str]) -> list[str]:
    return [column.strip().lower() for column in header]


def _csv(path: Path, delimiter: str) -> Entries:
    reader = csv.reader((text for _, text in text_lines(path)), delimiter=delimiter, strict=True)
    items = []
    try:
        columns = _columns(next(reader))
        duplicates = sorted({column for column in columns if column and columns.count(column) > 1})
        if duplicates:
            raise LoadError(path, "line 1", f"duplicate column(s) in the header: {', '.join(duplicates)}")
        start = reader.line_num + 1
        for cells in reader:
            number, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue
            defect = None
            if len(cells) != len(columns):
                defect = f"{len(cells)} field(s) where the header names {len(columns)}"
            row = {column: cell.strip() for column, cell in zip(columns, cells) if column and cell.strip()}
            items.append(Entry(f"line {number}", number, row, defect))
    except csv.Error as error:
        raise LoadError(path, f"line {reader.line_num}", f"malformed CSV: {error}") from None
    return Entries("CSV", items)


def _parquet(path: Path) -> Entries:
    try:
        import pyarrow.parquet
    except ImportError:
        raise LoadError(
            path, None, "a parquet file: reading it needs pyarrow, the `parquet` extra (pip install 'arkg[parquet]')"
        ) from None
    try:
        rows = pyarrow.parquet.read_table(path).to_pylist()
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise LoadError(path, None, f"not a readable parquet file: {error}") from None
    return Entries("parquet", [Entry(f"row {number}", number, row) for number, row in enumerate(rows, 1)])
