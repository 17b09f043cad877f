"""SparqlGraph behaviour beyond the shared protocol: label languages, ids, batching, caching."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fixtures.sparql_fixtures import WIKIDATA_TTL

from arkg.errors import ArkgError, SpecError
from arkg.graph import open_graph
from arkg.graph.model import Direction, Triple
from arkg.graph.sparql import SparqlClient, SparqlGraph
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sparql.schema import render_literal
from arkg.graph.sparql.terms import XSD, Term


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_rdf(WIKIDATA_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
        yield url


def test_labels_follow_the_language_chain(endpoint: str) -> None:
    english = SparqlGraph(endpoint, "wikidata", languages=["en"])
    both = SparqlGraph(endpoint, "wikidata", languages=["en", "de"])
    german = SparqlGraph(endpoint, "wikidata", languages=["de"])
    assert english.triples("Port Halden", "twinned administrative body")[0].tail == "Q6"
    assert both.triples("Port Halden", "twinned administrative body")[0].tail == "Kleinhafen"
    assert both.has_entity("Kleinhafen") and not english.has_entity("Kleinhafen")
    assert german.relations("Ada Feder", Direction.IN) == ["Geschwister"]
    (award,) = german.triples("Ada Feder", "Auszeichnung")
    assert award == Triple(
        "Ada Feder", "Auszeichnung", "Gezeitenpreis",
        {"Zeitpunkt": "1887-01-01", "für das Werk": "Laternenvermessung", "erhaltene Stimmen": 42},
    )


def test_items_are_addressed_by_id_as_well_as_by_label(endpoint: str) -> None:
    graph = SparqlGraph(endpoint, "wikidata")
    assert graph.is_head("Q1")
    assert graph.triples("Q1", "employer") == graph.triples("Ada Quill", "employer")
    assert graph.triples("Q1", "employer")[0].head == "Ada Quill"  # answers always use display names
    assert not graph.has_entity("Q999")


def test_deprecated_statements_are_not_edges(endpoint: str) -> None:
    graph = SparqlGraph(endpoint, "wikidata")
    assert graph.triples("Ada Quill", "date of birth") == [Triple("Ada Quill", "date of birth", "1851-06-02")]
    assert not graph.has_entity("1850-01-01")


def test_labels_are_fetched_in_values_batches(endpoint: str) -> None:
    unbatched = SparqlGraph(SparqlClient(endpoint), "wikidata")
    batched = SparqlGraph(SparqlClient(endpoint), "wikidata", batch_size=2)
    iris = [Term.iri(f"http://www.wikidata.org/entity/Q{n}") for n in range(1, 12)]
    assert unbatched.names(iris) == batched.names(iris)
    assert (unbatched.client.requests, batched.client.requests) == (1, 6)


def test_repeated_lookups_are_answered_from_the_cache(endpoint: str) -> None:
    graph = SparqlGraph(SparqlClient(endpoint), "wikidata")
    first = graph.triples("Ada Quill", "position held", Direction.BOTH)
    sent = graph.client.requests
    assert graph.triples("Ada Quill", "position held", Direction.BOTH) == first
    assert graph.client.requests == sent


@pytest.mark.parametrize(
    ("value", "datatype", "shown"),
    [
        ("1851-06-02T00:00:00Z", "dateTime", "1851-06-02"),
        ("+1851-06-02T00:00:00Z", "dateTime", "1851-06-02"),
        ("1851-06-02T13:45:00Z", "dateTime", "1851-06-02T13:45:00Z"),
        ("4200", "decimal", "4200"),
        ("+4200.50", "decimal", "4200.5"),
        ("1.5E3", "double", "1500"),
        ("not a number", "decimal", "not a number"),
        ("1E+999999", "double", "1E+999999"),
        ("hello", "string", "hello"),
    ],
)
def test_literals_render_readably(value: str, datatype: str, shown: str) -> None:
    assert render_literal(Term.literal(value, datatype=XSD + datatype)) == shown


def test_unknown_schemas_are_refused() -> None:
    with pytest.raises(SpecError, match="unknown SPARQL schema 'owl'"):
        SparqlGraph("http://127.0.0.1:9/sparql", "owl")


def test_graph_specs_name_sparql_endpoints(endpoint: str) -> None:
    graph = open_graph(f"wikidata:{endpoint}")
    assert isinstance(graph, SparqlGraph) and graph.is_head("Ada Quill")
    assert isinstance(open_graph(f"rdf:{endpoint}"), SparqlGraph)
    with pytest.raises(ArkgError, match="not an http"):
        open_graph("wikidata:query.example.org/sparql")


def test_one_graph_serves_concurrent_callers(endpoint: str) -> None:
    graph = SparqlGraph(SparqlClient(endpoint, cache_size=4), "wikidata")  # a tiny cache: constant eviction
    asks = [(name, relation) for name in ("Ada Quill", "Ben Quill", "Q1") for relation in ("sibling", "employer")] * 8
    expected = {ask: SparqlGraph(endpoint, "wikidata").triples(*ask, Direction.BOTH) for ask in asks}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda ask: graph.triples(*ask, Direction.BOTH), asks))
    assert answers == [expected[ask] for ask in asks]


def test_a_local_server_refuses_a_file_it_cannot_load(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ttl"
    broken.write_text("<http://example.org/a> <http://example.org/b> .\n", encoding="utf-8")
    with pytest.raises(ArkgError, match="broken.ttl: oxigraph could not load it"):
        with serve_rdf(broken, tmp_path):
            pass
