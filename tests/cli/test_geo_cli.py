"""`arkg geo build` and `arkg geo questions` (the command group from arkg.cli.geo)."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from arkg.cli.geo import app, register
from arkg.datasets.geo import read_questions
from arkg.datasets.geo.people_templates import PEOPLE_TEMPLATES
from arkg.datasets.geo.questions import TEMPLATES


def test_build_then_questions(tmp_path: Path) -> None:
    runner = CliRunner()
    db, out = tmp_path / "geo.db", tmp_path / "q.jsonl"
    built = runner.invoke(app, ["build", str(db), "--min-city-population", "1000000"])
    assert built.exit_code == 0 and "Built" in built.output and "11 relations" in built.output
    again = runner.invoke(app, ["build", str(db)])
    assert again.exit_code == 1 and "already exists" in again.output and "Traceback" not in again.output
    made = runner.invoke(app, ["questions", "--db", str(db), "--out", str(out), "--per-template", "3", "--seed", "2"])
    assert made.exit_code == 0, made.output
    questions = read_questions(out)
    assert f"Wrote {len(questions)} questions" in made.output and 0 < len(questions) <= 3 * (len(TEMPLATES) - len(PEOPLE_TEMPLATES))
    missing = runner.invoke(app, ["questions", "--db", str(tmp_path / "none.db"), "--out", str(out)])
    assert missing.exit_code == 1 and "no such KG store" in missing.output


def test_build_with_people_gives_questions_about_them(tmp_path: Path) -> None:
    runner = CliRunner()
    db, out = tmp_path / "people.db", tmp_path / "q.jsonl"
    built = runner.invoke(app, ["build", str(db), "--min-city-population", "1000000", "--people", "60", "--people-seed", "3"])
    assert built.exit_code == 0 and "20 relations" in built.output, built.output
    made = runner.invoke(app, ["questions", "--db", str(db), "--out", str(out), "--per-template", "2"])
    assert made.exit_code == 0, made.output
    people = [q for q in read_questions(out) if q.template in {t.name for t in PEOPLE_TEMPLATES}]
    assert len({q.template for q in people}) > 10 and all(q.entities[0] in q.question for q in people)


def test_register_adds_the_geo_group() -> None:
    main = typer.Typer()
    main.command()(lambda: None)
    register(main)
    result = CliRunner().invoke(main, ["geo", "--help"])
    assert result.exit_code == 0 and "build" in result.output and "questions" in result.output
