"""The RDF loader: quiet on success, errors in plain words, stable blank node names, lists as edges."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arkg.errors import LoadError
from arkg.graph import SQLiteGraph, Triple, read_triples

ILL_TYPED = """@prefix ex: <http://e/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:count "abc"^^xsd:integer ;
     ex:size "12"^^xsd:integer ;
     ex:when "yesterday"^^xsd:date .
"""


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_ill_typed_literals_load_quietly_and_logging_is_left_as_it_was(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """Rdflib logged a warning with a traceback for "abc"^^xsd:integer on a good load."""
    rdflib_logger = logging.getLogger("rdflib")
    handlers, propagate = list(rdflib_logger.handlers), rdflib_logger.propagate
    with caplog.at_level(logging.DEBUG):
        triples = sorted((t.relation, t.tail) for t in read_triples(write(tmp_path, "kg.ttl", ILL_TYPED)))
    assert triples == [("count", "abc"), ("size", "12"), ("when", "yesterday")]
    assert [record for record in caplog.records if record.name.startswith("rdflib")] == []
    assert capfd.readouterr().err == ""
    assert (rdflib_logger.handlers, rdflib_logger.propagate) == (handlers, propagate)
    with caplog.at_level(logging.WARNING, logger="rdflib"):
        logging.getLogger("rdflib.term").warning("still heard outside a load")
    assert [record.message for record in caplog.records] == ["still heard outside a load"]


@pytest.mark.parametrize(
    ("name", "content", "where", "reason"),
    [
        ("cut.ttl", "@prefix ex: <http://e/> .\nex:a ex:r ex:b .\n@prefix", "line 3", "the file ends inside a statement"),
        ("quote.ttl", '@prefix ex: <http://e/> .\nex:a ex:r "x', "line 2", "a string is not closed"),
        ("tag.ttl", '@prefix ex: <http://e/> .\n\nex:a ex:r "x"@en1 .\n', "line 3", "'en1' is not a valid language tag"),
        ("cut.nt", '<http://e/a> <http://e/r> <http://e/b> .\n<http://e/a> <http://e/r> "x', "line 2", "cannot read '\"x'"),
        ("subject.nt", '"s" <http://e/r> <http://e/b> .\n', "line 1", "the subject must be an <IRI> or a _:blank node"),
        ("garbage.nt", "<http://e/a> <http://e/r> <http://e/b> . extra\n", "line 1", "unexpected text after the statement 'extra'"),
    ],
)
def test_rdflib_errors_are_reworded_and_located(tmp_path: Path, name: str, content: str, where: str, reason: str) -> None:
    """Rdflib internals leaked ("string index out of range"), often without a line."""
    with pytest.raises(LoadError) as caught:
        list(read_triples(write(tmp_path, name, content)))
    assert caught.value.where == where
    assert reason in caught.value.reason
    assert "index out of range" not in caught.value.reason and "Error" not in caught.value.reason


def test_a_long_ntriples_literal_loads(tmp_path: Path) -> None:
    long = "x" * 2_000_000
    path = write(tmp_path, "long.nt", f'<http://e/a> <http://e/r> "{long}" .\n')
    [triple] = read_triples(path)
    assert triple.tail == long


BLANK_NODES = """@prefix ex: <http://e/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:curie ex:award [ ex:prize ex:nobel ; ex:year "1903" ] ;
         ex:award [ ex:prize ex:davy ; ex:year "1903" ] ;
         ex:spouse _:pierre .
_:pierre ex:born "1859" .
_:named rdfs:label "Named Node" ; ex:p ex:q .
"""

EXPECTED_BLANK_NODES = [
    ("_:b1 in kg.ttl", "prize", "nobel"),
    ("_:b1 in kg.ttl", "year", "1903"),
    ("_:b2 in kg.ttl", "prize", "davy"),
    ("_:b2 in kg.ttl", "year", "1903"),
    ("_:b3 in kg.ttl", "born", "1859"),
    ("Named Node", "p", "q"),
    ("curie", "award", "_:b1 in kg.ttl"),
    ("curie", "award", "_:b2 in kg.ttl"),
    ("curie", "spouse", "_:b3 in kg.ttl"),
]


def test_blank_nodes_get_stable_marked_names_scoped_to_their_file(tmp_path: Path) -> None:
    """Blank nodes became random names, different on every load."""
    path = write(tmp_path, "kg.ttl", BLANK_NODES)
    first = sorted((t.head, t.relation, t.tail) for t in read_triples(path))
    assert first == sorted(EXPECTED_BLANK_NODES)
    assert sorted((t.head, t.relation, t.tail) for t in read_triples(path)) == first


def test_blank_node_names_do_not_depend_on_the_process(tmp_path: Path) -> None:
    """The names follow the file, not rdflib's hash-ordered store (another process, another seed)."""
    path = write(tmp_path, "kg.nt", "".join(
        f"_:n{index} <http://e/next> _:n{index + 1} .\n<http://e/x{index}> <http://e/has> _:n{index} .\n" for index in range(30)
    ))
    script = "import sys; from arkg.graph import read_triples; print([(t.head, t.relation, t.tail) for t in read_triples(sys.argv[1])])"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script, str(path)],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1
    assert "('x0', 'has', '_:b1 in kg.nt')" in outputs.pop()


def test_the_same_blank_node_label_in_two_files_is_two_entities(tmp_path: Path) -> None:
    a = write(tmp_path, "a.nt", '_:x <http://e/name> "first" .\n')
    b = write(tmp_path, "b.nt", '_:x <http://e/name> "second" .\n')
    with SQLiteGraph() as store:
        store.load(a)
        store.load(b)
        assert [t.head for t in store.iter_triples()] == ["_:b1 in a.nt", "_:b1 in b.nt"]


LISTS = """@prefix ex: <http://e/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:paper ex:authors ( ex:curie ex:becquerel "Pierre Curie" ) ;
         ex:keywords () .
ex:other ex:authors ( ex:curie ( ex:nested ) ) .
ex:odd ex:items _:c1 .
_:c1 rdf:first ex:one ; rdf:rest _:c2 ; ex:note "a cell with another statement" .
_:c2 rdf:first ex:two ; rdf:rest rdf:nil .
"""


def test_rdf_lists_become_one_edge_per_member_with_its_position(tmp_path: Path) -> None:
    """RDF lists added rdf:first/rdf:rest/rdf:nil edges between random names."""
    triples = list(read_triples(write(tmp_path, "kg.ttl", LISTS)))
    paper = [t for t in triples if t.head == "paper"]
    assert paper == [
        Triple("paper", "authors", "curie", {"list position": 1}),
        Triple("paper", "authors", "becquerel", {"list position": 2}),
        Triple("paper", "authors", "Pierre Curie", {"list position": 3}),
    ]
    other = {(t.head, t.relation, t.tail, tuple(t.props.items())) for t in triples if t.head in ("other", "_:b1 in kg.ttl")}
    nested = next(t.tail for t in triples if t.head == "other" and t.props == {"list position": 2})
    assert other == {
        ("other", "authors", "curie", (("list position", 1),)),
        ("other", "authors", nested, (("list position", 2),)),
        (nested, "first", "nested", ()),
        (nested, "rest", "nil", ()),
    }
    odd = {(t.head, t.relation, t.tail) for t in triples if t.head not in ("paper", "other", nested)}
    assert odd == {
        ("odd", "items", "_:b2 in kg.ttl"),
        ("_:b2 in kg.ttl", "first", "one"),
        ("_:b2 in kg.ttl", "rest", "_:b3 in kg.ttl"),
        ("_:b2 in kg.ttl", "note", "a cell with another statement"),
        ("_:b3 in kg.ttl", "first", "two"),
        ("_:b3 in kg.ttl", "rest", "nil"),
    }
