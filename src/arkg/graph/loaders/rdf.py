"""N-Triples and Turtle, parsed by rdflib.

RDF nodes become names:

- an IRI or blank node is named by its rdfs:label where the file gives one (an English or untagged
  label preferred), otherwise an IRI by its local name (the part after the last `#`, `/` or `:`,
  percent-decoded, underscores read as spaces); rdfs:label statements name nodes and are not loaded
  as edges;
- a literal object is its lexical form, whatever its datatype (`"abc"^^xsd:integer` is "abc");
- an unlabelled blank node is `_:bN in FILE`: N numbers the file's blank nodes in the order the
  parser meets them and FILE is the file's name, so a name is the same on every load of the file,
  and blank nodes of different files never merge (a blank node means nothing outside its file);
- an RDF list (`ex:a ex:authors (ex:x ex:y)`) becomes one edge per member, in order, each with the
  prop `list position` (1, 2, ...): (a, authors, x, {list position: 1}), (a, authors, y, {list position: 2}).
  The empty list `()` adds no edge. Lists inside lists, and chains of rdf:first/rdf:rest that are not
  a plain list (a cell with other statements, a branch, a cycle, no rdf:nil at the end), are loaded
  statement by statement, rdf:first/rdf:rest edges included.

Two nodes with the same name become one entity, which is what an agent that only sees names would
assume anyway. The same statement twice in a file is one edge (an RDF graph is a set).
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import rdflib
from rdflib.namespace import RDF, RDFS
from rdflib.plugins.parsers.notation3 import BadSyntax, SinkParser
from rdflib.plugins.parsers.ntriples import NTGraphSink, W3CNTriplesParser
from rdflib.term import BNode, Literal, Node

from arkg.errors import LoadError
from arkg.graph.loaders._common import Record, check_text, quoted, utf8_text
from arkg.graph.model import PropValue
from arkg.text import clip, one_line

Statement = tuple[Node, Node, Node]
LIST_POSITION = "list position"


def read_ntriples(path: Path) -> Iterator[Record]:
    return _read(path, _parse_ntriples)


def read_turtle(path: Path) -> Iterator[Record]:
    return _read(path, _parse_turtle)


def _read(path: Path, parse: Callable[[Path, str], list[tuple[Statement, int | None]]]) -> Iterator[Record]:
    text = utf8_text(path)
    with _rdflib_logging_held():
        statements = parse(path, text)
    yield from _records(path, text, statements)


# -- parsing ----------------------------------------------------------------------------------


class _Recorder(rdflib.Graph):
    """A graph that keeps the statements parsed into it as a list, in the parser's order.

    rdflib's own store iterates in an order that changes from run to run; blank node numbers
    must not.
    """

    def __init__(self) -> None:
        super().__init__()
        self.statements: list[Statement] = []

    def add(self, triple: Any) -> _Recorder:  # type: ignore[override]
        self.statements.append(triple)
        return self


def _parse_ntriples(path: Path, text: str) -> list[tuple[Statement, int | None]]:
    """Statements with their line numbers: N-Triples is one statement per line, so each line is parsed alone.

    The lines are handed to the parser one by one (rdflib's own line reader takes quadratic time on
    a long line).
    """
    recorder = _Recorder()
    parser = W3CNTriplesParser(NTGraphSink(recorder))
    blank_nodes: dict[str, BNode] = {}  # one mapping for the whole file: `_:x` is the same node on every line
    located: list[tuple[Statement, int | None]] = []
    for number, line in enumerate(text.split("\n"), 1):
        for piece in line.split("\r"):  # N-Triples also ends lines with a lone CR
            parser.line = piece
            try:
                parser.parseline(bnode_context=blank_nodes)
            except Exception as error:  # rdflib raises assorted exception types for bad input
                reason = _ntriples_reason(error, parser.line or "")
                raise LoadError(path, f"line {number}", f"malformed N-Triples: {reason}") from None
        located += ((statement, number) for statement in recorder.statements)
        recorder.statements.clear()
    return located


_NTRIPLES_REASONS = {
    "Failed to eat": "cannot read",
    "Trailing garbage": "unexpected text after the statement",
    "Subject must be": "the subject must be an <IRI> or a _:blank node, not",
    "Predicate must be": "the predicate must be an <IRI>, not",
    "Unrecognised object type": 'the object must be an <IRI>, a _:blank node or a "literal", not',
}


def _ntriples_reason(error: Exception, rest: str) -> str:
    """What the N-Triples parser stopped at; `rest` is what it had not read of the line."""
    message = str(error)
    for start, reason in _NTRIPLES_REASONS.items():
        if message.startswith(start):
            return f"{reason} {quoted(rest.strip(), 60)}" if rest.strip() else f"{reason} the end of the line"
    return _reason(error)


def _parse_turtle(path: Path, text: str) -> list[tuple[Statement, int | None]]:
    recorder = _Recorder()
    try:
        recorder.parse(data=text, format="turtle")
    except Exception as error:  # rdflib raises assorted exception types for bad input
        where = _turtle_line(error, text)
        raise LoadError(path, where and f"line {where}", f"malformed Turtle: {_reason(error)}") from None
    return [(statement, None) for statement in recorder.statements]


@contextmanager
def _rdflib_logging_held() -> Iterator[None]:
    """Drop what rdflib logs while it parses, and only then.

    rdflib logs a warning with a traceback for every literal it cannot convert to a Python value
    (`"abc"^^xsd:integer`) and for odd IRIs; arkg keeps lexical forms only, so these are no news
    to the user, and printed they look like a crash.
    """
    logger = logging.getLogger("rdflib")
    handler, propagate = logging.NullHandler(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _reason(error: Exception) -> str:
    """rdflib's error in words that say what is wrong with the input (never its internals)."""
    message = str(error)
    if isinstance(error, BadSyntax):
        why = re.search(r"Bad syntax \((.*?)\) at \^", message)
        return clip(one_line(why.group(1) if why else message.splitlines()[0]), 200)
    if isinstance(error, IndexError):
        return "the file ends inside a statement"
    if isinstance(error, AssertionError) and message.startswith("Quote expected"):
        return "a string is not closed"
    if isinstance(error, ValueError) and "integer string conversion" in message:
        return f"a number with more than {sys.get_int_max_str_digits():,} digits; write it as a string literal"
    if isinstance(error, ValueError) and "language tag" in message:
        return clip(one_line(message.rstrip("!")), 120)
    return f"the RDF parser could not read this ({type(error).__name__}: {clip(one_line(message), 120)})"


def _turtle_line(error: Exception, text: str) -> int | None:
    """The line rdflib's Turtle parser stopped at (1-based), where it can be told."""
    if isinstance(error, BadSyntax):
        return error.lines + 1
    if isinstance(error, IndexError):
        return text.rstrip().count("\n") + 1
    # Other exceptions come from inside the parser: the line it had reached is the same counter it
    # puts into its own syntax errors.
    line = None
    trace = error.__traceback__
    while trace is not None:
        parser = trace.tb_frame.f_locals.get("self")
        if isinstance(parser, SinkParser):
            line = parser.lines + 1
        trace = trace.tb_next
    return line


# -- statements to records --------------------------------------------------------------------


def _records(path: Path, text: str, statements: list[tuple[Statement, int | None]]) -> Iterator[Record]:
    plain = [statement for statement, _ in statements]
    lists, cells = _lists(plain)
    name = _Namer(path, text, _labels(plain))
    seen: set[Statement] = set()
    for statement, line in statements:
        if statement in seen:  # the same statement on two lines of an N-Triples file
            continue
        seen.add(statement)
        subject, predicate, obj = statement
        if predicate == RDFS.label or subject in cells or (obj == RDF.nil and predicate != RDF.rest):
            continue
        where = f"line {line}" if line is not None else None
        head, relation = name(subject, where), name(predicate, where)
        if obj in lists:
            for position, member in enumerate(lists[obj], 1):
                props: dict[str, PropValue] = {LIST_POSITION: position}
                yield head, relation, name(member, where), props
        else:
            yield head, relation, name(obj, where), {}


def _labels(statements: list[Statement]) -> dict[Node, str]:
    """One label per node: English or untagged first, then the alphabetically first."""
    preferred: dict[Node, tuple[bool, str]] = {}
    for node, predicate, label in statements:
        if predicate != RDFS.label or not isinstance(label, Literal) or not str(label).strip():
            continue
        candidate = (label.language not in (None, "en"), str(label))
        if node not in preferred or candidate < preferred[node]:
            preferred[node] = candidate
    return {node: label for node, (_, label) in preferred.items()}


def _lists(statements: list[Statement]) -> tuple[dict[Node, list[Node]], set[Node]]:
    """The plain RDF lists: {first cell: members}, and the set of all their cells.

    A cell is a blank node with exactly one rdf:first, one rdf:rest and no other statement. A plain
    list is a chain of cells ending in rdf:nil, without a cycle, whose first cell is the object of
    ordinary statements only and whose other cells are each the object of one rdf:rest only.
    """
    first: dict[Node, Node] = {}
    rest: dict[Node, Node] = {}
    other: set[Node] = set()
    references: Counter[Node] = Counter()
    in_list: set[Node] = set()  # objects of rdf:first or rdf:rest
    for subject, predicate, obj in statements:
        references[obj] += 1
        if predicate in (RDF.first, RDF.rest):
            in_list.add(obj)
        if predicate == RDF.first and subject not in first:
            first[subject] = obj
        elif predicate == RDF.rest and subject not in rest:
            rest[subject] = obj
        else:
            other.add(subject)
    cells = {node for node in (first.keys() & rest.keys()) - other if isinstance(node, BNode)}
    lists: dict[Node, list[Node]] = {}
    for start in cells - in_list:
        if not references[start]:
            continue
        members, chain, node = [], set(), start
        while node in cells and node not in chain and (node == start or references[node] == 1):
            chain.add(node)
            members.append(first[node])
            node = rest[node]
        if node == RDF.nil:
            lists[start] = members
    return lists, {cell for start in lists for cell in _chain(start, rest)}


def _chain(start: Node, rest: dict[Node, Node]) -> Iterator[Node]:
    node = start
    while node != RDF.nil:
        yield node
        node = rest[node]


class _Namer:
    """Names nodes (see the module docstring), numbering blank nodes as they are first named."""

    def __init__(self, path: Path, text: str, labels: dict[Node, str]) -> None:
        self._path = path
        self._labels = labels
        self._blank: dict[Node, str] = {}
        self._escape_line = _escape_line(text)  # where a name with a surrogate came from, if not known

    def __call__(self, node: Node, where: str | None) -> str:
        if isinstance(node, Literal):
            name = str(node)
        elif node in self._labels:
            name = self._labels[node]
        elif isinstance(node, BNode):
            name = self._blank.setdefault(node, f"_:b{len(self._blank) + 1} in {self._path.name}")
        else:
            iri = str(node)
            local = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
            name = unquote(local).replace("_", " ").strip() or iri
        check_text(name, "a name", self._path, where or self._escape_line)
        return name


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]")


def _escape_line(text: str) -> str | None:
    """The line of the first \\u escape of a surrogate (which names no character) in the file."""
    found = _SURROGATE_ESCAPE.search(text)
    return f"line {text.count(chr(10), 0, found.start()) + 1}" if found else None
