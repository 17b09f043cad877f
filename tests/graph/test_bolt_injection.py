"""Names from users and models never change a Bolt query: over a thousand hostile names, sent to every
lookup of a real FalkorDB server (whose Bolt endpoint writes parameters into the query text), are simply
not found, raise nothing and write nothing; names full of quotes and backslashes are found exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fixtures.sparql_fixtures import WIKIDATA_FACTS
from support.bolt import falkordb

from arkg.graph.bolt import BoltConnection, BoltGraph, BoltWriter
from arkg.graph.model import Direction, Triple

FACTS = [Triple(**record) for record in json.loads(WIKIDATA_FACTS.read_text(encoding="utf-8"))]
TRICKY = [
    'Tom "Tiny" O\'Neil',
    "back\\slash",
    "it\\'s",
    "two\nlines\r\tand a tab",
    "{braces} // not a comment",
    "Zoë 東京 🚀",
    "$entity",
    "a' OR '1'='1",
]
TRICKY_FACTS = [
    Triple(TRICKY[0], "knows", TRICKY[1]),
    Triple(TRICKY[2], "likes", TRICKY[3], {"quote's": "it's \\ here"}),
    Triple(TRICKY[4], "likes", TRICKY[5]),
    Triple(TRICKY[6], "knows", TRICKY[7]),
]
REAL = {t.head for t in FACTS + TRICKY_FACTS} | {t.tail for t in FACTS + TRICKY_FACTS}
SEEDS = [
    "' RETURN 1 //",
    "\\' RETURN 1 //",
    "') DETACH DELETE n //",
    "' }) MATCH (n) DETACH DELETE n //",
    "x' CREATE (:Pwned {name: 'p'}) //",
    "\\\\' CREATE (:Pwned) RETURN '",
    "` CREATE (:Pwned) //",
    "$limit",
    "Ada Quill' OR '1'='1",
    'Ada Quill" OR "1"="1',
    "*/ MATCH (n) DETACH DELETE n /*",
    "CALL db.idx.fulltext.drop('Entity')",
    "' CALL db.idx.fulltext.drop('Entity') RETURN '",
    "'; GRAPH.DELETE falkordb; '",
    "CYPHER entity='Ada Quill' RETURN 1",
    "entity='x' ",
    "' UNION MATCH (n) SET n.name = 'owned' RETURN '",
    "'}; MERGE (:Pwned); //",
    "'\n MERGE (:Pwned) //",
    "\\",
    "'",
    '"',
    "\\'",
    "\\\\'",
    "''",
    "%%ada%%",
    "@name:ada*",
    "-(ada)",
    "\x00",
    "Ada Quill\x00",
    "\x00' CREATE (:Pwned) //",
    "\ud800",
    "Ada\udfffQuill",
    "\x1b[31mred",
    "Q1 } UNION { ?s ?p ?o }",
    "it's",
    "back\\\\slash",
    'Tom \\"Tiny\\" O\\\'Neil',
    "a\\' OR \\'1\\'=\\'1",
    "a" * 5_000,
    "🚀" * 5_000,
    "'" * 5_000,
    "\\" * 4_001,
    "é" * 9_000,
]
WRAPPERS = [
    lambda s: s,
    lambda s: s + "'",
    lambda s: "'" + s,
    lambda s: s + "\\",
    lambda s: "\\" + s,
    lambda s: "Ada Quill" + s,
    lambda s: s + "Ada Quill",
    lambda s: s.upper(),
    lambda s: f" {s} ",
    lambda s: s + "\n//",
    lambda s: f"{s}) RETURN 1 //",
    lambda s: f"`{s}`",
    lambda s: s.replace("'", "\\'"),
    lambda s: s.replace("'", "\\\\'"),
    lambda s: s + "\x00",
    lambda s: f"{s}' WITH 1 AS x CREATE (:Pwned) RETURN '",
    lambda s: s * 2,
    lambda s: s[: len(s) // 2],
    lambda s: '"' + s + '"',
    lambda s: s + " $entity",
    lambda s: s + "\u2028",
    lambda s: "{" + s + "}",
    lambda s: s + "'}",
    lambda s: "\\\\" + s,
    lambda s: s + "\ud83d",
    lambda s: s + "🚀",
    lambda s: s.lower(),
    lambda s: s + "' //",
]
HOSTILE = sorted({wrap(seed) for seed in SEEDS for wrap in WRAPPERS} - REAL - {""})


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("falkordb")) as url:
        with BoltWriter(url) as writer:
            writer.add_triples(FACTS + TRICKY_FACTS)
            writer.build_search_index()
        yield url


def _snapshot(url: str) -> dict[str, Any]:
    """Everything a write could change: nodes, edges, labels, types, property keys, indexes."""
    with BoltConnection(url) as connection:
        read = connection.read
        return {
            "nodes": read("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props ORDER BY id(n)"),
            "edges": read("MATCH (a)-[r]->(b) RETURN id(a) AS a, type(r) AS type, properties(r) AS props, id(b) AS b ORDER BY id(r)"),
            "labels": read("CALL db.labels() YIELD label RETURN label ORDER BY label"),
            "types": read("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType"),
            "keys": read("CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey"),
            "indexes": read(connection.dialect.indexes),
        }


def test_there_are_over_a_thousand_hostile_names() -> None:
    assert len(HOSTILE) > 1_000


def test_hostile_names_are_not_found_raise_nothing_and_write_nothing(url: str) -> None:
    before = _snapshot(url)
    with BoltGraph(url) as graph:
        assert graph.fulltext_sources == ["Entity"]
        for name in HOSTILE:
            assert not graph.has_entity(name), name
            assert graph.relations(name, Direction.BOTH) == [], name
            assert graph.triples(name, "knows") == [], name
            assert graph.triples("Ada Quill", name, Direction.BOTH) == [], name
            assert {match.name for match in graph.search_entities(name, 5)} <= REAL, name
    assert _snapshot(url) == before


@pytest.mark.parametrize("name", SEEDS)
def test_every_lookup_of_a_hostile_seed_is_empty(url: str, name: str) -> None:
    with BoltGraph(url + "?fulltext=off") as graph:
        assert not graph.is_head(name)
        for direction in Direction:
            assert graph.relations(name, direction) == []
            assert graph.triples(name, "knows", direction) == []
            assert graph.triples(TRICKY[0], name, direction) == []
        assert graph.search_relations(name, "knows") == []
        assert {match.name for match in graph.search_entities(name, 50)} <= REAL


def test_names_full_of_quotes_and_backslashes_are_found_exactly(url: str) -> None:
    with BoltGraph(url) as graph:
        for name in TRICKY:
            assert graph.has_entity(name), name
        assert graph.triples(TRICKY[0], "knows") == [TRICKY_FACTS[0]]
        assert graph.triples(TRICKY[3], "likes", Direction.IN) == [TRICKY_FACTS[1]]
        assert graph.relations(TRICKY[6], Direction.BOTH) == ["knows"]
        assert graph.triples(TRICKY[7], "knows", Direction.IN) == [TRICKY_FACTS[3]]
        assert graph.search_entities("zoë", 1)[0].name == TRICKY[5]
        assert graph.search_entities("tiny o'neil", 1)[0].name == TRICKY[0]
