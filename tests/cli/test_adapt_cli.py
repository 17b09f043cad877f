"""`arkg adapt`'s mistakes: each a one-line error naming what is wrong, before anything is made."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.cli import app


@pytest.mark.parametrize(
    ("db", "options", "message"),
    [
        ("missing.db", [], "missing.db: no such file; arkg adapt reads a SQLite store (`arkg kg load FILE --db STORE`) or the sample KG"),
        ("wikidata:https://query.wikidata.org/sparql", [], "a remote store; arkg adapt reads a SQLite store"),
        ("sample", ["--strategy", "cot"], "cannot adapt cot: choose from ark, kaping, kg-agent"),
        ("not-a-store.db", [], "not-a-store.db"),
    ],
)
def test_a_kg_or_strategy_adapt_cannot_use_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: str, options: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "not-a-store.db").write_text("a text file\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["adapt", "--db", db, *options])
    assert result.exit_code == 1, result.output
    assert message in " ".join(result.output.split())
    assert not any(path.name.endswith(".adapted") for path in tmp_path.iterdir())
    assert not (tmp_path / "cache" / "adapted").exists()


def test_adapt_is_listed_with_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    shown = CliRunner().invoke(app, ["adapt", "--help"])
    assert shown.exit_code == 0
    assert "--time-budget" in shown.output and "before/after" in shown.output
