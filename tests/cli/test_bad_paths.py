"""Bad paths given to `arkg eval`, `arkg report` and `arkg ask`: one clear line, exit 1, no traceback, no
stray file, and no model opened (paths are checked before any work)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arkg.session
import arkg.eval.setup
from arkg.cli import app
from arkg.eval.results import Record, ResultsWriter, RunConfig
from arkg.llm.base import Usage

runner = CliRunner()
CONFIG = RunConfig(
    dataset="claims.json", dataset_sha256="abc", kg="none", strategy="cot", model="scripted",
    temperature=0.0, seed=0, max_tokens=64,
)
# A folder in which nobody, root included, may create files.
UNWRITABLE = Path("/sys")
needs_unwritable = pytest.mark.skipif(not UNWRITABLE.is_dir(), reason=f"{UNWRITABLE} is Linux's read-only sysfs")
EVAL = ["eval", "--dataset", "claims.json", "--strategy", "cot", "--out"]
ASK = ["ask", "Was Marie Curie born in Warsaw?"]

CASES = [
    pytest.param([*EVAL, "/missing/dir/o.jsonl"], "folder /missing/dir does not exist", id="eval-out-missing-folder"),
    pytest.param([*EVAL, "a_dir"], "results file a_dir is a folder", id="eval-out-is-a-folder"),
    pytest.param([*EVAL, "a_file.txt/o.jsonl"], "a_file.txt is not a folder", id="eval-out-under-a-file"),
    pytest.param([*EVAL, "/sys/o.jsonl"], "cannot write results file /sys/o.jsonl", id="eval-out-unwritable", marks=needs_unwritable),
    pytest.param(["eval", "--dataset", "missing.json", "--strategy", "cot", "--out", "o.jsonl"], "missing.json: no such file", id="eval-dataset-missing"),
    pytest.param(["eval", "--dataset", "a_dir", "--strategy", "cot", "--out", "o.jsonl"], "a_dir: not a file", id="eval-dataset-is-a-folder"),
    pytest.param(["report", "missing.jsonl"], "cannot read results file missing.jsonl", id="report-missing"),
    pytest.param(["report", "a_dir"], "cannot read results file a_dir", id="report-input-is-a-folder"),
    pytest.param(["report", "ok.jsonl", "--html", "/missing/r.html"], "folder /missing does not exist", id="report-html-missing-folder"),
    pytest.param(["report", "ok.jsonl", "--md", "rep/report.md"], "folder rep does not exist", id="report-md-missing-folder"),
    pytest.param(["report", "ok.jsonl", "--md", "a_dir"], "report file a_dir is a folder", id="report-md-is-a-folder"),
    pytest.param(["report", "ok.jsonl", "--md", "/sys/r.md"], "cannot write report file /sys/r.md", id="report-md-unwritable", marks=needs_unwritable),
    pytest.param([*ASK, "--trace", "a_dir"], "trace file a_dir is a folder", id="ask-trace-is-a-folder"),
    pytest.param([*ASK, "--trace", "/tmp"], "trace file /tmp is a folder", id="ask-trace-is-tmp"),
    pytest.param([*ASK, "--trace", "/missing/t.json"], "folder /missing does not exist", id="ask-trace-missing-folder"),
    pytest.param([*ASK, "--trace", "/sys/t.json"], "cannot write trace file /sys/t.json", id="ask-trace-unwritable", marks=needs_unwritable),
    pytest.param([*ASK, "--db", "/missing/x.db"], "/missing/x.db", id="ask-db-missing"),
]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a data set, a results file, a folder and a plain file; models cannot be opened."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.json").write_text(json.dumps([{
        "id": "C1", "query": "Is it?", "answer": True, "KG Entities": {"A": "Q1"},
        "KG Triples": "1- (A, value, 1)", "Reasoning Strategy": ["definition"],
    }]), encoding="utf-8")
    with ResultsWriter(tmp_path / "ok.jsonl", CONFIG) as writer:
        writer.append(Record(
            question_id="C1", run=0, seed=0, strategy="cot", model="scripted", settings={}, answer=True, gold=True,
            correct=True, reasoning_strategies=["definition"], usage=Usage(calls=1), elapsed_s=0.1,
        ))
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "a_file.txt").write_text("not a folder", encoding="utf-8")

    def no_model(*args: object, **kwargs: object):
        raise AssertionError("a model was opened although a path was bad")

    monkeypatch.setattr(arkg.eval.setup, "open_model", no_model)
    monkeypatch.setattr(arkg.session, "open_model", no_model)
    return tmp_path


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@pytest.mark.parametrize(("args", "message"), CASES)
def test_a_bad_path_gets_one_clear_line_and_nothing_else(workdir: Path, args: list[str], message: str) -> None:
    """No traceback, one message naming the path, exit 1, no file left behind, before any work."""
    before = files_under(workdir)
    root_before = set(Path("/").iterdir())
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert message in lines[0]
    assert "Traceback" not in result.output
    assert files_under(workdir) == before
    assert set(Path("/").iterdir()) == root_before


def test_the_installed_command_shows_no_traceback_for_a_missing_results_file(tmp_path: Path) -> None:
    """The same, through the real entry point in its own process."""
    done = subprocess.run(
        [sys.executable, "-c", "from arkg.cli import main; main()", "report", str(tmp_path / "missing.jsonl")],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == f"Error: cannot read results file {tmp_path / 'missing.jsonl'}: No such file or directory"
