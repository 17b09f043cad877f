"""Every loader against generated hostile files: only LoadError escapes, and a load is all or nothing.

Each example is a valid file of the format built from generated triples, then often damaged:
truncated, cut, spliced, or given a hostile piece (deep nesting, a lone surrogate escape, an
integer of thousands of digits, NaN, control characters, a byte order mark, invalid UTF-8).
It is loaded into an empty store or into one that holds what earlier examples loaded. Either the
load raises LoadError and the store is exactly as before, or it succeeds and the store gained
exactly the file's records, as `read_triples` reads them, in order.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arkg.errors import LoadError
from arkg.graph import SQLiteGraph, Triple, read_triples
from arkg.graph.loaders import READERS

EXAMPLES = 500
FORMATS = ("ark", "jsonl", "csv", "tsv", "nt", "ttl")
assert set(FORMATS) <= set(READERS)

# Text with what breaks naive loaders: separators, quotes, escapes, control and format characters,
# line breaks of several kinds, and characters outside the Basic Multilingual Plane.
names = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(',\t"\'\\\n\r{}[]<>:;#@_ .^()-0123456789abcé\x00\x1b\x7f\x85\u2028\ufeff\u202e😀')),
        st.characters(blacklist_categories=("Cs", "Co")),
    ),
    min_size=1,
    max_size=12,
)
values = st.one_of(
    names,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
triples = st.lists(
    st.tuples(names, names, names, st.dictionaries(names, values, max_size=2)), min_size=0, max_size=6
)

# Pieces spliced in at random places.
HOSTILE = [
    "[" * 3000 + "]" * 3000,
    "\\ud800",
    "9" * 5000,
    "NaN",
    "\x00",
    "\x1b[2J",
    "\ufeff",
    "\r",
    '"',
    "\\",
    '""",',
    "_:",
    "(",
    "[ ",
    " .",
    "@prefix",
    ",,,,",
]
# Values that replace a whole field of a record, where the format expects one, per kind of format.
POISON = {
    "json": [
        "[" * 3000 + "]" * 3000,
        '{"a": ' * 1500 + "1" + "}" * 1500,
        '"\\ud800"',
        '"a\\uDFFFb"',
        '"\\ud83d\\ude00"',
        "9" * 5000,
        "-" + "1" * 4400 + ".5e3",
        "NaN",
        "-Infinity",
        "1e999",
        '{"k": 1, "k": 2}',
        '{"k": [1]}',
        '"\\u0000\\u001b[2J"',
        "null",
        '""',
        '" "',
        "[]",
        "{}",
        "true",
        "-0.0",
        "12345678901234567890123",
    ],
    "delimited": ["", " ", "\x00", "x" * 140_000, '"', 'a"b', "\ufeff", "\u2028", "\x1b[2J", "\u202e"],
    "rdf": [
        '"\\ud800"',
        "<http://e.org/\\uD800>",
        '"\\U0000DFFF"',
        '"abc"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"' + "9" * 5000 + '"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"1e999"^^<http://www.w3.org/2001/XMLSchema#double>',
        '"x"@en1',
        '"x"@en',
        '"x"^^<not an iri>',
        "_:",
        "_:b1",
        "<>",
        "<http://e.org/a b>",
        '""',
        '"\\t\\n"',
        "9" * 5000,
        "1.5e99999",
        "()",
        "[]",
        "( _:b1 ( ) )",
        '"""two\nlines"""',
        "'single'",
        "true",
    ],
}
POISON_KIND = {"ark": "json", "jsonl": "json", "csv": "delimited", "tsv": "delimited", "nt": "rdf", "ttl": "rdf"}
MARK = "POISONMARK"  # stands for a field to replace (no generated name is this long and this plain)


def ark_text(records: list, under_graph: bool, ascii_only: bool) -> str:
    edges = [[head, tail, {**props, "relation": relation}] for head, relation, tail, props in records]
    return json.dumps({"question": "q", "graph": edges} if under_graph else edges, ensure_ascii=ascii_only)


def jsonl_text(records: list, under_graph: bool, ascii_only: bool) -> str:
    lines = []
    for head, relation, tail, props in records:
        record = {"head": head, "relation": relation, "tail": tail}
        if props or under_graph:
            record["props"] = props
        lines.append(json.dumps(record, ensure_ascii=ascii_only))
    return "\n".join(lines) + "\n"


def delimited_text(records: list, delimiter: str) -> str:
    columns = sorted({key for *_, props in records for key in props} - {"head", "relation", "tail"})
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["head", "relation", "tail", *columns])
    for head, relation, tail, props in records:
        writer.writerow([head, relation, tail, *(props.get(column, "") for column in columns)])
    return out.getvalue()


def rdf_term(name: str, as_literal: bool) -> str:
    if as_literal:
        return json.dumps(name)  # a JSON string is an N-Triples/Turtle string literal in most cases
    if name.startswith("_"):
        return "_:" + quote(name[1:] or "b", safe="")
    return f"<http://e.org/{quote(name, safe='')}>"


def rdf_text(records: list, turtle: bool) -> str:
    lines = ["@prefix ex: <http://e.org/> .", "ex:list ex:items ( ex:a [ ex:p ex:q ] ) ."] if turtle else []
    for index, (head, relation, tail, props) in enumerate(records):
        literal = index % 2 == 1 or bool(props)
        lines.append(f"{rdf_term(head, False)} {rdf_term(relation, False)} {rdf_term(tail, literal)} .")
    return "\n".join(lines) + "\n"


def serialise(format: str, records: list, variant: bool, ascii_only: bool) -> str:
    if format == "ark":
        return ark_text(records, variant, ascii_only)
    if format == "jsonl":
        return jsonl_text(records, variant, ascii_only)
    if format in ("csv", "tsv"):
        return delimited_text(records, "," if format == "csv" else "\t")
    return rdf_text(records, format == "ttl")


@st.composite
def files(draw: st.DrawFn, format: str) -> bytes:
    records = draw(triples)
    poisoned = []
    if records and draw(st.booleans()):
        index = draw(st.integers(min_value=0, max_value=len(records) - 1))
        field = draw(st.integers(min_value=0, max_value=3))
        record = list(records[index])
        record[field] = {"p": MARK} if field == 3 else MARK
        records[index] = tuple(record)
        poisoned = draw(st.lists(st.sampled_from(POISON[POISON_KIND[format]]), min_size=1, max_size=2))
    text = serialise(format, records, draw(st.booleans()), draw(st.booleans()))
    for poison in poisoned:  # the mark stands where the format has a field, quoted as the format quotes it
        text = re.sub(f'"{MARK}"|<[^<>]*{MARK}>|{MARK}', lambda _: poison, text, count=1)
    data = text.encode("utf-8", errors="surrogatepass")
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        where = draw(st.integers(min_value=0, max_value=len(data)))
        damage = draw(st.sampled_from(["truncate", "insert", "delete", "splice", "bad utf-8", "bom", "crlf"]))
        if damage == "truncate":
            data = data[:where]
        elif damage == "insert":
            data = data[:where] + draw(st.sampled_from(HOSTILE)).encode("utf-8") + data[where:]
        elif damage == "delete":
            data = data[:where] + data[where + draw(st.integers(min_value=1, max_value=20)) :]
        elif damage == "splice":
            start = draw(st.integers(min_value=0, max_value=len(data)))
            data = data[:where] + data[start : start + 40] + data[where:]
        elif damage == "bad utf-8":
            data = data[:where] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe9"])) + data[where:]
        elif damage == "bom":
            data = b"\xef\xbb\xbf" + data
        else:
            data = data.replace(b"\n", b"\r\n")
    return data


def new_edges(stored: list[Triple], read: Iterable[Triple]) -> list[Triple]:
    """The edges a load should add: names trimmed, each edge once, none the store holds."""
    seen = {edge_key(triple) for triple in stored}
    added = []
    for triple in read:
        trimmed = Triple(triple.head.strip(), triple.relation.strip(), triple.tail.strip(), triple.props)
        if edge_key(trimmed) not in seen:
            seen.add(edge_key(trimmed))
            added.append(trimmed)
    return added


def edge_key(triple: Triple) -> tuple[str, str, str, str]:
    return triple.head, triple.relation, triple.tail, json.dumps(triple.props, sort_keys=True)


def state(store: SQLiteGraph) -> tuple:
    return list(store.iter_triples()), store.stats(), store._scalar("SELECT count(*) FROM sources")


@pytest.mark.parametrize("format", FORMATS)
def test_a_load_raises_only_load_error_and_is_all_or_nothing(format: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Hostile files ended in tracebacks; no partial writes."""
    path = tmp_path_factory.mktemp(format) / f"kg.{format}"
    outcomes = {"loaded": 0, "refused": 0}
    shared = SQLiteGraph()  # gathers what earlier examples loaded, so later loads meet existing names
    shared.add_triples([Triple("already", "in", "store", {"n": 1})])

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=files(format), into_empty_store=st.booleans())
    def load_once(data: bytes, into_empty_store: bool) -> None:
        path.write_bytes(data)
        store = SQLiteGraph() if into_empty_store else shared  # an empty store takes the bulk-load path
        before = state(store)
        try:
            store.load(path, format)
        except LoadError as error:
            assert error.path == str(path)
            assert state(store) == before
            outcomes["refused"] += 1
            return
        triples, _, sources = state(store)
        assert triples[: len(before[0])] == before[0]
        assert triples[len(before[0]) :] == new_edges(before[0], read_triples(path, format))
        assert sources == before[2] + 1
        outcomes["loaded"] += 1

    load_once()
    shared.close()
    assert outcomes["loaded"] + outcomes["refused"] >= EXAMPLES
    assert outcomes["loaded"] > 0 and outcomes["refused"] > 0, outcomes
