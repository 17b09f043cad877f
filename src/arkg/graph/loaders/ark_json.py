"""The ARK-V1 / CoLoTa graph format: a JSON list of `[head, tail, {"relation": r, ...props}]`.

The list is either the whole document or sits under a "graph" key (as in the ARK-V1 examples,
where the question travels with its graph). Records are numbered from 1 in error messages.
Duplicate keys, NaN and Infinity are errors (see _common.STRICT_JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, name_field, props_field, parse_json, quoted, utf8_text

_SHAPE = '[head, tail, {"relation": r, ...props}]'
# The field of a CoLoTa data set entry that holds its gold triples (arkg.eval.colota reads such files).
_COLOTA_TRIPLES = "KG Triples"


def read(path: Path) -> Iterator[Record]:
    text = utf8_text(path)
    if not text.strip():
        return
    document = parse_json(text, path)
    edges = document.get("graph") if isinstance(document, dict) else document
    if not isinstance(edges, list):
        raise LoadError(path, None, f'expected a JSON list of {_SHAPE} records, or an object with one under "graph"')
    yield from edge_records(edges, path)


def edge_records(edges: list, path: Path, where: str = "") -> Iterator[Record]:
    """The records of a list of ARK-V1 edges; errors say `where` (e.g. "line 3, ") then the record number."""
    for number, record in enumerate(edges, 1):
        located = f"{where}record {number}"
        if isinstance(record, dict) and _COLOTA_TRIPLES in record:
            raise LoadError(
                path,
                located,
                "this is a CoLoTa data set (questions with gold triples), not a graph: `arkg kg load FILE` without"
                " --format loads its gold triples; in Python, arkg.eval.colota.build_graph(load_dataset(FILE))",
            )
        if not isinstance(record, list) or len(record) != 3:
            raise LoadError(path, located, f"expected {_SHAPE}, got {quoted(json.dumps(record, ensure_ascii=False))}")
        head, tail, attributes = record
        if not isinstance(attributes, dict) or "relation" not in attributes:
            raise LoadError(path, located, f'the third item must be an object with a "relation" key: {_SHAPE}')
        props = {key: value for key, value in attributes.items() if key != "relation"}
        yield (
            name_field(head, "head", path, located),
            name_field(attributes["relation"], "relation", path, located),
            name_field(tail, "tail", path, located),
            props_field(props, path, located),
        )
