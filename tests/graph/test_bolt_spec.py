"""Bolt URLs, the Cypher each mapping reads with, and the dialect rules, without a server: what a user
writes after --db is understood or refused in one line, the password never shows, and no query text
ever holds anything but the mapping's identifiers."""

from __future__ import annotations

import sys

import neo4j.exceptions
import pytest
from typer.testing import CliRunner

from arkg.cli import app
from arkg.errors import SpecError
from arkg.graph import open_graph
from arkg.graph.bolt import BoltError, Mapping, is_bolt_spec, parse_bolt_spec, redact_spec
from arkg.graph.bolt.connection import BoltQueryError, translate_error
from arkg.graph.bolt.dialect import CypherDialect, FalkorDialect
from arkg.graph.bolt.mapping import Queries

SECRET = "pa$$:w/rd"
URL = "bolt://alice:pa%24%24%3Aw%2Frd@db.example.org:7999/films?label=Person&name=name,title&limit=50"


def test_a_full_url_is_read_with_its_credentials_database_and_options() -> None:
    spec = parse_bolt_spec(URL, environ={})
    assert (spec.scheme, spec.host, spec.port, spec.database) == ("bolt", "db.example.org", 7999, "films")
    assert spec.auth == ("alice", SECRET)
    assert spec.mapping == Mapping(label="Person", name_keys=("name", "title"))
    assert spec.limit == 50 and spec.timeout == 30.0 and spec.fulltext == "auto"
    assert spec.uri == "bolt://db.example.org:7999"


def test_the_password_never_shows() -> None:
    spec = parse_bolt_spec(URL, environ={})
    for shown in (spec.display, repr(spec), redact_spec(URL)):
        assert SECRET not in shown and "pa%24" not in shown
    assert redact_spec(URL) == "bolt://alice@db.example.org:7999"
    assert redact_spec("kg.db") == "kg.db"
    with pytest.raises(SpecError) as refused:
        parse_bolt_spec(URL + "&colour=red", environ={})
    assert "unknown option 'colour'" in str(refused.value) and "pa%24" not in str(refused.value)


def test_credentials_come_from_the_environment_unless_the_url_has_them() -> None:
    environ = {"ARKG_BOLT_USER": "falkordb", "ARKG_BOLT_PASSWORD": "from-env"}
    assert parse_bolt_spec("neo4j+s://h", environ=environ).auth == ("falkordb", "from-env")
    assert parse_bolt_spec("bolt://bob:pw@h", environ=environ).auth == ("bob", "pw")
    assert parse_bolt_spec("bolt://h", environ={}).auth is None
    assert parse_bolt_spec("bolt://h", environ={"ARKG_BOLT_PASSWORD": "x"}).auth == ("neo4j", "x")
    assert parse_bolt_spec("bolt://h", environ={}).port == 7687


@pytest.mark.parametrize(
    "spec",
    ["bolt://h:7687/kg", "BOLT://h", "bolt+s://h", "bolt+ssc://h", "neo4j://h", "neo4j+s://h", "neo4j+ssc://h"],
)
def test_every_bolt_scheme_is_recognised(spec: str) -> None:
    assert is_bolt_spec(spec)


@pytest.mark.parametrize("spec", ["kg.db", "bolt.db", "bolt:kg", "wikidata:https://query.wikidata.org/sparql", "http://h"])
def test_other_specs_are_not_bolt(spec: str) -> None:
    assert not is_bolt_spec(spec)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("bolt://h:notaport", "not a Bolt URL"),
        ("bolt://", "not a Bolt URL"),
        ("bolt://h?label=Person-1", "label must be a plain identifier"),
        ("bolt://h?name=name,`x`", "a name property must be a plain identifier"),
        ("bolt://h?relation=a b", "relation must be a plain identifier"),
        ("bolt://h?limit=0", "limit must be a whole number from 1 to 2,147,483,647, not '0'"),
        ("bolt://h?timeout=soon", "timeout must be seconds above 0 and at most 86,400, not 'soon'"),
        ("bolt://h?attributes=maybe", "attributes must be true or false"),
        ("bolt://h?fulltext=my index", "the full-text index must be a plain identifier"),
        ("bolt://h?limit=1&limit=2", "given twice"),
        ("bolt://h#top", "no #fragment"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(spec: str, says: str) -> None:
    with pytest.raises(SpecError, match=says):
        parse_bolt_spec(spec, environ={})


@pytest.mark.parametrize("value", ["1e308", "inf", "nan", "-inf", "0", "-1", "86400.5"])
def test_a_timeout_out_of_range_is_refused_with_the_range(value: str) -> None:
    # 1e308 seconds overflowed the driver's milliseconds (an internal error); nan and inf are no bound.
    with pytest.raises(SpecError, match=rf"timeout must be seconds above 0 and at most 86,400, not '{value}'"):
        parse_bolt_spec(f"bolt://h?timeout={value}", environ={})


@pytest.mark.parametrize("value", ["4294967296", "2147483648", "99999999999999999999999", "0", "-1", "1.5", "1e3"])
def test_a_limit_out_of_range_is_refused_with_the_range(value: str) -> None:
    # FalkorDB wraps a LIMIT of 2**32 to 0: every lookup came back empty without a word.
    with pytest.raises(SpecError, match=rf"limit must be a whole number from 1 to 2,147,483,647, not '{value}'"):
        parse_bolt_spec(f"bolt://h?limit={value}", environ={})


def test_the_ends_of_the_ranges_are_accepted() -> None:
    assert parse_bolt_spec("bolt://h?timeout=86400&limit=2147483647", environ={}).timeout == 86400
    assert parse_bolt_spec("bolt://h?timeout=86400&limit=2147483647", environ={}).limit == 2**31 - 1
    assert parse_bolt_spec("bolt://h?timeout=0.001&limit=1", environ={}).timeout == 0.001


def test_the_cli_refuses_an_out_of_range_option_before_connecting() -> None:
    """Port 1 answers nothing: the URL is refused before any connection, in one red line, exit 1."""
    result = CliRunner().invoke(app, ["kg", "info", "--db", "bolt://u:hidden@127.0.0.1:1?timeout=1e308"])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        "Error: bolt://u@127.0.0.1:1: timeout must be seconds above 0 and at most 86,400, not '1e308'"
    ]


def test_open_graph_sends_bolt_specs_to_the_bolt_backend() -> None:
    with pytest.raises(BoltError, match="connection refused"):
        open_graph("bolt://127.0.0.1:1")


def test_without_the_driver_the_cli_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "neo4j", None)  # `import neo4j` now fails as if it were not installed
    result = CliRunner().invoke(app, ["kg", "info", "--db", "bolt://u:hidden@127.0.0.1:1"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: Bolt server bolt://127.0.0.1:1: the Bolt backend needs the `neo4j` Python driver: pip install 'arkg[bolt]'"
    ]


class _ServerError(Exception):
    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def test_neo4j_error_codes_become_one_clear_line() -> None:
    spec = parse_bolt_spec("bolt://neo:secret@h/movies?timeout=5", environ={})
    missing = translate_error(_ServerError("Neo.ClientError.Database.DatabaseNotFound"), spec, neo4j.exceptions)
    assert str(missing) == "Bolt server bolt://h:7687/movies: the server has no database named 'movies'"
    slow = translate_error(_ServerError("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"), spec, neo4j.exceptions)
    assert isinstance(slow, BoltQueryError) and "longer than 5 s" in str(slow)
    login = translate_error(neo4j.exceptions.AuthError("The client is unauthorized"), spec, neo4j.exceptions)
    assert "refused the login of user 'neo'" in str(login) and "secret" not in str(login)


def test_query_texts_hold_only_the_mappings_identifiers() -> None:
    mapping = Mapping(label="Film", name_keys=("name", "title"), relation_key="via")
    queries = Queries(mapping, mapping.name_keys, CypherDialect.fulltext_procedure)
    texts = [queries.nodes, queries.has_out_edge, *queries.relations.values(), *queries.triples.values()]
    assert all("(n:Film)" in text and "$entity" in text for text in texts)
    assert "(n.name = $entity) OR (n.name IS NULL AND n.title = $entity)" in queries.nodes
    assert "coalesce(r.via, type(r)) = $relation" in queries.triples[next(iter(queries.triples))]
    assert queries.search_fulltext.startswith("CALL db.index.fulltext.queryNodes($source, $query)")
    single = Queries(Mapping(), ("name",), FalkorDialect.fulltext_procedure)
    assert "WHERE n.name = $entity RETURN" in single.nodes and "(n)" in single.nodes


def test_neo4j_full_text_search_is_lucene_built_from_word_characters_only() -> None:
    dialect = CypherDialect()
    assert dialect.fulltext_query('Lantren "Survey" AND ~*') == "lant* lantren~ surv* survey~ and*"
    assert dialect.fulltext_query("}{)(*") is None
    rows = [
        {"name": "names", "entityType": "NODE", "labelsOrTypes": ["Person"], "properties": ["name"], "state": "ONLINE"},
        {"name": "bios", "entityType": "NODE", "labelsOrTypes": ["Person"], "properties": ["bio"], "state": "ONLINE"},
        {"name": "new", "entityType": "NODE", "labelsOrTypes": ["Film"], "properties": ["title"], "state": "POPULATING"},
        {"name": "rels", "entityType": "RELATIONSHIP", "labelsOrTypes": ["ACTED"], "properties": ["name"], "state": "ONLINE"},
    ]
    assert dialect.fulltext_sources(rows, ("name", "title"), None) == ["names"]
    assert dialect.fulltext_sources(rows, ("name", "title"), "Film") == []
    assert dialect.fulltext_index("Entity", "name") == [
        "CREATE FULLTEXT INDEX arkg_Entity_name_text IF NOT EXISTS FOR (n:Entity) ON EACH [n.name]"
    ]
    assert dialect.identifier("date of `birth`") == "`date of ``birth```"


def test_falkordb_parameters_travel_in_its_own_header_as_escaped_literals() -> None:
    dialect = FalkorDialect()
    query = "MATCH (n) WHERE n.name = $entity RETURN n LIMIT $limit"
    assert dialect.prepare(query, {"entity": "O'Neil \\' x", "limit": 5}) == (
        f"CYPHER entity='O\\'Neil \\\\\\' x' limit=5 {query}",
        {},
    )
    rows = {"rows": [["a", -1, 1e-09, 0.1, True, None]]}
    assert dialect.prepare("UNWIND $rows AS row", rows)[0] == "CYPHER rows=[['a', -1, 1e-09, 0.1, true, null]] UNWIND $rows AS row"
    assert dialect.prepare(query, {}) == (query, {})
    with pytest.raises(ValueError):
        dialect.prepare(query, {"x=1 MATCH (n) DETACH DELETE n //": 1})
    assert dialect.fulltext_query("Lantren Survey of ÉTÉ") == "lantren | %lantren% | survey | %survey% | ete | été | of"
    assert dialect.sendable("Zoë 東京 🚀\n\t" + "'" * 10_000)
    assert not dialect.sendable("Ada\x00Quill") and not dialect.sendable("\ud800")
    assert dialect.identifier("a`b") is None and dialect.identifier("date of birth") == "`date of birth`"
    assert CypherDialect().sendable("Ada\x00Quill") and not CypherDialect().sendable("\udfff")
