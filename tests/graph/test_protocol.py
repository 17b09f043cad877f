"""One protocol suite, three backends: the SQLite store loaded with the facts of the Wikidata-shaped
fixture, a real oxigraph SPARQL server loaded with the fixture itself, and a real FalkorDB Bolt server
loaded with the facts (searched without, then with a full-text index), must answer alike."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fixtures.sparql_fixtures import WIKIDATA_FACTS, WIKIDATA_TTL
from support.bolt import falkordb

from arkg.graph.bolt import BoltGraph, BoltWriter
from arkg.graph.model import Direction, KGStats, KnowledgeGraph, Triple
from arkg.graph.sparql import SparqlGraph
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sqlite_store import SQLiteGraph

FACTS = [Triple(**record) for record in json.loads(WIKIDATA_FACTS.read_text(encoding="utf-8"))]
NAMES = sorted({t.head for t in FACTS} | {t.tail for t in FACTS})
RELATIONS = sorted({t.relation for t in FACTS})
# Names the graph does not have: unknown, a qualifier (not a relation), a label in a language
# outside the chain, the German-only item's label (it is named "Q6" with the English chain).
ABSENT = ["Nobody", "start time", "Ada Feder", "Kleinhafen"]


@pytest.fixture(scope="module", params=["sqlite", "sparql", "bolt", "bolt-fulltext"])
def graph(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    if request.param == "sqlite":
        store = SQLiteGraph()
        store.add_triples(FACTS)
        yield store
        store.close()
    elif request.param == "sparql":
        with serve_rdf(WIKIDATA_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
            sparql = SparqlGraph(url, "wikidata")
            yield sparql
            sparql.close()
    else:
        with falkordb(tmp_path_factory.mktemp("falkordb")) as url:
            with BoltWriter(url) as writer:
                writer.add_triples(FACTS)
                if request.param == "bolt-fulltext":
                    assert writer.build_search_index()
            with BoltGraph(url) as bolt:
                assert bool(bolt.fulltext_sources) == (request.param == "bolt-fulltext")
                yield bolt


def _touches(triple: Triple, entity: str, direction: Direction) -> bool:
    out, into = triple.head == entity, triple.tail == entity
    return {Direction.OUT: out, Direction.IN: into, Direction.BOTH: out or into}[direction]


def _canonical(triples: list[Triple]) -> list[tuple[str, str, str, str]]:
    return sorted((t.head, t.relation, t.tail, json.dumps(t.props, sort_keys=True)) for t in triples)


def test_it_is_a_knowledge_graph(graph: KnowledgeGraph) -> None:
    assert isinstance(graph, KnowledgeGraph)


def test_stats_count_edges_entities_heads_and_relations(graph: KnowledgeGraph) -> None:
    assert graph.stats() == KGStats(triples=18, entities=14, heads=4, relations=12)


@pytest.mark.parametrize("name", NAMES + ABSENT)
def test_membership_matches_the_facts(graph: KnowledgeGraph, name: str) -> None:
    assert graph.has_entity(name) == (name in NAMES)
    assert graph.is_head(name) == any(t.head == name for t in FACTS)


@pytest.mark.parametrize("name", NAMES + ABSENT)
def test_relations_and_triples_match_the_facts_in_every_direction(graph: KnowledgeGraph, name: str) -> None:
    for direction in Direction:
        expected = sorted({t.relation for t in FACTS if _touches(t, name, direction)})
        assert graph.relations(name, direction) == expected, direction
        for relation in RELATIONS + ["start time", "no such relation"]:
            wanted = [t for t in FACTS if t.relation == relation and _touches(t, name, direction)]
            assert _canonical(graph.triples(name, relation, direction)) == _canonical(wanted), (direction, relation)


def test_parallel_edges_are_all_kept(graph: KnowledgeGraph) -> None:
    held = graph.triples("Ada Quill", "position held")
    assert sorted(t.props.get("start time") for t in held) == ["1880-01-01", "1890-03-15"]
    assert {t.relation for t in graph.triples("Borealis Institute", "employer", Direction.IN)} == {"employer"}
    assert graph.relations("Borealis Institute", Direction.IN) == ["employer", "member of"]


def test_qualifiers_arrive_as_typed_props(graph: KnowledgeGraph) -> None:
    (award,) = graph.triples("Ada Quill", "award received")
    assert award.props == {"point in time": "1887-01-01", "for work": "Lantern Survey", "votes received": 42}


def test_an_entity_reached_only_by_incoming_edges(graph: KnowledgeGraph) -> None:
    assert graph.has_entity("Lantern Survey") and not graph.is_head("Lantern Survey")
    assert graph.relations("Lantern Survey") == []
    assert graph.triples("Lantern Survey", "notable work", Direction.IN) == [
        Triple("Ada Quill", "notable work", "Lantern Survey")
    ]


def test_literal_values_are_entities_reached_by_incoming_edges(graph: KnowledgeGraph) -> None:
    assert graph.triples("4200", "population", Direction.IN) == [Triple("Port Halden", "population", "4200")]
    assert graph.relations("1851-06-02", Direction.BOTH) == ["date of birth"]


@pytest.mark.parametrize(
    ("text", "best"),
    [("Ada Quill", "Ada Quill"), ("ada quil", "Ada Quill"), ("Lantren Survey", "Lantern Survey"), ("borealis", "Borealis Institute")],
)
def test_search_entities_ranks_the_meant_entity_first(graph: KnowledgeGraph, text: str, best: str) -> None:
    matches = graph.search_entities(text, k=3)
    assert matches[0].name == best
    assert len(matches) <= 3
    assert [m.score for m in matches] == sorted((m.score for m in matches), reverse=True)


def test_search_relations_ranks_the_entity_relations(graph: KnowledgeGraph) -> None:
    assert graph.search_relations("Ada Quill", "employed by", k=2)[0].name == "employer"
    assert graph.search_relations("Borealis Institute", "membership", k=5, direction=Direction.IN)[0].name == "member of"
    assert graph.search_relations("Nobody", "employer") == []
