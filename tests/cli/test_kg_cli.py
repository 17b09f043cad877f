"""`arkg kg load / info / show` through the real CLI on real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.cli import app


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")  # wide enough that rich tables do not wrap names
    return CliRunner()


def test_load_the_ark_v1_example_then_show_and_count(runner: CliRunner, colota_dir: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    loaded = runner.invoke(app, ["kg", "load", str(colota_dir / "ark-v1-example.json"), "--db", db])
    assert loaded.exit_code == 0, loaded.output
    assert "Loaded 32 triples from 1 file(s)" in loaded.output and "triples/s" in loaded.output

    shown = runner.invoke(app, ["kg", "show", "Sablé", "--db", db])
    assert shown.exit_code == 0, shown.output
    outgoing = shown.output.split("incoming)")[0].split("outgoing)")[1]
    rows = [line for line in outgoing.splitlines() if "│" in line]
    assert any("animal breed" in row and "dachshund" in row for row in rows)
    assert any("owned by" in row and "Yui Yuigahama" in row for row in rows)
    fandom = next(index for index, row in enumerate(rows) if "Fandom article ID" in row)
    # Props are stored canonically, with sorted keys (capitals sort first).
    assert "oregairu:Sablé" in rows[fandom] and "MediaWiki page ID: 14567" in rows[fandom]
    assert "language of work or name: English" in rows[fandom + 1] and "subject named as: Sablé" in rows[fandom + 2]
    incoming_rows = [line for line in shown.output.split("incoming)")[1].splitlines() if "│" in line]
    assert len(incoming_rows) == 1 and "Yui Yuigahama" in incoming_rows[0] and "has pet" in incoming_rows[0]

    info = runner.invoke(app, ["kg", "info", "--db", db])
    assert info.exit_code == 0, info.output
    assert [line.split("│")[2].strip() for line in info.output.splitlines() if "triples" in line] == ["32"]


def test_two_relations_between_the_same_pair_are_both_shown(runner: CliRunner, tmp_path: Path) -> None:
    kg = tmp_path / "kg.jsonl"
    kg.write_text(
        '{"head": "Marie Curie", "relation": "spouse", "tail": "Pierre Curie"}\n'
        '{"head": "Marie Curie", "relation": "collaborator", "tail": "Pierre Curie"}\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "kg.db")
    assert runner.invoke(app, ["kg", "load", str(kg), "--db", db]).exit_code == 0
    shown = runner.invoke(app, ["kg", "show", "Pierre Curie", "--db", db])
    rows = [line for line in shown.output.split("incoming)")[1].splitlines() if "Marie Curie" in line]
    assert [("spouse" in row, "collaborator" in row) for row in rows] == [(False, True), (True, False)]


def test_loading_the_same_file_again_is_skipped(runner: CliRunner, tmp_path: Path) -> None:
    kg = tmp_path / "kg.csv"
    kg.write_text("head,relation,tail\na,r,b\n", encoding="utf-8")
    db = str(tmp_path / "kg.db")
    runner.invoke(app, ["kg", "load", str(kg), "--db", db])
    again = runner.invoke(app, ["kg", "load", str(kg), "--db", db])
    assert again.exit_code == 0 and "already loaded" in again.output
    info = runner.invoke(app, ["kg", "info", "--db", db])
    assert [line.split("│")[2].strip() for line in info.output.splitlines() if "triples" in line] == ["1"]


def test_an_unknown_entity_exits_1_with_suggestions(runner: CliRunner, colota_dir: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    runner.invoke(app, ["kg", "load", str(colota_dir / "ark-v1-example.json"), "--db", db])
    result = runner.invoke(app, ["kg", "show", "Sable", "--db", db])
    assert result.exit_code == 1
    assert "Entity 'Sable' is not in the knowledge graph. Did you mean: Sablé" in result.output
    assert "Traceback" not in result.output


def test_a_bad_file_is_one_error_line_and_loads_nothing(runner: CliRunner, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps({"head": "a", "relation": "r", "tail": "b"}) + "\n", encoding="utf-8")
    bad.write_text(json.dumps({"head": "c", "relation": "r", "tail": "d"}) + "\n{oops\n", encoding="utf-8")
    db = str(tmp_path / "kg.db")
    result = runner.invoke(app, ["kg", "load", str(good), str(bad), "--db", db])
    assert result.exit_code == 1
    assert f"Error: {bad}, line 2: malformed JSON" in result.output
    assert "Traceback" not in result.output
    kept = runner.invoke(app, ["kg", "show", "a", "--db", db])
    assert kept.exit_code == 0
    assert runner.invoke(app, ["kg", "show", "c", "--db", db]).exit_code == 1


def test_info_on_a_missing_store_does_not_create_it(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["kg", "info", "--db", str(tmp_path / "typo.db")])
    assert result.exit_code == 1 and "no such KG store" in result.output
    assert not (tmp_path / "typo.db").exists()
