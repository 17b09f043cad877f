"""Names from users and models never change a query: hostile names are simply not found, and names
full of characters that SPARQL must escape are found exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fixtures.sparql_fixtures import FIXTURES, WIKIDATA_FACTS, WIKIDATA_TTL

from arkg.errors import EntityNotFound
from arkg.graph.model import Direction, Triple
from arkg.graph.sparql import SparqlClient, SparqlGraph, fetch_snapshot
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sparql.terms import Term, UnsafeTermError

TRICKY_TTL = FIXTURES / "rdf_tricky_names.ttl"
TRICKY_NAMES = ['Tom "Tiny" O\'Neil', "back\\slash", "two\nlines\r\tand a tab", "{braces} # not a comment", "Zoë 東京 🚀"]
HOSTILE = [
    '"} UNION { ?s ?p ?o }',
    "'} UNION { ?s ?p ?o }",
    '" . ?s ?p ?o . FILTER("1',
    '"@en } UNION { ?s ?p ?o } #',
    '"^^<http://www.w3.org/2001/XMLSchema#string> }',
    "Ada Quill\" } UNION { ?s ?p ?o",
    "Q1 } UNION { ?s ?p ?o }",
    "> } UNION { ?s ?p ?o } #",
    "<http://www.wikidata.org/entity/Q1>",
    "http://example.org/tom> ?p ?o } #",
    '"', "'", '"""', "'''", "\\", "\\\"", "{", "}", "#", "\n", "\r\n", "\t", "\x00", "\x7f", "\ud800",
    "Tom \\\"Tiny\\\" O'Neil",
    "Zoë",
    "٤٢٠٠",
    "1851-06-02\n",
]


@pytest.fixture(scope="module", params=["wikidata", "rdf"])
def graph(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlGraph]:
    data = WIKIDATA_TTL if request.param == "wikidata" else TRICKY_TTL
    with serve_rdf(data, tmp_path_factory.mktemp("oxigraph")) as url:
        yield SparqlGraph(url, request.param)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_not_found_and_leak_nothing(graph: SparqlGraph, name: str) -> None:
    assert not graph.has_entity(name)
    assert not graph.is_head(name)
    for direction in Direction:
        assert graph.relations(name, direction) == []
        assert graph.triples(name, "knows", direction) == []
        assert graph.triples("Ada Quill", name, direction) == []
        assert graph.triples('Tom "Tiny" O\'Neil', name, direction) == []
    assert graph.search_relations(name, "knows") == []


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_search_text_only_returns_real_entity_names(graph: SparqlGraph, name: str) -> None:
    facts = json.loads(WIKIDATA_FACTS.read_text(encoding="utf-8"))
    real = {f["head"] for f in facts} | {f["tail"] for f in facts} | set(TRICKY_NAMES)
    assert {m.name for m in graph.search_entities(name, k=50)} <= real


@pytest.mark.parametrize("name", HOSTILE[:8])
def test_hostile_snapshot_seed_is_not_found(graph: SparqlGraph, name: str, tmp_path) -> None:
    with pytest.raises(EntityNotFound):
        fetch_snapshot(graph, [name], 1, tmp_path / "kg.db")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparqlGraph]:
    with serve_rdf(TRICKY_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
        yield SparqlGraph(url, "rdf")


def test_names_that_need_escaping_are_found_exactly(tricky: SparqlGraph) -> None:
    for name in TRICKY_NAMES:
        assert tricky.has_entity(name), name
    assert tricky.triples('Tom "Tiny" O\'Neil', "knows") == [Triple('Tom "Tiny" O\'Neil', "knows", "back\\slash")]
    assert tricky.triples("back\\slash", "knows", Direction.IN) == [Triple('Tom "Tiny" O\'Neil', "knows", "back\\slash")]
    assert tricky.relations("two\nlines\r\tand a tab", Direction.BOTH) == ["knows", "likes"]
    assert tricky.triples("{braces} # not a comment", "likes") == [Triple("{braces} # not a comment", "likes", "Zoë 東京 🚀")]
    assert tricky.search_entities("zoë", k=1)[0].name == "Zoë 東京 🚀"


def test_generic_rdf_names_unlabelled_nodes_by_local_name(tricky: SparqlGraph) -> None:
    assert tricky.is_head("Unlabelled")
    assert tricky.triples("Unlabelled", "knows") == [Triple("Unlabelled", "knows", 'Tom "Tiny" O\'Neil')]
    assert tricky.relations('Tom "Tiny" O\'Neil') == ["age", "knows"]
    assert tricky.triples("42", "age", Direction.IN) == [Triple('Tom "Tiny" O\'Neil', "age", "42")]
    assert tricky.is_head("http://example.org/tom")  # a full IRI addresses its node directly


@pytest.mark.parametrize("text", [text for text in TRICKY_NAMES + HOSTILE if text != "\ud800"])
def test_escaped_literals_reach_the_server_unchanged(tricky: SparqlGraph, text: str) -> None:
    (row,) = tricky.client.select(f"SELECT ?v WHERE {{ BIND({Term.literal(text).sparql()} AS ?v) }}")
    assert row["v"].value == text


@pytest.mark.parametrize(
    "iri", ["http://x.org/a> ?p ?o", "http://x.org/{a}", 'http://x.org/"', "http://x.org/a b", "no-scheme", "http://x.org/\n"]
)
def test_invalid_iris_are_refused_before_any_query(iri: str) -> None:
    with pytest.raises(UnsafeTermError):
        Term.iri(iri)
    with pytest.raises(UnsafeTermError):
        Term("uri", iri).sparql()


def test_invalid_language_tags_are_refused() -> None:
    with pytest.raises(UnsafeTermError):
        SparqlGraph(SparqlClient("http://127.0.0.1:9/query"), "wikidata", languages=['en") } UNION { ?s ?p ?o } #'])
