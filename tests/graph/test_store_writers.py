"""Writers of one store file: waiting for each other, loading a file once, and where a store may be."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from arkg.errors import ArkgError, LoadError
from arkg.graph import SQLiteGraph, Triple


def write_jsonl(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"head": f"h{n}", "relation": "r", "tail": f"t{n}"}) + "\n" for n in range(count)))
    return path


def test_load_with_skip_loaded_skips_the_same_content(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "kg.jsonl", 3)
    with SQLiteGraph(tmp_path / "kg.db") as store:
        assert store.load(source, skip_loaded=True).read == 3
        assert store.load(source, skip_loaded=True) is None
        assert store.load(write_jsonl(tmp_path / "copy.jsonl", 3), skip_loaded=True) is None
        assert store.stats().triples == 3
        report = store.load(source)  # without the flag the file is read again, and its edges are already there
        assert (report.read, report.added) == (3, 0)
        assert store.stats().triples == 3


def test_a_writer_waits_for_another_then_names_the_store_when_it_gives_up(tmp_path: Path) -> None:
    """A second writer must wait for the first (and say so), not fail or interleave."""
    db = tmp_path / "kg.db"
    SQLiteGraph(db).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waits: list[str] = []
    with SQLiteGraph(db, lock_timeout=0.6, on_lock_wait=lambda: waits.append("waiting")) as store:
        with pytest.raises(ArkgError) as caught:
            store.load(write_jsonl(tmp_path / "kg.jsonl", 2))
        assert str(caught.value) == (
            f"{db}: another process has been writing to this KG store for over 1 s; try again when it has finished"
        )
        assert waits == ["waiting"]
        holder.execute("ROLLBACK")
        assert store.load(tmp_path / "kg.jsonl").read == 2
    holder.close()


def test_two_stores_creating_one_file_at_once_both_open_it(tmp_path: Path) -> None:
    """Both saw an empty file and created the tables; the second failed ("already exists")."""
    db = tmp_path / "kg.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # both openers find an empty file, then wait to create the tables
    waiting = threading.Barrier(3)
    opened: list[SQLiteGraph | BaseException] = []

    def open_store() -> None:
        try:
            opened.append(SQLiteGraph(db, on_lock_wait=waiting.wait))
        except BaseException as error:
            opened.append(error)

    threads = [threading.Thread(target=open_store) for _ in range(2)]
    for thread in threads:
        thread.start()
    waiting.wait(timeout=30)
    holder.execute("ROLLBACK")
    for thread in threads:
        thread.join(timeout=30)
    holder.close()
    first, second = opened
    assert isinstance(first, SQLiteGraph) and isinstance(second, SQLiteGraph), opened
    first.add_triples([Triple("a", "r", "b")])
    assert second.triples("a", "r") == [Triple("a", "r", "b")]
    first.close()
    second.close()


def test_a_new_store_whose_first_load_failed_can_be_deleted(tmp_path: Path) -> None:
    """A failed first load must leave no store file behind."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"head": "a"}\n')
    store = SQLiteGraph(tmp_path / "new.db")
    with pytest.raises(LoadError):
        store.load(bad)
    assert store.delete_if_empty() is True
    assert not (tmp_path / "new.db").exists()


def test_a_store_with_triples_or_in_use_is_not_deleted(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "full.db") as store:
        store.add_triples([Triple("a", "r", "b")])
    assert SQLiteGraph(tmp_path / "full.db").delete_if_empty() is False
    assert (tmp_path / "full.db").exists()
    in_use = SQLiteGraph(tmp_path / "empty.db")
    reader = sqlite3.connect(tmp_path / "empty.db", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM edges").fetchone()
    assert in_use.delete_if_empty() is False
    assert (tmp_path / "empty.db").exists()
    reader.close()


def test_a_writer_whose_store_was_deleted_meanwhile_writes_nothing(tmp_path: Path) -> None:
    """A process waiting on a new store must not load into the file another one deleted."""
    db = tmp_path / "new.db"
    creator = SQLiteGraph(db)
    waiter = SQLiteGraph(db)
    assert creator.delete_if_empty() is True
    with pytest.raises(ArkgError, match="was deleted .* run the command again"):
        waiter.load(write_jsonl(tmp_path / "kg.jsonl", 2))
    waiter.close()
    assert not db.exists()


@pytest.mark.parametrize("create", [True, False])
def test_a_folder_is_not_a_store(tmp_path: Path, create: bool) -> None:
    """A directory given as --db was called "no such KG store" or "unable to open"."""
    with pytest.raises(ArkgError) as caught:
        SQLiteGraph(tmp_path, create=create)
    assert str(caught.value) == f"{tmp_path} is a folder, not a KG store file; name a file, e.g. {tmp_path / 'kg.db'}"


def test_a_store_in_a_missing_folder_or_under_a_file_says_so(tmp_path: Path) -> None:
    """A store in a missing folder failed with "unable to open database file"."""
    missing = tmp_path / "no" / "such" / "kg.db"
    with pytest.raises(ArkgError) as caught:
        SQLiteGraph(missing)
    assert str(caught.value) == f"{missing}: the folder {missing.parent} does not exist; create it first (mkdir -p {missing.parent})"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ArkgError, match="file is a file, not a folder"):
        SQLiteGraph(tmp_path / "file" / "kg.db")
    assert not (tmp_path / "no").exists()
