"""N-Triples and Turtle, parsed by rdflib.

RDF nodes become names: an IRI or blank node is named by its rdfs:label where the file gives one
(an English or untagged label preferred), otherwise by its local name (the part after the last
`#`, `/` or `:`, percent-decoded, underscores read as spaces); a literal object is its lexical
form. rdfs:label statements name nodes and are not loaded as edges. Two nodes with the same name
become one entity, which is what an agent that only sees names would assume anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import rdflib
from rdflib.namespace import RDFS
from rdflib.term import Literal, Node

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, utf8_text


def read_ntriples(path: Path) -> Iterator[Record]:
    return _read(path, "nt")


def read_turtle(path: Path) -> Iterator[Record]:
    return _read(path, "turtle")


def _read(path: Path, rdf_format: str) -> Iterator[Record]:
    text = utf8_text(path)
    graph = rdflib.Graph()
    try:
        graph.parse(data=text, format=rdf_format)
    except Exception as error:  # rdflib's parsers raise assorted exception types for bad syntax
        raise LoadError(
            path, _error_line(error, text, rdf_format), f"malformed {_FORMAT_NAMES[rdf_format]}: {_reason(error)}"
        ) from None
    labels = _labels(graph)
    for subject, predicate, obj in graph:
        if predicate == RDFS.label:
            continue
        yield _name(subject, labels), _name(predicate, labels), _name(obj, labels), {}


_FORMAT_NAMES = {"nt": "N-Triples", "turtle": "Turtle"}


def _labels(graph: rdflib.Graph) -> dict[Node, str]:
    """One label per node: English or untagged first, then the alphabetically first."""
    preferred: dict[Node, tuple[bool, str]] = {}
    for node, label in graph.subject_objects(RDFS.label):
        if not isinstance(label, Literal) or not str(label).strip():
            continue
        candidate = (label.language not in (None, "en"), str(label))
        if node not in preferred or candidate < preferred[node]:
            preferred[node] = candidate
    return {node: label for node, (_, label) in preferred.items()}


def _name(node: Node, labels: dict[Node, str]) -> str:
    if isinstance(node, Literal):
        return str(node)
    if node in labels:
        return labels[node]
    iri = str(node)
    local = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
    return unquote(local).replace("_", " ").strip() or iri


def _error_line(error: Exception, text: str, rdf_format: str) -> str | None:
    line = getattr(error, "lines", None)  # Turtle's BadSyntax counts lines from 0
    if isinstance(line, int):
        return f"line {line + 1}"
    if rdf_format == "nt":  # N-Triples errors carry no position: find the first line that fails alone
        for number, statement in enumerate(text.splitlines(), 1):
            try:
                rdflib.Graph().parse(data=statement, format="nt")
            except Exception:
                return f"line {number}"
    return None


def _reason(error: Exception) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("at line"):  # "at line N of <>:" / "Bad syntax (why) at ^ in:" / text
        return lines[1].split(" at ^")[0]
    return lines[0] if lines else type(error).__name__
