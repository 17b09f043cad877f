"""The SQLite store: parallel and incoming edges, props, atomic loads, files on disk."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.errors import ArkgError, LoadError
from arkg.graph import Direction, KGStats, KnowledgeGraph, SQLiteGraph, Triple, sqlite_store

CURIES = [
    Triple("Marie Curie", "spouse", "Pierre Curie", {"start time": "1895", "end time": "1906"}),
    Triple("Marie Curie", "collaborator", "Pierre Curie"),
    Triple("Marie Curie", "award received", "Nobel Prize in Physics", {"point in time": 1903}),
    Triple("Marie Curie", "award received", "Nobel Prize in Chemistry", {"point in time": 1911}),
    Triple("Pierre Curie", "award received", "Nobel Prize in Physics", {"point in time": 1903}),
    Triple("Warsaw", "country", "Poland"),
    Triple("Marie Curie", "place of birth", "Warsaw"),
]


def write_jsonl(path: Path, triples: list[Triple], last_line: str = "") -> Path:
    lines = [json.dumps(triple.as_dict(), ensure_ascii=False) for triple in triples]
    path.write_text("\n".join(lines) + "\n" + last_line, encoding="utf-8")
    return path


def snapshot(graph: SQLiteGraph) -> tuple[list[Triple], KGStats]:
    return list(graph.iter_triples()), graph.stats()


@pytest.fixture
def graph() -> Iterator[SQLiteGraph]:
    with SQLiteGraph() as store:
        store.add_triples(CURIES)
        yield store


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several batches even for a handful of triples, so a late error comes after earlier inserts."""
    monkeypatch.setattr(sqlite_store, "BATCH_SIZE", 2)


def test_implements_the_protocol(graph: SQLiteGraph) -> None:
    assert isinstance(graph, KnowledgeGraph)


def test_parallel_edges_are_all_kept_and_an_identical_edge_once(graph: SQLiteGraph) -> None:
    assert graph.add_triples([Triple("Marie Curie", "award received", "Nobel Prize in Physics", {"point in time": 1904})]) == 1
    assert graph.add_triples([Triple("Marie Curie", "collaborator", "Pierre Curie")]) == 0
    assert graph.add_triples([Triple("Marie Curie", "spouse", "Pierre Curie", {"end time": "1906", "start time": "1895"})]) == 0
    assert graph.relations("Marie Curie") == ["award received", "collaborator", "place of birth", "spouse"]
    assert graph.triples("Marie Curie", "award received") == [
        Triple("Marie Curie", "award received", "Nobel Prize in Physics", {"point in time": 1903}),
        Triple("Marie Curie", "award received", "Nobel Prize in Chemistry", {"point in time": 1911}),
        Triple("Marie Curie", "award received", "Nobel Prize in Physics", {"point in time": 1904}),
    ]
    assert len(graph.triples("Marie Curie", "collaborator")) == 1
    assert graph.stats().triples == len(CURIES) + 1


def test_props_round_trip_with_their_types(graph: SQLiteGraph) -> None:
    props = {"text": "Skłodowska – 居里", "int": 3, "float": 0.25, "yes": True, "no": False, "none": None}
    graph.add_triples([Triple("a", "r", "b", props)])
    [triple] = graph.triples("a", "r")
    assert triple.props == props
    assert {key: type(value) for key, value in triple.props.items()} == {key: type(value) for key, value in props.items()}


def test_incoming_edges_keep_their_orientation(graph: SQLiteGraph) -> None:
    assert graph.relations("Pierre Curie", Direction.IN) == ["collaborator", "spouse"]
    assert graph.triples("Nobel Prize in Physics", "award received", Direction.IN) == [CURIES[2], CURIES[4]]
    assert graph.relations("Warsaw", Direction.BOTH) == ["country", "place of birth"]
    assert graph.triples("Warsaw", "country", Direction.BOTH) == [CURIES[5]]


def test_a_self_loop_appears_once_in_both_directions(graph: SQLiteGraph) -> None:
    loop = Triple("Ouroboros", "eats", "Ouroboros")
    graph.add_triples([loop])
    for direction in Direction:
        assert graph.triples("Ouroboros", "eats", direction) == [loop]


def test_an_entity_reached_only_by_incoming_edges_is_not_a_head(graph: SQLiteGraph) -> None:
    assert graph.has_entity("Poland") and not graph.is_head("Poland")
    assert graph.relations("Poland") == []
    assert graph.relations("Poland", Direction.IN) == ["country"]
    assert graph.is_head("Warsaw") and graph.has_entity("Warsaw")


def test_unknown_names_give_empty_answers(graph: SQLiteGraph) -> None:
    assert not graph.is_head("Atlantis") and not graph.has_entity("Atlantis")
    assert graph.relations("Atlantis", Direction.BOTH) == []
    assert graph.triples("Marie Curie", "no such relation") == []
    assert graph.triples("Atlantis", "country", Direction.BOTH) == []


def test_stats_count_triples_entities_heads_relations(graph: SQLiteGraph) -> None:
    assert graph.stats() == KGStats(triples=7, entities=6, heads=3, relations=5)


def test_iter_triples_returns_every_edge_in_insertion_order(graph: SQLiteGraph) -> None:
    assert list(graph.iter_triples()) == CURIES


def test_load_a_file_into_a_real_sqlite_file_and_reopen_it(tmp_path: Path, small_batches: None) -> None:
    progress: list[int] = []
    with SQLiteGraph(tmp_path / "kg.db") as store:
        assert store.load(write_jsonl(tmp_path / "kg.jsonl", CURIES), progress=progress.append).added == len(CURIES)
    assert progress == [2, 4, 6, 7]
    with SQLiteGraph(tmp_path / "kg.db", create=False) as reopened:
        assert list(reopened.iter_triples()) == CURIES
        assert reopened.triples("Pierre Curie", "spouse", Direction.IN) == [CURIES[0]]


def test_a_second_load_reuses_the_entities_already_stored(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write_jsonl(tmp_path / "a.jsonl", CURIES[:3]))
        store.load(write_jsonl(tmp_path / "b.jsonl", CURIES[3:]))
        assert list(store.iter_triples()) == CURIES
        assert store.stats() == KGStats(triples=7, entities=6, heads=3, relations=5)


def test_a_failed_load_leaves_the_store_exactly_as_before(tmp_path: Path, small_batches: None) -> None:
    more = [
        Triple("Irène Joliot-Curie", "mother", "Marie Curie"),
        Triple("Irène Joliot-Curie", "father", "Pierre Curie"),
    ] * 3
    bad = write_jsonl(tmp_path / "bad.jsonl", more, last_line='{"head": "x", "relation": "r"}\n')
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write_jsonl(tmp_path / "good.jsonl", CURIES))
        before = snapshot(store)
        with pytest.raises(LoadError) as caught:
            store.load(bad)
        assert (caught.value.where, caught.value.reason) == ("line 7", "missing key(s) tail")
        assert snapshot(store) == before
        assert not store.has_entity("Irène Joliot-Curie")
        assert not store.has_loaded(bad)
    with SQLiteGraph(tmp_path / "kg.db", create=False) as reopened:
        assert snapshot(reopened) == before


def test_a_failed_first_load_leaves_an_empty_store_that_still_works(tmp_path: Path, small_batches: None) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", CURIES, last_line="{not json\n")
    with SQLiteGraph(tmp_path / "kg.db") as store:
        with pytest.raises(LoadError):
            store.load(bad)
        assert snapshot(store) == ([], KGStats(0, 0, 0, 0))
        store.load(write_jsonl(tmp_path / "good.jsonl", CURIES))
        assert store.triples("Marie Curie", "spouse") == [CURIES[0]]
    indexes = (
        sqlite3.connect(tmp_path / "kg.db").execute("SELECT name FROM sqlite_schema WHERE type = 'index'").fetchall()
    )
    assert {"entities_name", "edges_key", "edges_in"} <= {name for (name,) in indexes}


def test_an_interrupted_load_is_rolled_back(tmp_path: Path, small_batches: None) -> None:
    def interrupt(count: int) -> None:
        if count >= 4:
            raise KeyboardInterrupt

    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples(CURIES[:1])
        before = snapshot(store)
        with pytest.raises(KeyboardInterrupt):
            store.load(write_jsonl(tmp_path / "kg.jsonl", CURIES), progress=interrupt)
        assert snapshot(store) == before


def test_add_triples_is_all_or_nothing() -> None:
    with SQLiteGraph() as store:
        store.add_triples(CURIES[:2])
        before = snapshot(store)

        def triples_then_failure():
            yield CURIES[2]
            raise ValueError("source broke")

        with pytest.raises(ValueError):
            store.add_triples(triples_then_failure())
        assert snapshot(store) == before


def test_has_loaded_recognises_the_same_content(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "first.jsonl", CURIES)
    with SQLiteGraph() as store:
        assert not store.has_loaded(first)
        store.load(first)
        assert store.has_loaded(first)
        assert store.has_loaded(write_jsonl(tmp_path / "copy.jsonl", CURIES))
        assert not store.has_loaded(write_jsonl(tmp_path / "other.jsonl", CURIES[:2]))


def test_opening_requires_an_arkg_store(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(ArkgError, match="no such KG store"):
        SQLiteGraph(missing, create=False)
    assert not missing.exists()

    (tmp_path / "text.db").write_text("not a database")
    with pytest.raises(ArkgError, match="not an SQLite database"):
        SQLiteGraph(tmp_path / "text.db")

    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE people (name TEXT)")
    other.commit()
    other.close()
    with pytest.raises(ArkgError, match="other tables"):
        SQLiteGraph(tmp_path / "other.db")


def test_load_errors_for_missing_files_and_unknown_formats(tmp_path: Path) -> None:
    with SQLiteGraph() as store:
        with pytest.raises(LoadError, match="no such file"):
            store.load(tmp_path / "missing.jsonl")
        with pytest.raises(LoadError, match="unknown format"):
            store.load(write_jsonl(tmp_path / "kg.jsonl", CURIES), format="xml")
        assert store.stats().triples == 0


def test_relations_of_a_hub_are_distinct_and_sorted_in_every_direction() -> None:
    with SQLiteGraph() as store:
        store.add_triples(
            Triple(f"person {index}", ("lives in", "born in", "works in")[index % 3], "Paris") for index in range(300)
        )
        store.add_triples([Triple("Paris", "country", "France"), Triple("Paris", "twinned with", "Rome")])
        assert store.relations("Paris", Direction.IN) == ["born in", "lives in", "works in"]
        assert store.relations("Paris", "both") == ["born in", "country", "lives in", "twinned with", "works in"]
        assert len(store.triples("Paris", "lives in", Direction.IN)) == 100
