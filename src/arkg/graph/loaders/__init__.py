"""Read triples from files: one module per format, chosen by file extension or by name.

| format  | extensions      | module     |
|---------|-----------------|------------|
| `ark`   | .json           | ark_json   |
| `jsonl` | .jsonl, .ndjson | jsonl      |
| `csv`   | .csv            | delimited  |
| `tsv`   | .tsv            | delimited  |
| `nt`    | .nt             | rdf        |
| `ttl`   | .ttl            | rdf        |

Every reader raises LoadError naming the file, the line or record, and the reason.

Layers above the graph add formats with `register_format` (the CLI adds CoLoTa data sets, which
arkg.eval reads): such a format is recognised by content, before the extension is looked at.
READERS holds the built-in formats only; `formats()` names them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from arkg.errors import LoadError
from arkg.graph.loaders import ark_json, delimited, jsonl, pipe, rdf
from arkg.graph.loaders._common import Record, read_json
from arkg.graph.model import Triple

Reader = Callable[[Path], Iterator[Record]]

READERS: dict[str, Reader] = {
    "ark": ark_json.read,
    "jsonl": jsonl.read,
    "csv": delimited.read_csv,
    "tsv": delimited.read_tsv,
    "nt": rdf.read_ntriples,
    "ttl": rdf.read_turtle,
}

EXTENSIONS: dict[str, str] = {
    ".json": "ark",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".nt": "nt",
    ".ttl": "ttl",
}


# Formats added from outside the graph layer: name -> (reader, recognises a file by its content).
_REGISTERED: dict[str, tuple[Reader, Callable[[Path], bool]]] = {}


def register_format(name: str, reader: Reader, recognise: Callable[[Path], bool]) -> None:
    """Add a format: `reader` streams a file's records, `recognise` tells such a file by its content."""
    _REGISTERED[name] = (reader, recognise)


register_format("pipe", pipe.read, pipe.recognise)  # MetaQA's kb.txt: told by content, as .txt says nothing


def formats() -> list[str]:
    """Every format name: the built-in READERS, then the registered ones."""
    return [*READERS, *_REGISTERED]


def detect_format(path: str | Path) -> str:
    """The format name for a file: a registered format that recognises it, else from its extension."""
    path = Path(path)
    for name, (_, recognise) in _REGISTERED.items():
        if recognise(path):
            return name
    try:
        return EXTENSIONS[path.suffix.lower()]
    except KeyError:
        raise LoadError(
            path, None, f"cannot tell the format from the extension {path.suffix!r}; pass one of: {', '.join(formats())}"
        ) from None


def read_records(path: str | Path, format: str | None = None) -> Iterator[Record]:
    """Stream (head, relation, tail, props) tuples from a file; a file without triples is an error."""
    path = Path(path)
    name = format or detect_format(path)
    reader = READERS.get(name) or _REGISTERED.get(name, (None, None))[0]
    if reader is None:
        raise LoadError(path, None, f"unknown format {name!r}; choose one of: {', '.join(formats())}")
    if not path.is_file():
        raise LoadError(path, None, "no such file")
    try:
        records = reader(path)
        first = next(records, None)
        if first is None:
            raise LoadError(path, None, "no triples found in the file")
        yield first
        yield from records
    except OSError as error:
        raise LoadError(path, None, f"cannot read the file: {error.strerror or error}") from None


def read_triples(path: str | Path, format: str | None = None) -> Iterator[Triple]:
    """Stream the file's triples as Triple objects (convenient; the store reads records directly)."""
    for head, relation, tail, props in read_records(path, format):
        yield Triple(head, relation, tail, props)


__all__ = [
    "EXTENSIONS",
    "READERS",
    "Record",
    "detect_format",
    "formats",
    "read_json",
    "read_records",
    "read_triples",
    "register_format",
]
