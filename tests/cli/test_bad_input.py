"""Plain bad input to the commands that write files or read user data: one red line naming the input,
exit 1, nothing written, and never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arkg.synth.run
from arkg.cli import app
from arkg.data import sample_graph_path
from arkg.datasets.geo import build_geo_kg
from arkg.graph import SQLiteGraph

runner = CliRunner()
UNREACHABLE = "http://127.0.0.1:9/sparql"
SYNTH_SAMPLE = ["synth", "--sample", "--split", "all", "--out"]

CASES = [
    pytest.param(["geo", "build", "a_dir", "--force"], "KG store a_dir is a folder", id="geo-build-into-a-folder"),
    pytest.param(["geo", "build", "big.db", "--people", "100000000"], "asked for 100,000,000", id="geo-build-too-many-people"),
    pytest.param(["geo", "questions", "--db", "geo.db", "--out", "a_dir"], "questions file a_dir is a folder", id="geo-questions-into-a-folder"),
    pytest.param(
        ["geo", "questions", "--db", "sample.db", "--out", "q.jsonl"],
        "sample.db: no template found a question in this KG",
        id="geo-questions-over-a-kg-without-geography",
    ),
    pytest.param(
        ["kg", "load", "kg.jsonl", "--db", "/dev/null"], "KG store /dev/null is not a regular file", id="kg-load-into-a-device"
    ),
    pytest.param(
        ["kg", "fetch", "--endpoint", UNREACHABLE, "-e", "Q1", "--db", "/dev/null"],
        "KG store /dev/null is not a regular file",
        id="kg-fetch-into-a-device",
    ),
    pytest.param(
        ["synth", "--out", "pairs.jsonl", "--geo-db", "geo.db", "--geo-questions", "latin1.jsonl"],
        "latin1.jsonl, line 1: not valid UTF-8",
        id="synth-questions-not-utf8",
    ),
    pytest.param(
        ["synth", "--out", "pairs.jsonl", "--geo-db", "geo.db", "--geo-questions", "missing.jsonl"],
        "missing.jsonl: cannot read the questions file",
        id="synth-questions-missing",
    ),
    pytest.param([*SYNTH_SAMPLE, "a_dir", "--force"], "output file a_dir is a folder", id="synth-into-a-folder"),
    pytest.param([*SYNTH_SAMPLE, "stopped.jsonl"], "stopped.jsonl.partial, line 2: not a question finished by", id="synth-journal-of-another-schema"),
    pytest.param(["report", "huge_run.jsonl"], "huge_run.jsonl, line 2: not a valid record", id="report-run-out-of-range"),
    pytest.param(["report", "ok.jsonl", "--md", "/dev/null"], "report file /dev/null is not a regular file", id="report-into-a-device"),
    pytest.param(["merge-adapters", "a.gguf=1", "--out", "a_dir"], "merged adapter a_dir is a folder", id="merge-adapters-into-a-folder"),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A geography KG, the sample KG as a store, and files that are wrong in one way each."""
    folder = tmp_path_factory.mktemp("inputs")
    build_geo_kg(folder / "geo.db", min_city_population=5_000_000)
    with SQLiteGraph(folder / "sample.db") as store:
        store.load(sample_graph_path())
    (folder / "kg.jsonl").write_text('{"head": "a", "relation": "r", "tail": "b"}\n', encoding="utf-8")
    (folder / "latin1.jsonl").write_bytes('{"question": "Où est Genève?"}\n'.encode("latin-1"))
    header, record = _results_lines()
    (folder / "ok.jsonl").write_text(f"{header}\n{record}\n", encoding="utf-8")
    huge_run = record.replace('"run":0', '"run":1e30')
    (folder / "huge_run.jsonl").write_text(f"{header}\n{huge_run}\n", encoding="utf-8")
    _stopped_synthesis_of_another_schema(folder / "stopped.jsonl")
    return folder


@pytest.fixture
def workdir(inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for path in inputs.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "a_dir").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


def _stopped_synthesis_of_another_schema(out: Path) -> None:
    """OUT.partial as a run stopped before writing OUT leaves it, with its first question rewritten in
    a shape this arkg does not write."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arkg.synth.run, "_write_output", _interrupt)
        assert runner.invoke(app, [*SYNTH_SAMPLE, str(out)]).exit_code == 130
    journal = out.with_name(out.name + ".partial")
    lines = journal.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({"source": "sample", "id": "sample-1", "pairs": 3})
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _interrupt(*args: object) -> None:
    raise KeyboardInterrupt


def _results_lines() -> tuple[str, str]:
    header = {
        "dataset": "claims.json", "dataset_sha256": "abc", "kg": "none", "strategy": "cot", "model": "scripted",
        "temperature": 0.0, "seed": 0, "max_tokens": 64,
    }
    record = {
        "question_id": "C1", "run": 0, "seed": 0, "strategy": "cot", "model": "scripted", "settings": {},
        "answer": True, "gold": True, "correct": True, "reasoning_strategies": [], "usage": {}, "elapsed_s": 0.1,
    }
    return json.dumps(header, separators=(",", ":")), json.dumps(record, separators=(",", ":"))


@pytest.mark.parametrize(("args", "message"), CASES)
def test_bad_input_gets_one_line_naming_it(workdir: Path, args: list[str], message: str) -> None:
    """Exit 1 with one `Error:` line that names the input; no internal error, no file written or changed."""
    before = {path: path.read_bytes() for path in workdir.rglob("*") if path.is_file()}
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert message in lines[0]
    assert {path: path.read_bytes() for path in workdir.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_kg_fetch_refuses_a_timeout_that_is_not_a_number_of_seconds(workdir: Path, value: str) -> None:
    """A bad option value is a usage error (exit 2) naming the option, caught before any query."""
    result = runner.invoke(app, ["kg", "fetch", "--endpoint", UNREACHABLE, "-e", "Q1", "--db", "kg.db", "--timeout", value])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Invalid value for '--timeout'" in result.output and f"{value} is not a number of seconds above 0" in result.output
    assert not (workdir / "kg.db").exists()


@pytest.mark.parametrize("url", ["http://[::1:bad/v1", "http://host:99999/v1", "http://host:port/v1"])
def test_a_model_server_url_that_is_not_one_is_a_spec_error_before_anything_opens(url: str) -> None:
    """The spec error names the URL and why, then lists the accepted forms (as every spec error does)."""
    result = runner.invoke(app, ["ask", "Is it?", "--model", f"openai:x@{url}"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.output.startswith(f"Error: Model spec 'openai:x@{url}': the server URL '{url}' is not valid ("), result.output
