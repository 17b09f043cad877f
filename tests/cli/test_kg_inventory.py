"""`arkg kg load` reports, `kg load --replace`, `kg remove`, `kg merge`, `kg entities`, `kg relations`: the real CLI on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.cli import app

JSONL = (
    '{"head": "Dennis Ritchie", "relation": "employer", "tail": "Bell Labs"}\n'
    '{"head": "Ken Thompson", "relation": "employer", "tail": "Bell Labs"}\n'
    '{"head": "Ken Thompson", "relation": "created", "tail": "Unix"}\n'
)
CSV = "head,relation,tail\n Dennis Ritchie ,employer,Bell Labs\nKen Thompson,employer,Bell Labs\nKen Thompson,created,Unix\n"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


def run(runner: CliRunner, *arguments: str, code: int = 0) -> str:
    result = runner.invoke(app, ["kg", *arguments])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture
def db(tmp_path: Path, runner: CliRunner) -> str:
    path = str(tmp_path / "kg.db")
    run(runner, "load", str(write(tmp_path / "kg.jsonl", JSONL)), "--db", path)
    return path


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def triples(runner: CliRunner, db: str) -> int:
    info = run(runner, "info", "--db", db)
    rows = [line.split("│") for line in info.splitlines() if line.count("│") == 3]
    return int(next(cells[2] for cells in rows if cells[1].strip() == "triples").replace(",", ""))


def test_the_same_triples_as_csv_are_reported_already_present(runner: CliRunner, db: str, tmp_path: Path) -> None:
    output = run(runner, "load", str(write(tmp_path / "kg.csv", CSV)), "--db", db)
    assert "3 triples; 0 added, 3 already present" in output
    assert "Loaded 3 triples from 1 file(s)" in output and "0 added, 3 already present" in output
    assert triples(runner, db) == 3


def test_entities_lists_by_edge_count_with_search_limit_and_json(runner: CliRunner, db: str) -> None:
    listed = json.loads(run(runner, "entities", "--json", "--db", db))
    assert listed == [
        {"name": "Bell Labs", "edges": 2, "outgoing": 0, "incoming": 2},
        {"name": "Ken Thompson", "edges": 2, "outgoing": 2, "incoming": 0},
        {"name": "Dennis Ritchie", "edges": 1, "outgoing": 1, "incoming": 0},
        {"name": "Unix", "edges": 1, "outgoing": 0, "incoming": 1},
    ]
    assert [e["name"] for e in json.loads(run(runner, "entities", "--limit", "2", "--json", "--db", db))] == [
        "Bell Labs",
        "Ken Thompson",
    ]
    assert [e["name"] for e in json.loads(run(runner, "entities", "--search", "RITCH", "--json", "--db", db))] == [
        "Dennis Ritchie"
    ]
    table = run(runner, "entities", "--search", "thompson", "--db", db)
    assert "1 entities" in table and any("Ken Thompson" in line and "│ 2" in line for line in table.splitlines())


def test_relations_lists_edge_counts(runner: CliRunner, db: str) -> None:
    assert json.loads(run(runner, "relations", "--json", "--db", db)) == [
        {"relation": "employer", "edges": 2},
        {"relation": "created", "edges": 1},
    ]
    table = run(runner, "relations", "--db", db)
    assert [line.split("│")[1].strip() for line in table.splitlines() if "│" in line] == ["employer", "created"]


def test_listing_is_refused_clearly_by_a_backend_without_it(runner: CliRunner) -> None:
    output = run(runner, "relations", "--db", "wikidata:http://127.0.0.1:9/sparql", code=1)
    assert "not supported by this backend (SparqlGraph)" in output


def test_replace_swaps_the_stores_content(runner: CliRunner, db: str, tmp_path: Path) -> None:
    new = write(tmp_path / "new.csv", "head,relation,tail\nRob Pike,created,Go\n")
    output = run(runner, "load", "--replace", str(new), "--db", db)
    assert "replaced the store's content: 1 added" in output
    assert json.loads(run(runner, "relations", "--json", "--db", db)) == [{"relation": "created", "edges": 1}]
    assert "exactly one file" in run(runner, "load", "--replace", str(new), str(new), "--db", db, code=1)


def test_remove_reports_how_many_edges_went(runner: CliRunner, db: str, tmp_path: Path) -> None:
    gone = write(tmp_path / "gone.csv", "head,relation,tail\nKen Thompson,created,Unix\nNobody,r,x\n")
    assert f"removed 1 edge(s) from {db}" in run(runner, "remove", str(gone), "--db", db)
    assert triples(runner, db) == 2
    assert "Unix" not in run(runner, "entities", "--db", db)


def test_a_bad_file_names_file_and_line_and_leaves_the_store_unchanged(runner: CliRunner, db: str, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.csv", "head,relation,tail\nRob Pike,created,Go\nRob Pike,,Plan 9\n")
    for command in ("load", "remove"):
        assert f"Error: {bad}, line 3: relation is empty" in run(runner, command, str(bad), "--db", db, code=1)
    assert "Error" in run(runner, "load", "--replace", str(bad), "--db", db, code=1)
    assert triples(runner, db) == 3


def test_likely_duplicates_are_reported_with_the_command_that_merges_them(
    runner: CliRunner, db: str, tmp_path: Path
) -> None:
    more = write(tmp_path / "more.csv", "head,relation,tail\nRob Pike,employer,bell labs\nRob Pike,employer,Bell  Labs\n")
    output = run(runner, "load", str(more), "--db", db)
    assert "Likely duplicates: 1 set(s) of names differ only in case, accents or spacing" in output
    assert "'Bell Labs' / 'bell labs' / 'Bell  Labs'" in output
    assert f"arkg kg merge 'Bell Labs' 'bell labs' --db {db}" in output
    merged = run(runner, "merge", "Bell Labs", "bell labs", "--db", db)
    assert "Merged 'bell labs' into 'Bell Labs': 1 edge(s) re-pointed, 0 dropped" in merged
    merged = run(runner, "merge", "Bell Labs", "Bell  Labs", "--db", db)
    assert "0 edge(s) re-pointed, 1 dropped as identical" in merged
    assert json.loads(run(runner, "entities", "--search", "bell", "--json", "--db", db)) == [
        {"name": "Bell Labs", "edges": 3, "outgoing": 0, "incoming": 3}
    ]
    assert "Did you mean: Bell Labs" in run(runner, "merge", "Bell Labs", "bell labs", "--db", db, code=1)
