"""`arkg kg fetch --db FILE` replaces FILE only when it is an arkg store (or empty, or with --force):
another application's database or a text file given by mistake is kept."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.graph import SQLiteGraph, Triple
from arkg.graph.sparql.local_server import serve_rdf

WIKIDATA_TTL = Path(__file__).parents[1] / "graph" / "fixtures" / "wikidata_small.ttl"
UNREACHABLE = "http://127.0.0.1:9/sparql"


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_rdf(WIKIDATA_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
        yield url


def fetch(endpoint: str, db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arkg.cli import main; main()", "kg", "fetch", "--endpoint", endpoint]
    return subprocess.run([*command, "-e", "Ada Quill", "--db", str(db), *extra], capture_output=True, text=True, timeout=120)


def text_file(path: Path) -> Path:
    path.write_text("my notes\n", encoding="utf-8")
    return path


def other_database(path: Path) -> Path:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        connection.execute("INSERT INTO invoices (total) VALUES (12.5)")
    connection.close()
    return path


@pytest.mark.parametrize(
    ("make", "reason"),
    [(text_file, "not an SQLite database"), (other_database, "an SQLite database with other tables")],
    ids=["text-file", "another-applications-database"],
)
def test_a_file_that_is_not_an_arkg_store_is_kept(tmp_path: Path, make, reason: str) -> None:  # type: ignore[no-untyped-def]
    """Refused before any query (the endpoint is not even reachable), with the way to replace it anyway."""
    db = make(tmp_path / "kg.db")
    before = db.read_bytes()
    done = fetch(UNREACHABLE, db)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (
        f"Error: {db}: not an arkg KG store ({reason}); `kg fetch` would replace it: pass --force to do so, "
        "or choose another --db"
    )
    assert db.read_bytes() == before


def test_force_replaces_it_and_an_arkg_store_is_replaced_without(endpoint: str, tmp_path: Path) -> None:
    forced = other_database(tmp_path / "forced.db")
    done = fetch(endpoint, forced, "--force")
    assert done.returncode == 0, done.stderr
    assert "10 triples" in done.stdout

    store = tmp_path / "store.db"
    with SQLiteGraph(store) as graph:
        graph.add_triples([Triple("old", "r", "x")])
    done = fetch(endpoint, store)
    assert done.returncode == 0, done.stderr
    for db in (forced, store):
        with SQLiteGraph(db, create=False) as graph:
            assert graph.stats().triples == 10 and not graph.has_entity("old")
