"""The held-out domains as files: written by bench/heldout_domains.py, loaded as a KG by the real
loader and read by `arkg eval`'s question-file reader, and evaluated by bench/heldout_eval.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arkg.eval.datasets import open_dataset
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.domains import HELD_OUT_DOMAINS
from arkg.synth.domains.export import folder_name

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def held_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("held-out")
    done = subprocess.run([sys.executable, str(BENCH / "heldout_domains.py"), "--out", str(out), "--per-template", "4"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for domain in HELD_OUT_DOMAINS:
        assert f"| {folder_name(domain.name)} |" in done.stdout
    return out


def test_each_domain_is_a_loadable_kg_and_a_question_file_over_it(held_out: Path) -> None:
    for domain in HELD_OUT_DOMAINS:
        folder = held_out / folder_name(domain.name)
        with SQLiteGraph(folder / "kg.db") as kg:
            kg.load(folder / "kg.jsonl")
            assert kg.stats().triples == len((folder / "kg.jsonl").read_text(encoding="utf-8").splitlines())
            dataset = open_dataset(folder / "questions.jsonl")
            lines = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
            assert not dataset.problems and len(dataset.questions) == len(lines) > 20
            assert all(kg.has_entity(name) for question in dataset.questions for name in question.entities)
            answers = [line["answer"] for line in lines]
            assert any(a is True for a in answers) and any(a is False for a in answers) and any(isinstance(a, list) for a in answers)
            assert {line["hops"] for line in lines} >= {1, 2}


def test_the_files_are_the_same_for_the_same_seed(held_out: Path, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(BENCH / "heldout_domains.py"), "--out", str(tmp_path), "--per-template", "4"], check=True, capture_output=True)
    for domain in HELD_OUT_DOMAINS:
        for name in ("kg.jsonl", "questions.jsonl"):
            assert (tmp_path / folder_name(domain.name) / name).read_bytes() == (held_out / folder_name(domain.name) / name).read_bytes()


def test_heldout_eval_runs_arkg_eval_and_tables_the_results(held_out: Path) -> None:
    command = [sys.executable, str(BENCH / "heldout_eval.py"), "--dir", str(held_out), "--domain", "botany", "--strategy", "kg-agent", "--model", "test", "--limit", "2"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| kg-agent")]
    assert [row[2] for row in rows] == ["botany", "**overall**"] and all(row[3] == "2" for row in rows)
    assert (held_out / "botany" / "results" / "kg-agent--test.jsonl").is_file()
