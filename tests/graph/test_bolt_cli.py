"""The CLI end to end on a Bolt server: `arkg kg load` writes the sample KG into a real FalkorDB, `kg info`,
`kg show` and `ask` read it like the bundled store, and every failure is one red line without a traceback
or the password."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support.bolt import falkordb
from typer.testing import CliRunner

import arkg.eval.setup
import arkg.session
from arkg.cli import app
from arkg.data import sample_graph_path
from arkg.llm.scripted import ScriptedModel
from arkg.llm.testing import TestModel

QUESTION = "Was Marie Curie born in Warsaw?"
PROGRAM = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Warsaw")', "v3 = end(v2)"]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("falkordb")) as url:
        yield url


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("guarded"), password="Hunter2-secret") as url:
        yield url


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


def _info(runner: CliRunner, db: str) -> dict[str, str]:
    result = runner.invoke(app, ["kg", "info", "--db", db])
    assert result.exit_code == 0, result.output
    return {cells[1].strip(): cells[2].strip() for line in result.output.splitlines() if len(cells := line.split("│")) == 4}


def test_the_sample_kg_loaded_into_falkordb_reads_like_the_bundled_one(runner: CliRunner, url: str) -> None:
    loaded = runner.invoke(app, ["kg", "load", str(sample_graph_path()), "--db", url])
    assert loaded.exit_code == 0, loaded.output
    assert f"Loaded 43 triples from 1 file(s) into {url}" in loaded.output and "indexed names for search" in loaded.output
    again = runner.invoke(app, ["kg", "load", str(sample_graph_path()), "--db", url])
    assert "skipped" in again.output and "every file was loaded before" in again.output

    assert _info(runner, url) == _info(runner, "sample")
    shown, bundled = (runner.invoke(app, ["kg", "show", "Pierre Curie", "--db", db]) for db in (url, "sample"))
    assert shown.exit_code == 0 and shown.output == bundled.output
    missing = runner.invoke(app, ["kg", "show", "Piere Curie", "--db", url])
    assert missing.exit_code == 1 and "Did you mean: Pierre Curie" in missing.output


def test_ask_answers_the_readme_demo_over_bolt(runner: CliRunner, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    runner.invoke(app, ["kg", "load", str(sample_graph_path()), "--db", url])
    monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: ScriptedModel.from_replies(PROGRAM))
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", "--json", QUESTION, "--db", url])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["answer"] is True
    assert answer["cited_triples"] == [{"head": "Marie Curie", "relation": "place of birth", "tail": "Warsaw", "props": {}}]


@pytest.mark.parametrize(
    ("db", "says"),
    [
        ("bolt://127.0.0.1:1", "cannot connect: connection refused"),
        ("bolt://127.0.0.1:1?colour=red", "unknown option 'colour'"),
        ("bolt://u:Hunter2-secret@127.0.0.1:1", "cannot connect: connection refused"),
    ],
)
def test_unreachable_or_misspelt_servers_are_one_red_line(runner: CliRunner, db: str, says: str) -> None:
    for command in (["kg", "info", "--db", db], ["kg", "show", "x", "--db", db], ["kg", "load", str(sample_graph_path()), "--db", db]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], lines
        assert "Hunter2" not in result.output and "Traceback" not in result.output


def test_a_wrong_password_and_an_unknown_database_are_one_red_line(runner: CliRunner, guarded: str, url: str) -> None:
    wrong = runner.invoke(app, ["kg", "info", "--db", guarded.replace("bolt://", "bolt://falkordb:Hunter3-guess@")])
    assert wrong.exit_code == 1
    assert wrong.output.strip().splitlines() == [
        f"Error: Bolt server {guarded}: the server refused the login of user 'falkordb': wrong user name or password"
        " (give them in the URL, bolt://USER:PASSWORD@HOST:PORT, or in $ARKG_BOLT_USER and $ARKG_BOLT_PASSWORD)"
    ]
    assert "Hunter" not in wrong.output
    right = runner.invoke(app, ["kg", "info", "--db", guarded.replace("bolt://", "bolt://falkordb:Hunter2-secret@")])
    assert right.exit_code == 0 and "Hunter2" not in right.output
    unknown = runner.invoke(app, ["kg", "info", "--db", url + "/movies"])
    assert unknown.exit_code == 1 and len(unknown.output.strip().splitlines()) == 1
    assert "serves only its graph 'falkordb' (not 'movies')" in unknown.output


def test_an_evaluation_over_bolt_records_the_server_without_its_password(
    runner: CliRunner, guarded: str, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = guarded.replace("bolt://", "bolt://falkordb:Hunter2-secret@")
    assert runner.invoke(app, ["kg", "load", str(sample_graph_path()), "--db", secret]).exit_code == 0
    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: TestModel())
    dataset = tmp_path / "questions.json"
    dataset.write_text(json.dumps([{
        "id": "Q1", "query": QUESTION, "answer": True, "KG Entities": {"Marie Curie": ""},
        "KG Triples": "1- (Marie Curie, place of birth, Warsaw)", "Reasoning Strategy": ["geographical"],
    }]), encoding="utf-8")  # fmt: skip
    out = tmp_path / "results.jsonl"
    result = runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "kaping", "--db", secret, "--out", str(out)])
    assert result.exit_code == 0, result.output
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert header["kg"] == guarded.replace("bolt://", "bolt://falkordb@")
    assert "Hunter2-secret" not in out.read_text(encoding="utf-8") + result.output
