"""CSV and TSV with a header row naming `head`, `relation` and `tail`; other columns become props.

Empty cells are left out of the props. CSV follows RFC 4180 quoting; TSV has no quoting (a tab
or newline cannot occur inside a field). Both are streamed line by line.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, quoted, utf8_lines

_REQUIRED = ("head", "relation", "tail")


def read_csv(path: Path) -> Iterator[Record]:
    return _read(path, delimiter=",", quoting=csv.QUOTE_MINIMAL)


def read_tsv(path: Path) -> Iterator[Record]:
    return _read(path, delimiter="\t", quoting=csv.QUOTE_NONE)


def _read(path: Path, delimiter: str, quoting: int) -> Iterator[Record]:
    reader = csv.reader((text for _, text in utf8_lines(path)), delimiter=delimiter, quoting=quoting, strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return
        columns = [column.strip() for column in header]
        positions = _required_positions(columns, path)
        extra = [(index, column) for index, column in enumerate(columns) if column not in _REQUIRED]
        for row in reader:
            if not row:
                continue
            where = f"line {reader.line_num}"
            if len(row) != len(columns):
                raise LoadError(path, where, f"expected {len(columns)} fields as in the header, found {len(row)}")
            head, relation, tail = (row[index] for index in positions)
            for field, value in zip(_REQUIRED, (head, relation, tail), strict=True):
                if not value.strip():
                    raise LoadError(path, where, f"{field} is empty")
            yield head, relation, tail, {column: row[index] for index, column in extra if row[index] != ""}
    except csv.Error as error:
        raise LoadError(
            path, f"line {reader.line_num}", f"malformed {'CSV' if delimiter == ',' else 'TSV'}: {error}"
        ) from None


def _required_positions(columns: list[str], path: Path) -> list[int]:
    duplicates = sorted({column for column in columns if columns.count(column) > 1})
    if duplicates:
        names = ", ".join(quoted(column, 40) for column in duplicates[:5])
        raise LoadError(path, "line 1", f"duplicate column(s) in the header: {names}")
    missing = [column for column in _REQUIRED if column not in columns]
    if missing:
        raise LoadError(path, "line 1", f"the header must name head, relation and tail; missing: {', '.join(missing)}")
    return [columns.index(column) for column in _REQUIRED]
