"""The KG behind `arkg serve` is opened read-only: SQLite refuses every write, searches still work."""

from __future__ import annotations

import sqlite3

import pytest

from arkg.errors import ArkgError
from arkg.graph import SQLiteGraph, Triple, open_graph, sample_graph_path


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "kg.db"
    with SQLiteGraph(path) as graph:
        graph.load(sample_graph_path())
        graph.build_search_index()
    return path


def test_a_read_only_store_answers_reads_and_refuses_writes(store):
    before = store.read_bytes()
    with open_graph(store, read_only=True) as graph:
        assert [match.name for match in graph.search_entities("Marie Curie", 1)] == ["Marie Curie"]
        assert graph.relations("Warsaw")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            graph.add_triples([Triple("Marie Curie", "friend of", "<script>alert(1)</script>")])
    assert store.read_bytes() == before


def test_a_read_only_store_searches_without_writing_its_name_index(tmp_path):
    path = tmp_path / "unindexed.db"
    with SQLiteGraph(path) as graph:
        graph.load(sample_graph_path())  # no search index built
    before = path.read_bytes()
    with SQLiteGraph(path, create=False, read_only=True) as graph:
        assert "Marie Curie" in [match.name for match in graph.search_entities("Marie Curie", 3)]
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [None, b"", b"not a database"])
def test_read_only_never_creates_or_accepts_a_non_store(tmp_path, content):
    path = tmp_path / "kg.db"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ArkgError, match=str(path)):
        SQLiteGraph(path, read_only=True)
    assert path.exists() == (content is not None)
