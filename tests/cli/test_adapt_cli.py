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


def test_progress_lines_without_a_terminal_and_the_table_at_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's progress as the command prints it to a log (no terminal): a line as each stage starts
    and at each quarter of it, then the before/after table and how to use the adapters."""
    from adapted_records import write_record

    import arkg.tune.adapt
    from arkg.tune.adapt import AdaptProgress, AdaptResult

    monkeypatch.setenv("COLUMNS", "300")
    record = write_record(tmp_path / "kg.db.adapted", best="ark")

    def fake_adapt(db: str, options: object, *, on_progress, **kwargs: object) -> AdaptResult:
        for done in range(9):
            on_progress(AdaptProgress("tuning", "ark", done, 8, 60.0 * done, 3600.0))
        return AdaptResult(True, tmp_path / "kg.db.adapted", record, tmp_path / "kg.db.adapted" / "report.md")

    monkeypatch.setattr(arkg.tune.adapt, "adapt", fake_adapt)
    result = CliRunner().invoke(app, ["adapt", "--db", str(tmp_path / "kg.db")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if line.startswith("Tuning")] == [
        "Tuning · ark: 0/8 (0:00:00 of 1:00:00 spent)",
        "Tuning · ark: 2/8 (0:02:00 of 1:00:00 spent)",
        "Tuning · ark: 4/8 (0:04:00 of 1:00:00 spent)",
        "Tuning · ark: 6/8 (0:06:00 of 1:00:00 spent)",
        "Tuning · ark: 8/8 (0:08:00 of 1:00:00 spent)",
    ]
    assert "| ark | 9/20 (45%) | 15/20 (75%) | 40 | used (the default strategy) |" in result.output
    assert "now uses them with --strategy ark" in result.output
