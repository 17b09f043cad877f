"""The search index as a load builds it, or leaves it (defer_index) to the first search or `arkg kg index`;
the index without trigram positions (store version 4) finds what the phrase index of version 3 found."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arkg.cli import app
from arkg.errors import LoadError
from arkg.graph import SQLiteGraph
from arkg.graph import sqlite_store
from arkg.graph.matching import fold, fold_all
from arkg.graph.sqlite_writer import _encode_props_json, encode_props

SYLLABLES = ["ka", "ré", "mo", "Zu", "lin", "dör", "sa", "Pé", "tor", "ñu", "a b", "Ø"]


def graph_lines(count: int, seed: int = 3) -> list[str]:
    """JSON lines of a small graph whose names share pieces, with accents, case and spacing twins."""
    rng = random.Random(seed)

    def name() -> str:
        return " ".join("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 2)))

    names = [name() for _ in range(count // 2)] + ["Sablé", "sable", "SABLE", "Bell  Labs", "Bell Labs"]
    lines = []
    for index in range(count):
        record = {"head": rng.choice(names), "relation": f"r{index % 7}", "tail": rng.choice(names)}
        if index % 5 == 0:
            record["props"] = {"since": 1900 + index % 100, "weight": index / 7, "note": "x:y"}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return lines


QUERIES = ["sable", "Sablé", "bell labs", "kare", "dör", "zuka", "mo lin", "pesa", "torñu", "ø", "a b", "rémo", "kar", "xyz"]


def results(store: SQLiteGraph) -> dict[str, object]:
    """What every search path returns for the queries."""
    return {
        query: (
            [(match.name, match.score) for match in store.search_entities(query, 10)],
            store.entity_counts(search=query),
        )
        for query in QUERIES
    }


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "kg.jsonl"
    path.write_text("".join(graph_lines(600)), encoding="utf-8")
    return path


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")  # messages on one line
    return CliRunner()


@pytest.fixture(params=[False, True], ids=["scan small graphs", "index only"])
def index_only(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """With 0, a poorly matched query reads the index for pieces of it, as in a large graph."""
    if request.param:
        monkeypatch.setattr(sqlite_store, "_SCAN_ALL_UP_TO", 0)
    return request.param


def test_a_deferred_index_is_built_by_the_first_search_with_the_same_results(
    tmp_path: Path, source: Path, index_only: bool
) -> None:
    with SQLiteGraph(tmp_path / "eager.db") as eager:
        report = eager.load(source)
        assert report is not None and report.duplicate_names is not None and report.duplicate_names.count >= 2
        expected = results(eager)
    built: list[int] = []
    with SQLiteGraph(tmp_path / "deferred.db") as deferred:
        report = deferred.load(source, defer_index=True)
        assert report is not None and report.duplicate_names is None
        assert deferred._search_indexed() == 0
        deferred.on_search_index_build = built.append
        assert results(deferred) == expected
        assert built == [deferred._newest_entity()]  # built once, by the first search
        assert deferred.build_search_index().count == 0  # nothing left to index
    folded = "SELECT e.name, f.folded FROM entity_folded f JOIN entities e ON e.id = f.id ORDER BY f.id"
    tables = [sqlite3.connect(tmp_path / name).execute(folded).fetchall() for name in ("eager.db", "deferred.db")]
    assert tables[0] == tables[1]


def test_a_read_only_store_with_a_deferred_index_searches_all_its_names(tmp_path: Path, source: Path, index_only: bool) -> None:
    with SQLiteGraph(tmp_path / "eager.db") as eager:
        eager.load(source)
        expected = results(eager)
    db = tmp_path / "deferred.db"
    with SQLiteGraph(db) as deferred:
        deferred.load(source, defer_index=True)
    copy = shutil.copy(db, tmp_path / "copy.db")
    with SQLiteGraph(db, create=False, read_only=True) as store:  # indexed through a connection of its own
        assert results(store) == expected
        assert store._search_indexed() == store._newest_entity()
    with SQLiteGraph(copy, create=False, read_only=True) as store:
        store._index_elsewhere = lambda: False  # a file it may not write: the names the index lacks are read
        found = results(store)
        assert store._search_indexed() == 0
    for query, (matches, counts) in expected.items():
        assert set(found[query][1]) == set(counts), query
        assert found[query][0][:1] == matches[:1], query


def test_the_index_command_builds_a_deferred_index_and_reports_duplicates(runner: CliRunner, tmp_path: Path, source: Path) -> None:
    db = str(tmp_path / "kg.db")
    loaded = runner.invoke(app, ["kg", "load", str(source), "--db", db, "--defer-index"])
    assert loaded.exit_code == 0, loaded.output
    assert "search index deferred" in loaded.output and "Likely duplicates" not in loaded.output
    again = runner.invoke(app, ["kg", "load", str(source), "--db", db, "--defer-index"])
    assert "skipped" in again.output and "already loaded" in again.output  # still idempotent
    indexed = runner.invoke(app, ["kg", "index", "--db", db])
    assert indexed.exit_code == 0, indexed.output
    assert "Indexed" in indexed.output and "Likely duplicates" in indexed.output and "Sablé" in indexed.output
    assert "up to date" in runner.invoke(app, ["kg", "index", "--db", db]).output
    assert "Sablé" in runner.invoke(app, ["kg", "entities", "--search", "sable", "--db", db]).output


def test_the_first_search_of_the_cli_says_it_builds_the_index(runner: CliRunner, tmp_path: Path, source: Path) -> None:
    db = str(tmp_path / "kg.db")
    assert runner.invoke(app, ["kg", "load", str(source), "--db", db, "--defer-index"]).exit_code == 0
    listed = runner.invoke(app, ["kg", "entities", "--search", "sable", "--db", db])
    assert listed.exit_code == 0, listed.output
    assert "building the search index" in listed.output and "Sablé" in listed.output
    assert "building the search index" not in runner.invoke(app, ["kg", "entities", "--search", "rémo", "--db", db]).output


def test_an_eager_load_indexes_the_names_an_earlier_load_deferred(tmp_path: Path) -> None:
    lines = graph_lines(400)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(lines[:200]), encoding="utf-8")
    second.write_text("".join(lines[200:]), encoding="utf-8")
    with SQLiteGraph(tmp_path / "both.db") as both:
        both.load(first, defer_index=True)
        report = both.load(second)
        assert both._search_indexed() == both._newest_entity()
        assert both.load(second) is not None and both.load(second).added == 0  # idempotent
        one_go = tmp_path / "all.jsonl"
        one_go.write_text("".join(lines), encoding="utf-8")
        with SQLiteGraph(tmp_path / "all.db") as once:
            once.load(one_go)
            assert results(both) == results(once)
    assert report is not None and report.duplicate_names is not None


def test_a_failed_index_build_leaves_the_index_as_it_was(tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build is one transaction: other connections never see part of it."""
    db = tmp_path / "kg.db"
    with SQLiteGraph(db) as store:
        store.load(source, defer_index=True)

        def fail(indexed: int) -> None:
            rows = sqlite3.connect(db).execute("SELECT count(*) FROM entity_folded").fetchone()[0]
            assert rows == 0  # another connection, mid-build: nothing yet
            raise RuntimeError("stopped")

        monkeypatch.setattr(store, "_finish_index", fail)
        with pytest.raises(RuntimeError):
            store.search_entities("sable")
        assert store._search_indexed() == 0
        assert store._conn.execute("SELECT count(*) FROM entity_search WHERE entity_search MATCH 'sab'").fetchone()[0] == 0
        monkeypatch.undo()
        assert store.search_entities("sable", 1)[0].name in ("sable", "Sablé", "SABLE")


def test_a_version_3_store_searches_with_its_phrase_index_and_is_upgraded(tmp_path: Path, source: Path, index_only: bool) -> None:
    """Version 3 indexed trigram positions; read-only it is searched with phrases, with the same results,
    and opened for writing its index is made anew without positions."""
    db = tmp_path / "kg.db"
    with SQLiteGraph(db) as store:
        store.load(source)
        expected = results(store)
    with sqlite3.connect(db) as connection:
        connection.executescript(
            "DROP TABLE entity_search;"
            " CREATE VIRTUAL TABLE entity_search USING fts5(name, tokenize = 'trigram', content = '');"
            " INSERT INTO entity_search(rowid, name) SELECT id, folded FROM entity_folded;"
            " PRAGMA user_version = 3;"
        )
    with SQLiteGraph(db, create=False, read_only=True) as old:
        assert old._phrase_index()
        found = results(old)
    for query, (matches, counts) in expected.items():  # bm25 picked the candidates there: the best agree
        assert set(found[query][1]) == set(counts), query
        assert found[query][0][:1] == matches[:1], query
    with SQLiteGraph(db, create=False) as upgraded:
        assert upgraded.upgraded is not None and upgraded.upgraded.duplicate_names.count >= 2
        assert not upgraded._phrase_index()
        assert results(upgraded) == expected
    schema = sqlite3.connect(db).execute("SELECT sql FROM sqlite_schema WHERE name = 'entity_search'").fetchone()[0]
    assert "detail = 'none'" in schema


def test_a_bad_line_in_a_later_batch_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches are made on a helper thread: its error is the load's, and the transaction is rolled back."""
    monkeypatch.setattr(sqlite_store, "BATCH_SIZE", 50)
    lines = graph_lines(400)
    lines[321] = '{"head": "a", "relation": "r", "tail": 7}\n'
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    threads = threading.active_count()
    with SQLiteGraph(tmp_path / "kg.db") as store:
        with pytest.raises(LoadError, match="line 322.*tail must be a string"):
            store.load(path)
        assert store.stats().triples == 0 and store.entity_counts() == []
        assert threading.active_count() == threads

        def interrupt(done: int) -> None:
            if done >= 200:
                raise KeyboardInterrupt

        path.write_text("".join(graph_lines(400)), encoding="utf-8")
        with pytest.raises(KeyboardInterrupt):
            store.load(path, progress=interrupt)
        assert store.stats().triples == 0 and threading.active_count() == threads
        assert store.load(path).read == 400


def scratch_files(folder: Path) -> list[str]:
    """Files a load leaves beside the store besides the store and the source."""
    return sorted(path.name for path in folder.iterdir() if path.suffix not in (".db", ".jsonl"))


def test_a_bulk_load_builds_the_folded_names_aside_and_leaves_no_scratch_file(
    tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into an empty store the folded-name table is built on a thread of its own, in a scratch file that
    is copied in and deleted: the same rows and duplicates as a load that builds it in the store."""
    monkeypatch.setattr(sqlite_store, "BATCH_SIZE", 100)
    asides: list[Path] = []
    aside = sqlite_store.FoldedNamesAside

    def noted(path: Path, table: str) -> sqlite_store.FoldedNamesAside:
        asides.append(path)
        return aside(path, table)

    monkeypatch.setattr(sqlite_store, "FoldedNamesAside", noted)
    with SQLiteGraph(tmp_path / "bulk.db") as bulk:
        report = bulk.load(source)
        assert [path.parent for path in asides] == [tmp_path] and not asides[0].exists()
        assert scratch_files(tmp_path) == []
        assert [row[1] for row in bulk._conn.execute("PRAGMA database_list")] == ["main", "temp"]
        expected = results(bulk)
    with SQLiteGraph(tmp_path / "in-store.db") as in_store:  # a store that holds an edge: no bulk load
        first = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
        in_store.add_triples([sqlite_store.Triple(first["head"], first["relation"], first["tail"], first.get("props", {}))])
        other = in_store.load(source)
        assert len(asides) == 1
        assert results(in_store) == expected
    folded = "SELECT e.name, f.folded FROM entity_folded f JOIN entities e ON e.id = f.id ORDER BY f.folded, e.name"
    tables = [sqlite3.connect(tmp_path / name).execute(folded).fetchall() for name in ("bulk.db", "in-store.db")]
    assert tables[0] == tables[1]
    assert report is not None and other is not None and report.duplicate_names == other.duplicate_names


def test_a_failure_aside_or_in_the_load_leaves_nothing_behind(tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of the folded names' thread (here a row its table refuses) is the load's: rolled back,
    no thread and no scratch file left; so are a bad line and Ctrl-C while the thread works."""
    monkeypatch.setattr(sqlite_store, "BATCH_SIZE", 50)
    refusing = sqlite_store._ENTITY_FOLDED_TABLE.replace("id INTEGER NOT NULL", "id INTEGER NOT NULL CHECK (id < 150)")
    threads = threading.active_count()
    with SQLiteGraph(tmp_path / "kg.db") as store:
        with monkeypatch.context() as patched:
            patched.setattr(sqlite_store, "_ENTITY_FOLDED_TABLE", refusing)
            with pytest.raises(LoadError, match="CHECK constraint failed"):
                store.load(source)
        assert store.stats().triples == 0 and threading.active_count() == threads and scratch_files(tmp_path) == []
        lines = graph_lines(400)
        lines[321] = "{}\n"
        bad = tmp_path / "bad.jsonl"
        bad.write_text("".join(lines), encoding="utf-8")
        with pytest.raises(LoadError, match="line 322"):
            store.load(bad)

        def interrupt(done: int) -> None:
            if done >= 300:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            store.load(source, progress=interrupt)
        assert store.stats().triples == 0 and threading.active_count() == threads and scratch_files(tmp_path) == []
        assert store.load(source).added == store.stats().triples > 0
        assert store.load(source).added == 0  # idempotent


NAME_CHARACTERS = st.characters(blacklist_categories=("Cs",))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(NAME_CHARACTERS, max_size=12), max_size=8))
def test_fold_all_folds_like_fold(names: list[str]) -> None:
    assert fold_all(names) == [fold(name) for name in names]


def test_fold_all_folds_every_character_like_fold() -> None:
    characters = [chr(code) for code in range(0x30000) if not 0xD800 <= code <= 0xDFFF]
    names = [f"{ch}A{ch} {ch}" for ch in characters]
    assert fold_all(names) == [fold(name) for name in names]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(NAME_CHARACTERS), st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(NAME_CHARACTERS), SCALARS, max_size=6))
def test_props_are_encoded_as_the_json_module_encodes_them(props: dict[str, object]) -> None:
    assert encode_props(props) == _encode_props_json(props)
