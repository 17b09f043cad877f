"""`arkg kg` under concurrent writers, bad store paths, CoLoTa files, the sample KG and hostile KG text."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arkg.cli import app
from arkg.cli.errors import user_errors
from arkg.errors import ArkgError, LoadError
from arkg.graph import SQLiteGraph, open_graph


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


def triples_in(db: Path) -> int:
    with SQLiteGraph(db, create=False) as store:
        return store.stats().triples


def write_jsonl(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"head": f"h{n}", "relation": "r", "tail": f"t{n}"}) + "\n" for n in range(count)))
    return path


def test_two_processes_loading_one_file_into_one_store_load_it_once(tmp_path: Path) -> None:
    """Two `kg load f.jsonl --db same.db` at once both inserted the file."""
    source, db = write_jsonl(tmp_path / "kg.jsonl", 5_000), tmp_path / "kg.db"
    SQLiteGraph(db).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # both commands start while another writer holds the store
    command = [sys.executable, "-c", "from arkg.cli import main; main()", "kg", "load", str(source), "--db", str(db)]
    logs = [tmp_path / f"out{index}.txt" for index in range(2)]
    processes = [
        subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "200"})
        for log in logs
    ]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not all("Waiting" in log.read_text() for log in logs):
        if any(process.poll() is not None for process in processes):
            break
        time.sleep(0.1)
    holder.execute("ROLLBACK")
    holder.close()
    codes = [process.wait(timeout=120) for process in processes]
    outputs = [log.read_text() for log in logs]
    assert codes == [0, 0], outputs
    assert all(f"another process is writing to {db}" in output for output in outputs), outputs
    assert sorted("Loaded 5,000 triples" in output for output in outputs) == [False, True], outputs
    assert sum("skipped" in output and "already loaded" in output for output in outputs) == 1, outputs
    assert triples_in(db) == 5_000


def test_a_failed_first_load_leaves_no_store_file(runner: CliRunner, tmp_path: Path) -> None:
    """A failed load into a new path still created the store file."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"head": "a", "relation": "r"}\n')
    result = runner.invoke(app, ["kg", "load", str(bad), "--db", str(tmp_path / "new.db")])
    assert result.exit_code == 1 and "missing key(s) tail" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.jsonl"]

    good = write_jsonl(tmp_path / "good.jsonl", 2)
    kept = runner.invoke(app, ["kg", "load", str(good), str(bad), "--db", str(tmp_path / "new.db")])
    assert kept.exit_code == 1 and triples_in(tmp_path / "new.db") == 2


def test_an_existing_store_is_kept_when_a_load_fails(runner: CliRunner, tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    SQLiteGraph(db).close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    assert runner.invoke(app, ["kg", "load", str(bad), "--db", str(db)]).exit_code == 1
    assert db.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["kg", "load", "KG", "--db", "{tmp}/no/kg.db"], "{tmp}/no/kg.db: the folder {tmp}/no does not exist; create it first"),
        (["kg", "load", "KG", "--db", "{tmp}"], "{tmp} is a folder, not a KG store file; name a file, e.g. {tmp}/kg.db"),
        (["kg", "info", "--db", "{tmp}"], "{tmp} is a folder, not a KG store file"),
        (["kg", "show", "a", "--db", "{tmp}"], "{tmp} is a folder, not a KG store file"),
        (["kg", "load", "KG", "--db", "{tmp}/kg.jsonl/kg.db"], "{tmp}/kg.jsonl/kg.db: {tmp}/kg.jsonl is a file, not a folder"),
        (["kg", "fetch", "--endpoint", "http://127.0.0.1:9/sparql", "-e", "Q1", "--db", "{tmp}/no/kg.db"], "the folder {tmp}/no does not exist"),
    ],
)
def test_bad_store_paths_get_precise_messages(runner: CliRunner, tmp_path: Path, arguments: list[str], message: str) -> None:
    """"unable to open database file" / "no such KG store" for a missing folder or a directory."""
    kg = write_jsonl(tmp_path / "kg.jsonl", 1)
    result = runner.invoke(app, [argument.replace("KG", str(kg)).format(tmp=tmp_path) for argument in arguments])
    assert result.exit_code == 1
    assert message.format(tmp=tmp_path) in result.output
    assert "Traceback" not in result.output and not (tmp_path / "no").exists()


def test_a_colota_data_set_loads_its_gold_triples(runner: CliRunner, colota_dir: Path, tmp_path: Path) -> None:
    """`kg load CR-LT-QA.json` failed with "record 1: expected [head, tail, ...]"."""
    from arkg.eval.colota import load_dataset

    dataset_file, db = colota_dir / "CR-LT-QA.json", tmp_path / "colota.db"
    gold = load_dataset(dataset_file).triples
    result = runner.invoke(app, ["kg", "load", str(dataset_file), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert f"{len(gold):,} triples (the gold triples of a CoLoTa data set)" in result.output
    with SQLiteGraph(db, create=False) as store:
        canonical = lambda t: repr((t.head, t.relation, t.tail, sorted(t.props.items())))  # noqa: E731 (props are stored with sorted keys)
        assert sorted(store.iter_triples(), key=canonical) == sorted(gold, key=canonical)
    again = runner.invoke(app, ["kg", "load", str(dataset_file), "--db", str(db)])
    assert again.exit_code == 0 and "already loaded" in again.output and triples_in(db) == len(gold)


def test_an_ark_graph_file_is_not_taken_for_a_colota_data_set(runner: CliRunner, colota_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["kg", "load", str(colota_dir / "ark-v1-example.json"), "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 0 and "32 triples" in result.output and "CoLoTa" not in result.output


def test_a_colota_file_read_as_an_ark_graph_says_what_to_do(tmp_path: Path) -> None:
    """The ark reader names the format it was given and the command that reads it."""
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"id": "S1", "query": "q?", "answer": True, "KG Triples": "1- (a, r, b)"}]))
    with SQLiteGraph() as store, pytest.raises(LoadError) as caught:
        store.load(path, format="ark")
    assert caught.value.where == "record 1"
    assert "CoLoTa data set" in caught.value.reason and "arkg kg load FILE" in caught.value.reason


def test_a_hostile_colota_file_is_a_clean_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('[{"id": "S1", "KG Triples": "1- (a, r, b)", "x": ' + "[" * 5000 + "]" * 5000 + "}]")
    result = runner.invoke(app, ["kg", "load", str(path), "--db", str(tmp_path / "kg.db")])
    assert result.exit_code == 1, result.output
    assert "entry 1 (line 1): nested too deeply" in result.output and "Traceback" not in result.output


def test_sample_names_the_bundled_kg() -> None:
    """The bundled sample KG had no name a --db option could take."""
    assert open_graph("sample").stats() == open_graph(None).stats()


def test_kg_info_and_show_default_to_the_sample_kg(runner: CliRunner) -> None:
    """`kg show` and `kg info` required --db, unlike `ask`."""
    expected = open_graph(None).stats()
    for arguments in (["kg", "info"], ["kg", "info", "--db", "sample"]):
        info = runner.invoke(app, arguments)
        assert info.exit_code == 0, info.output
        assert "sample" in info.output
        assert [line.split("│")[2].strip() for line in info.output.splitlines() if "triples" in line] == [f"{expected.triples}"]
    shown = runner.invoke(app, ["kg", "show", "Marie Curie"])
    assert shown.exit_code == 0 and "place of birth" in shown.output and "Warsaw" in shown.output


def test_loading_into_sample_is_refused(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["kg", "load", str(write_jsonl(tmp_path / "kg.jsonl", 1)), "--db", "sample"])
    assert result.exit_code == 1 and "read-only" in result.output and "./sample" in result.output
    assert not (tmp_path / "sample").exists()


def test_terminal_escapes_in_kg_text_are_shown_not_obeyed(runner: CliRunner, tmp_path: Path) -> None:
    """KG text reached the terminal raw (escape sequences, line breaks) in `kg show`."""
    kg = tmp_path / "kg.jsonl"
    lines = [
        {"head": "Evil\x1b[2J", "relation": "rel\x1b]0;title\x07", "tail": "two\nlines", "props": {"k\x1b[31m": "v\r"}},
        {"head": "Other", "relation": "points at", "tail": "Evil\x1b[2J"},
    ]
    kg.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = str(tmp_path / "kg.db")
    assert runner.invoke(app, ["kg", "load", str(kg), "--db", db]).exit_code == 0
    shown = runner.invoke(app, ["kg", "show", "Evil\x1b[2J", "--db", db])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.output and "\x07" not in shown.output and "\r" not in shown.output
    assert "Evil\\x1b[2J" in shown.output and "two\\nlines" in shown.output and "k\\x1b[31m: v\\r" in shown.output
    missing = runner.invoke(app, ["kg", "show", "Evil\x1b[2", "--db", db])
    assert missing.exit_code == 1 and "\x1b" not in missing.output and "Evil\\x1b[2J" in missing.output


def test_error_messages_are_printed_without_highlighting(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich highlighted error messages (minutes for a megabyte), colouring quoted data."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    message = "line 12: cannot read 'http://example.org/x 3.14 True'"

    def fail() -> None:
        with user_errors():
            raise ArkgError(message)

    command = typer.Typer()
    command.command()(fail)
    result = runner.invoke(command, [])
    assert result.exit_code == 1
    assert message in result.output, repr(result.output)
