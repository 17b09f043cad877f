"""The SQLite store keeps each edge once: repeated loads, other formats, replace, remove, merge, upgrades."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arkg.errors import EntityNotFound, LoadError
from arkg.graph import KGStats, SQLiteGraph, Triple
from arkg.graph.matching import fold
from arkg.graph.model import EntityCount, GraphInventory, RelationCount
from arkg.graph import sqlite_store
from arkg.graph.sqlite_store import MergeReport

JSONL = (
    '{"head": "Dennis Ritchie", "relation": "employer", "tail": "Bell Labs", "props": {"from": 1967, "role": "researcher"}}\n'
    '{"head": "Ken Thompson", "relation": "employer", "tail": "Bell Labs"}\n'
    '{"head": "Ken Thompson", "relation": "created", "tail": "Unix"}\n'
)
# The same triples as CSV, a name with spaces around it and the props' columns in another order.
CSV = (
    "head,relation,tail,role,from\n"
    " Dennis Ritchie ,employer,Bell Labs,researcher,1967\n"
    "Ken Thompson,employer,Bell Labs,,\n"
    "Ken Thompson,created,Unix,,\n"
)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def edges(store: SQLiteGraph) -> list[Triple]:
    return list(store.iter_triples())


def test_loading_a_file_twice_adds_nothing_the_second_time(tmp_path: Path) -> None:
    source = write(tmp_path / "kg.jsonl", JSONL)
    with SQLiteGraph(tmp_path / "kg.db") as store:
        first = store.load(source)
        before = edges(store)
        second = store.load(source)
        assert (first.read, first.added, first.present) == (3, 3, 0)
        assert (second.read, second.added, second.present) == (3, 0, 3)
        assert edges(store) == before


def test_the_same_triples_from_jsonl_then_csv_are_the_same_edges(tmp_path: Path) -> None:
    """CSV cells are text, so its `from` is "1967"; JSON's 1967 is a number: another edge. Without props they match."""
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL.replace('"from": 1967', '"from": "1967"')))
        report = store.load(write(tmp_path / "kg.csv", CSV))
        assert (report.added, report.present) == (0, 3)
        assert store.stats() == KGStats(triples=3, entities=4, heads=2, relations=2)
        assert store.has_entity("Dennis Ritchie") and not store.has_entity(" Dennis Ritchie ")


def test_editing_one_line_adds_only_that_edge(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
        report = store.load(write(tmp_path / "edited.jsonl", JSONL.replace('"Unix"', '"Plan 9"')))
        assert (report.added, report.present) == (1, 2)
        assert store.stats().triples == 4


def test_a_file_that_repeats_an_edge_stores_it_once(tmp_path: Path) -> None:
    line = '{"head": "a", "relation": "r", "tail": "b", "props": {"x": 1, "y": 2}}\n'
    reordered = '{"head": "a", "relation": "r", "tail": "b", "props": {"y": 2, "x": 1}}\n'
    with SQLiteGraph(tmp_path / "kg.db") as store:
        report = store.load(write(tmp_path / "kg.jsonl", line + reordered + line))
        assert (report.read, report.added) == (3, 1)
        assert edges(store) == [Triple("a", "r", "b", {"x": 1, "y": 2})]
        assert store.relation_counts() == [RelationCount("r", 1)]


def test_edges_repeated_across_batches_are_stored_once_and_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk load into an empty store leaves out the repeats as they come (the edge key's index is kept
    during the load); a load into a store that holds some of a batch's edges adds and counts only the others."""
    monkeypatch.setattr(sqlite_store, "BATCH_SIZE", 2)
    lines = [f'{{"head": "h{i % 3}", "relation": "r{i % 2}", "tail": "t{i % 5}"}}\n' for i in range(60)]
    with SQLiteGraph(tmp_path / "kg.db") as store:
        first = store.load(write(tmp_path / "a.jsonl", "".join(lines)))
        assert (first.read, first.added) == (60, 30)  # i and i + 30 are the same edge
        more = [f'{{"head": "h{i % 3}", "relation": "r{i % 2}", "tail": "t{i % 7}"}}\n' for i in range(30)]
        second = store.load(write(tmp_path / "b.jsonl", "".join(more)))
        stored = [(t.head, t.relation, t.tail) for t in edges(store)]
        expected = {(f"h{i % 3}", f"r{i % 2}", f"t{i % 5}") for i in range(30)} | {
            (f"h{i % 3}", f"r{i % 2}", f"t{i % 7}") for i in range(30)
        }
        assert len(stored) == len(expected) == first.added + second.added and set(stored) == expected
        fresh = store._conn.execute("SELECT r.name, count(*) FROM edges e JOIN relations r ON r.id = e.rel GROUP BY r.name")
        assert {r.name: r.edges for r in store.relation_counts()} == dict(fresh.fetchall())


def test_names_with_any_character_are_stored_as_written(tmp_path: Path) -> None:
    """Names are inserted a batch at a time through JSON, except in a batch with U+0000, which SQLite's
    JSON functions would cut short."""
    names = ["nul\x00inside", "quote\" and \\ back", "line\nbreak", "é😀", "zero\u200bwidth"]
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples(Triple(name, "r", "plain") for name in names)
        store.add_triples([Triple("plain", "r", "quote\" and \\ back"), Triple("also plain", "r", "é😀")])
        assert [t.head for t in edges(store)] == [*names, "plain", "also plain"]
        assert all(store.has_entity(name) for name in names) and store.stats().entities == len(names) + 2
    lines = "".join(json.dumps({"head": name, "relation": "r", "tail": name.upper()}) + "\n" for name in names)
    with SQLiteGraph(tmp_path / "loaded.db") as loaded:  # a bulk load: the folded names built aside too
        loaded.load(write(tmp_path / "names.jsonl", lines))
        assert [t.head for t in edges(loaded)] == names
        folded = dict(loaded._conn.execute("SELECT e.name, f.folded FROM entity_folded f JOIN entities e ON e.id = f.id"))
        assert folded == {name: fold(name) for name in [*names, *map(str.upper, names)]}
        assert loaded.search_entities("nul\x00inside", 1)[0].name == "nul\x00inside"


def test_the_edge_key_is_in_the_schema_so_any_writer_is_refused_a_copy(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    with SQLiteGraph(db) as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        raw.execute("INSERT INTO edges(head, rel, tail, props) SELECT head, rel, tail, props FROM edges LIMIT 1")


def test_replace_swaps_the_content_and_a_reader_sees_the_old_kg_until_the_commit(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    new = write(tmp_path / "new.jsonl", "".join(f'{{"head": "n{i}", "relation": "r", "tail": "m{i}"}}\n' for i in range(50)))
    seen_during: list[KGStats] = []
    with SQLiteGraph(db) as store, SQLiteGraph(db, create=False, read_only=True) as reader:
        store.load(write(tmp_path / "old.jsonl", JSONL))
        old = reader.stats()
        report = store.load(new, progress=lambda _: seen_during.append(reader.stats()), replace=True)
        assert report.added == 50
        assert seen_during and set(seen_during) == {old}
        assert reader.stats() == KGStats(triples=50, entities=100, heads=50, relations=1)
        assert not reader.has_entity("Ken Thompson")
        assert [m.name for m in store.search_entities("n7", 1)] == ["n7"]
        assert store.search_entities("Ken Thompson", 1) == [] or store.search_entities("Ken Thompson", 1)[0].name != "Ken Thompson"


def test_a_replace_killed_mid_load_leaves_the_old_kg(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    with SQLiteGraph(db) as store:
        store.load(write(tmp_path / "old.jsonl", JSONL))
        before = edges(store)
    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as out:
        for i in range(400_000):
            out.write(f'{{"head": "h{i}", "relation": "r{i % 7}", "tail": "t{i}"}}\n')
    script = (
        "import sys; from arkg.graph import SQLiteGraph\n"
        "store = SQLiteGraph(sys.argv[1])\n"
        "store.load(sys.argv[2], progress=lambda n: print(n, flush=True), replace=True)\n"
    )
    loader = subprocess.Popen([sys.executable, "-c", script, str(db), str(big)], stdout=subprocess.PIPE, text=True)
    try:
        assert loader.stdout is not None
        first_batch = loader.stdout.readline()  # the old content is deleted, new batches are written
        assert first_batch.strip().isdigit()
        assert Path(f"{db}-journal").exists()
    finally:
        loader.kill()  # SIGKILL: no cleanup of any kind
        loader.wait()
    with SQLiteGraph(db, create=False) as reopened:
        assert edges(reopened) == before
        assert reopened.relation_counts() == [RelationCount("employer", 2), RelationCount("created", 1)]


def test_remove_takes_out_a_files_edges_and_what_is_left_without_edges(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
        store.load(write(tmp_path / "more.jsonl", '{"head": "Rob Pike", "relation": "employer", "tail": "Bell Labs"}\n'))
        gone = write(tmp_path / "gone.csv", "head,relation,tail\nKen Thompson , created,Unix\nKen Thompson,employer,Bell Labs\nNobody,r,x\n")
        assert store.remove(gone) == 2
        assert not store.has_entity("Ken Thompson") and not store.has_entity("Unix")
        assert store.relation_counts() == [RelationCount("employer", 2)]
        assert store.entity_counts(search="thomp") == []
        assert store.remove(gone) == 0
        # A removal forgets which files were loaded: loading one again puts its edges back.
        assert store.load(tmp_path / "kg.jsonl", skip_loaded=True).added == 2


def test_a_bad_file_to_remove_names_its_line_and_removes_nothing(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
        before = edges(store)
        with pytest.raises(LoadError) as caught:
            store.remove(write(tmp_path / "bad.jsonl", JSONL + "{oops\n"))
        assert (caught.value.path, caught.value.where) == (str(tmp_path / "bad.jsonl"), "line 4")
        assert edges(store) == before


def test_merge_repoints_edges_and_collapses_the_duplicates_it_makes(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples(
            [
                Triple("Ken Thompson", "employer", "Bell Labs"),
                Triple("Ken Thompson", "employer", "bell labs"),
                Triple("Dennis Ritchie", "employer", "bell labs"),
                Triple("bell labs", "part of", "bell labs"),
                Triple("Bell Labs", "part of", "Bell Labs"),
            ]
        )
        report = store.merge("Bell Labs", "bell labs")
        assert (report.moved, report.collapsed) == (1, 2)
        assert sorted((t.head, t.relation, t.tail) for t in edges(store)) == [
            ("Bell Labs", "part of", "Bell Labs"),
            ("Dennis Ritchie", "employer", "Bell Labs"),
            ("Ken Thompson", "employer", "Bell Labs"),
        ]
        assert not store.has_entity("bell labs")
        assert [m.name for m in store.search_entities("bell labs", 5)] == ["Bell Labs"]
        # Idempotence holds after the merge: loading the old spelling again adds nothing new for Bell Labs.
        assert store.add_triples([Triple("Ken Thompson", "employer", "Bell Labs")]) == 0
        with pytest.raises(EntityNotFound):
            store.merge("Bell Labs", "bell labs")


def test_a_self_loop_merges_into_a_self_loop_even_when_half_of_it_collides(tmp_path: Path) -> None:
    with SQLiteGraph() as store:
        store.add_triples([Triple("A", "r", "B"), Triple("B", "r", "B")])
        assert store.merge("A", "B") == MergeReport(moved=1, collapsed=1)
        assert edges(store) == [Triple("A", "r", "A")]


def test_load_reports_names_that_differ_only_in_case_accents_or_spacing(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        first = store.load(write(tmp_path / "a.jsonl", JSONL))
        assert first.duplicate_names.count == 0
        later = store.load(
            write(
                tmp_path / "b.csv",
                "head,relation,tail\nken thompson,employer,bell labs\nRob Pike,employer,Bell  Labs\nZoe,likes,Unïx\n",
            )
        )
        assert later.duplicate_names.count == 3
        assert sorted(later.duplicate_names.examples) == [
            ["Bell Labs", "bell labs", "Bell  Labs"],  # the tidiest spelling first: the one to keep
            ["Ken Thompson", "ken thompson"],
            ["Unix", "Unïx"],
        ]


def test_names_folded_in_sql_match_fold(tmp_path: Path) -> None:
    names = ["Bell Labs", "bell  labs", "Sablé", "TAB\there", "x", "A-b_c.9", "ÉCOLE", "日本", "Straße"]
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples(Triple(name, "r", "t") for name in names)
        store.build_search_index()
        stored = dict(store._conn.execute("SELECT e.name, f.folded FROM entity_folded f JOIN entities e ON e.id = f.id"))
    assert stored == {**{name: fold(name) for name in names}, "t": "t"}


def test_entity_and_relation_counts(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
        assert isinstance(store, GraphInventory)
        assert store.entity_counts() == [
            EntityCount("Bell Labs", 0, 2),
            EntityCount("Ken Thompson", 2, 0),
            EntityCount("Dennis Ritchie", 1, 0),
            EntityCount("Unix", 0, 1),
        ]
        assert store.entity_counts(limit=1) == [EntityCount("Bell Labs", 0, 2)]
        assert store.entity_counts(search="LABS") == [EntityCount("Bell Labs", 0, 2)]
        assert [e.name for e in store.entity_counts(search="Un")] == ["Unix"]  # short: names starting with it
        assert store.entity_counts(search="zzz") == []
        assert store.relation_counts() == [RelationCount("employer", 2), RelationCount("created", 1)]


V1_SCHEMA = """
CREATE TABLE entities (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE relations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE edges (id INTEGER PRIMARY KEY, head INTEGER NOT NULL, rel INTEGER NOT NULL, tail INTEGER NOT NULL, props TEXT);
CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL, digest TEXT NOT NULL, format TEXT NOT NULL,
    triples INTEGER NOT NULL, loaded_at TEXT NOT NULL);
CREATE INDEX sources_digest ON sources(digest);
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE VIRTUAL TABLE entity_search USING fts5(name, tokenize = 'trigram', content = '');
CREATE UNIQUE INDEX entities_name ON entities(name);
CREATE INDEX edges_out ON edges(head, rel);
CREATE INDEX edges_in ON edges(tail, rel);
INSERT INTO entities VALUES (1, 'Ken Thompson'), (2, 'Bell Labs'), (3, 'Unix'), (4, 'bell labs');
INSERT INTO relations VALUES (1, 'employer'), (2, 'created');
INSERT INTO edges VALUES (1, 1, 1, 2, NULL), (2, 1, 1, 2, NULL), (3, 1, 2, 3, '{"y":2,"x":1}'),
    (4, 1, 2, 3, '{"x":1,"y":2}'), (5, 1, 1, 4, NULL);
INSERT INTO entity_search(rowid, name) VALUES (1, 'ken thompson'), (2, 'bell labs'), (3, 'unix'), (4, 'bell labs');
INSERT INTO meta VALUES ('search_indexed', 4);
PRAGMA application_id = 1634888551;
PRAGMA user_version = 1;
"""


def old_store(path: Path) -> Path:
    with sqlite3.connect(path) as connection:
        connection.executescript(V1_SCHEMA)
    return path


def test_a_version_1_store_is_read_as_it_is_when_opened_read_only(tmp_path: Path) -> None:
    db = old_store(tmp_path / "old.db")
    before = db.read_bytes()
    with SQLiteGraph(db, create=False, read_only=True) as store:
        assert store.upgraded is None
        assert store.stats().triples == 5
        assert store.relation_counts() == [RelationCount("employer", 3), RelationCount("created", 2)]
        assert store.entity_counts(search="thompson") == [EntityCount("Ken Thompson", 5, 0)]
    assert db.read_bytes() == before


def test_a_version_1_store_is_upgraded_when_opened_for_writing(tmp_path: Path) -> None:
    db = old_store(tmp_path / "old.db")
    with SQLiteGraph(db, create=False) as store:
        assert store.upgraded is not None and store.upgraded.repeated_edges == 2
        assert store.upgraded.duplicate_names.examples == [["Bell Labs", "bell labs"]]
        assert store.stats().triples == 3
        assert store.relation_counts() == [RelationCount("employer", 2), RelationCount("created", 1)]
        assert store.add_triples([Triple("Ken Thompson", "created", "Unix", {"y": 2, "x": 1})]) == 0
        assert [m.name for m in store.search_entities("unix", 1)] == ["Unix"]
    with SQLiteGraph(db, create=False) as again:
        assert again.upgraded is None
        assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == sqlite_store.SCHEMA_VERSION


def test_a_version_2_store_gets_its_entity_counts_when_opened_for_writing(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    with SQLiteGraph(db) as store:
        store.load(write(tmp_path / "kg.jsonl", JSONL))
    with sqlite3.connect(db) as connection:  # as arkg's version 2 left it: no entity counts
        connection.executescript(
            "DROP INDEX entities_edges; ALTER TABLE entities DROP COLUMN outgoing; ALTER TABLE entities DROP COLUMN incoming;"
            " PRAGMA user_version = 2;"
        )
    expected = [EntityCount("Bell Labs", 0, 2), EntityCount("Ken Thompson", 2, 0), EntityCount("Dennis Ritchie", 1, 0), EntityCount("Unix", 0, 1)]
    with SQLiteGraph(db, create=False, read_only=True) as old:
        assert old.entity_counts() == expected  # counted from the edges
    with SQLiteGraph(db, create=False) as store:
        assert store.upgraded is not None and store.upgraded.repeated_edges == 0
        assert store.entity_counts() == expected
        assert store.upgraded.duplicate_names.count == 0


def test_a_store_of_a_newer_arkg_is_refused_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    SQLiteGraph(db).close()
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA user_version = 9")
    with pytest.raises(Exception, match="schema version 9.*upgrade arkg"):
        SQLiteGraph(db, create=False)


def test_counts_stay_right_through_loads_removals_and_merges(tmp_path: Path) -> None:
    """The maintained relation counts equal a fresh count after every kind of write."""
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "a.jsonl", JSONL))
        store.add_triples([Triple("x", "employer", "y"), Triple("x", "employer", "Bell Labs")])
        store.merge("Bell Labs", "y")
        store.remove(write(tmp_path / "gone.jsonl", JSONL.splitlines(keepends=True)[2]))
        fresh = store._conn.execute(
            "SELECT r.name, count(*) FROM edges e JOIN relations r ON r.id = e.rel GROUP BY r.name"
        ).fetchall()
        assert {r.name: r.edges for r in store.relation_counts()} == dict(fresh)
        assert store.relation_counts() == [RelationCount("employer", 3)]
        assert_entity_counts_fresh(store)


def assert_entity_counts_fresh(store: SQLiteGraph) -> None:
    """The maintained entity counts equal a count of the edges, for every entity."""
    fresh = {
        name: (outgoing, incoming)
        for name, outgoing, incoming in store._conn.execute(
            "SELECT name, (SELECT count(*) FROM edges WHERE head = e.id), (SELECT count(*) FROM edges WHERE tail = e.id)"
            " FROM entities e"
        )
    }
    assert {e.name: (e.outgoing, e.incoming) for e in store.entity_counts()} == fresh
    assert all(sum(counts) > 0 for counts in fresh.values())  # no entity is left without edges


def test_entity_counts_stay_right_through_every_kind_of_write(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.load(write(tmp_path / "a.jsonl", JSONL + JSONL.splitlines(keepends=True)[1]))  # a repeated edge
        assert_entity_counts_fresh(store)
        store.load(write(tmp_path / "b.csv", CSV + "Ken Thompson,created,Plan 9,,\nPlan 9,successor of,Unix,,\n"))
        assert_entity_counts_fresh(store)
        store.add_triples([Triple("Unix", "runs on", "Unix"), Triple("bell labs", "part of", "AT&T")])
        assert_entity_counts_fresh(store)
        store.merge("Bell Labs", "bell labs")
        assert_entity_counts_fresh(store)
        store.remove(write(tmp_path / "gone.jsonl", JSONL.splitlines(keepends=True)[2]))
        assert_entity_counts_fresh(store)
        assert store.entity_counts(limit=2) == [EntityCount("Bell Labs", 1, 3), EntityCount("Unix", 1, 2)]
        store.load(tmp_path / "b.csv", replace=True)
        assert_entity_counts_fresh(store)
