"""The Bolt backend over a real FalkorDB server on 127.0.0.1: how a property graph reads as triples under
each mapping option, bounded lookups and searches, and clear errors for every way a connection fails."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.bolt import falkordb

from arkg.graph.bolt import BoltConnection, BoltError, BoltGraph
from arkg.graph.model import Direction, KGStats, Triple

# Five entities (named by name, title or id), one node without a name, attributes of every kind, a
# self-loop, an edge to the unnamed node, and a relationship naming its relation in a property.
GRAPH = """
CREATE (ada:Person {name: 'Ada Lovelace', born: 1815, tags: ['mathematician', 'writer'], active: false}),
       (charles:Person {name: 'Charles Babbage'}),
       (mary:Person {name: 'Mary Somerville'}),
       (film:Film {title: 'Difference Engine', year: 1991}),
       (thing:Thing {id: 'Q42'}),
       (nameless:Thing {foo: 1}),
       (ada)-[:KNOWS {since: 1833}]->(charles),
       (ada)-[:KNOWS]->(mary),
       (ada)-[:KNOWS]->(nameless),
       (ada)-[:APPEARS_IN {role: 'lead'}]->(film),
       (ada)-[:SELF]->(ada),
       (charles)-[:LINK {via: 'designed', weight: 0.25}]->(thing)
"""


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("falkordb")) as url:
        with BoltConnection(url) as connection:
            connection.write(GRAPH)
        yield url


@pytest.fixture(scope="module")
def graph(url: str) -> Iterator[BoltGraph]:
    with BoltGraph(url) as graph:
        yield graph


def test_nodes_are_named_by_the_first_name_property_they_have(graph: BoltGraph) -> None:
    for name in ("Ada Lovelace", "Difference Engine", "Q42"):
        assert graph.has_entity(name), name
    assert not graph.has_entity("1") and not graph.has_entity("Person")
    assert graph.stats() == KGStats(triples=10, entities=5, heads=3, relations=8)


def test_relationships_are_triples_with_their_properties_as_props(graph: BoltGraph) -> None:
    assert graph.triples("Ada Lovelace", "KNOWS") == [
        Triple("Ada Lovelace", "KNOWS", "Charles Babbage", {"since": 1833}),
        Triple("Ada Lovelace", "KNOWS", "Mary Somerville"),
    ]
    assert graph.triples("Difference Engine", "APPEARS_IN", Direction.IN) == [
        Triple("Ada Lovelace", "APPEARS_IN", "Difference Engine", {"role": "lead"})
    ]
    assert graph.triples("Ada Lovelace", "SELF", Direction.BOTH) == [Triple("Ada Lovelace", "SELF", "Ada Lovelace")]
    assert graph.triples("Charles Babbage", "LINK") == [Triple("Charles Babbage", "LINK", "Q42", {"via": "designed", "weight": 0.25})]


def test_node_properties_are_outgoing_attribute_triples(graph: BoltGraph) -> None:
    assert graph.relations("Ada Lovelace") == ["APPEARS_IN", "KNOWS", "SELF", "active", "born", "tags"]
    assert graph.triples("Ada Lovelace", "tags") == [
        Triple("Ada Lovelace", "tags", "mathematician"),
        Triple("Ada Lovelace", "tags", "writer"),
    ]
    assert graph.triples("Ada Lovelace", "born") == [Triple("Ada Lovelace", "born", "1815")]
    assert graph.triples("Ada Lovelace", "active") == [Triple("Ada Lovelace", "active", "false")]
    assert graph.is_head("Difference Engine") and graph.relations("Difference Engine") == ["year"]
    assert graph.relations("Difference Engine", Direction.IN) == ["APPEARS_IN"]
    assert not graph.has_entity("1815") and graph.triples("1815", "born", Direction.IN) == []


def test_a_label_restricts_the_graph_to_its_nodes(url: str) -> None:
    with BoltGraph(url + "?label=Person") as people:
        assert people.stats() == KGStats(triples=7, entities=3, heads=1, relations=5)
        assert not people.has_entity("Difference Engine")
        assert people.relations("Ada Lovelace") == ["KNOWS", "SELF", "active", "born", "tags"]


def test_a_relationship_property_can_name_the_relation(url: str) -> None:
    with BoltGraph(url + "?relation=via") as graph:
        assert graph.relations("Charles Babbage") == ["designed"]
        assert graph.triples("Charles Babbage", "designed") == [Triple("Charles Babbage", "designed", "Q42", {"weight": 0.25})]
        assert graph.triples("Charles Babbage", "LINK") == []
        assert graph.relations("Ada Lovelace", Direction.OUT)[:3] == ["APPEARS_IN", "KNOWS", "SELF"]


def test_attributes_and_name_properties_are_options(url: str) -> None:
    with BoltGraph(url + "?attributes=false") as graph:
        assert graph.relations("Ada Lovelace") == ["APPEARS_IN", "KNOWS", "SELF"]
        assert not graph.is_head("Difference Engine")
        assert graph.stats() == KGStats(triples=5, entities=5, heads=2, relations=4)
    with BoltGraph(url + "?name=title") as films:
        assert films.has_entity("Difference Engine") and not films.has_entity("Ada Lovelace")
        assert films.stats() == KGStats(triples=1, entities=1, heads=1, relations=1)


def test_every_lookup_stops_at_the_row_limit(url: str) -> None:
    with BoltGraph(url + "?limit=1") as graph:
        assert len(graph.triples("Ada Lovelace", "KNOWS")) == 1
        assert len(graph.triples("Ada Lovelace", "tags")) == 1


def test_search_without_a_full_text_index_scans_names_for_word_starts(graph: BoltGraph) -> None:
    assert graph.fulltext_sources == []
    assert graph.search_entities("ada lovelce", 1)[0].name == "Ada Lovelace"
    assert graph.search_entities("Babage", 2)[0].name == "Charles Babbage"
    assert graph.search_entities("difference", 1)[0].name == "Difference Engine"
    assert graph.search_entities("   ", 3) == [] and graph.search_entities("Ada", 0) == []


def test_refused_connections_say_so_in_one_line() -> None:
    with pytest.raises(BoltError) as refused:
        BoltGraph("bolt://127.0.0.1:1")
    assert str(refused.value) == (
        "Bolt server bolt://127.0.0.1:1: cannot connect: connection refused (is the server running, and is this its Bolt port?)"
    )


def test_a_neo4j_url_on_a_single_server_hints_at_bolt(url: str) -> None:
    with pytest.raises(BoltError, match="for one server \\(or FalkorDB\\) use bolt://"):
        BoltGraph(url.replace("bolt://", "neo4j://"))


def test_falkordb_serves_one_graph_so_another_database_is_refused(url: str) -> None:
    with pytest.raises(BoltError, match="serves only its graph 'falkordb' \\(not 'movies'\\)"):
        BoltGraph(url + "/movies")
    with BoltGraph(url + "/falkordb") as graph:
        assert graph.has_entity("Ada Lovelace")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("guarded"), password="s3cret-Pa55") as url:
        yield url


def test_the_right_password_opens_and_a_wrong_one_is_one_line_without_it(guarded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with BoltGraph(guarded.replace("bolt://", "bolt://falkordb:s3cret-Pa55@")) as graph:
        assert graph.stats() == KGStats(triples=0, entities=0, heads=0, relations=0)
    monkeypatch.setenv("ARKG_BOLT_USER", "falkordb")
    monkeypatch.setenv("ARKG_BOLT_PASSWORD", "not-the-Pa55word")
    with pytest.raises(BoltError) as refused:
        BoltGraph(guarded)
    message = str(refused.value)
    assert "refused the login of user 'falkordb': wrong user name or password" in message
    assert "Pa55" not in message and "\n" not in message
    with BoltGraph(guarded.replace("bolt://", "bolt://falkordb:s3cret-Pa55@")) as graph:  # the server still serves
        assert graph.has_entity("nobody") is False

