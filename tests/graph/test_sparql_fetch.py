"""`arkg kg fetch` against a real oxigraph server: the snapshot answers like the live endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.sparql_fixtures import FIXTURES, WIKIDATA_FACTS, WIKIDATA_TTL
from typer.testing import CliRunner

from arkg.cli import app
from arkg.graph.model import Direction, Triple
from arkg.graph.sparql import SparqlGraph, fetch_snapshot, snapshot
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sqlite_store import SQLiteGraph

FACTS = [Triple(**record) for record in json.loads(WIKIDATA_FACTS.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_rdf(WIKIDATA_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
        yield url


def _canonical(triples) -> list[tuple[str, str, str, str]]:
    return sorted((t.head, t.relation, t.tail, json.dumps(t.props, sort_keys=True)) for t in triples)


def _fetch(endpoint: str, db: Path, *args: str):
    return CliRunner().invoke(app, ["kg", "fetch", "--endpoint", endpoint, "--db", str(db), *args])


def test_one_hop_copies_the_edges_touching_the_entity(endpoint: str, tmp_path: Path) -> None:
    result = _fetch(endpoint, tmp_path / "kg.db", "--entities", "Ada Quill", "--hops", "1")
    assert result.exit_code == 0, result.output
    assert "10 triples" in result.output
    with SQLiteGraph(tmp_path / "kg.db", create=False) as store:
        touching = [t for t in FACTS if "Ada Quill" in (t.head, t.tail)]
        assert _canonical(store.iter_triples()) == _canonical(touching)


def test_the_snapshot_answers_exactly_like_the_endpoint(endpoint: str, tmp_path: Path) -> None:
    result = _fetch(endpoint, tmp_path / "kg.db", "-e", "Q1", "-e", "Port Halden", "--hops", "3", "--lang", "en")
    assert result.exit_code == 0, result.output
    live = SparqlGraph(endpoint, "wikidata")
    with SQLiteGraph(tmp_path / "kg.db", create=False) as store:
        assert _canonical(store.iter_triples()) == _canonical(FACTS)
        assert store.stats() == live.stats()
        for name in {t.head for t in FACTS} | {t.tail for t in FACTS}:
            for direction in Direction:
                assert store.relations(name, direction) == live.relations(name, direction)
                for relation in store.relations(name, direction):
                    assert _canonical(store.triples(name, relation, direction)) == _canonical(
                        live.triples(name, relation, direction)
                    )


def test_an_unknown_entity_fails_with_suggestions_and_writes_nothing(endpoint: str, tmp_path: Path) -> None:
    result = _fetch(endpoint, tmp_path / "kg.db", "--entities", "Ada Quil")
    assert result.exit_code == 1
    assert "Ada Quil" in result.output and "Did you mean: Ada Quill" in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_fetch_keeps_the_previous_snapshot(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "kg.db"
    fetch_snapshot(SparqlGraph(endpoint, "wikidata"), ["Ben Quill"], 1, target)
    before = target.read_bytes()

    class InterruptedStore(SQLiteGraph):
        def add_triples(self, triples) -> int:
            super().add_triples(triples)
            raise KeyboardInterrupt

    monkeypatch.setattr(snapshot, "SQLiteGraph", InterruptedStore)
    with pytest.raises(KeyboardInterrupt):
        fetch_snapshot(SparqlGraph(endpoint, "wikidata"), ["Ada Quill"], 2, target)
    assert target.read_bytes() == before
    result = _fetch(endpoint, target, "-e", "Ada Quill")
    assert result.exit_code == 130 and "Interrupted" in result.output
    assert target.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["kg.db"]


def test_progress_is_reported_per_hop(endpoint: str, tmp_path: Path) -> None:
    seen: list[tuple[int, int, int]] = []
    fetch_snapshot(SparqlGraph(endpoint, "wikidata"), ["Ada Quill"], 2, tmp_path / "kg.db", progress=lambda *a: seen.append(a))
    assert seen == [(1, 1, 1), (2, 6, 6)]


def test_a_generic_rdf_graph_is_fetched_with_its_names(tmp_path: Path) -> None:
    with serve_rdf(FIXTURES / "rdf_tricky_names.ttl", tmp_path) as url:
        result = _fetch(url, tmp_path / "kg.db", "--schema", "rdf", "-e", "Unlabelled", "--hops", "6")
        assert result.exit_code == 0, result.output
        live = SparqlGraph(url, "rdf")
        with SQLiteGraph(tmp_path / "kg.db", create=False) as store:
            assert store.stats() == live.stats()
            for triple in store.iter_triples():
                assert triple in live.triples(triple.head, triple.relation)
