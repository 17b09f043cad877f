"""`arkg adapt` on a tiny KG with the real model and real tuning: stopped in the middle and resumed, its
adapter then used by default and named, shown by `kg info`, refused when damaged."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import gguf
import pytest

from arkg.data import sample_graph_path, tuned_adapter_path
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.adapted import RECORD_FILE, read_adapted
from arkg.llm.file_digest import file_sha256
from arkg.tune.adapt import AdaptOptions, AdaptProgress, adapt

pytestmark = pytest.mark.slow

# One strategy, a handful of questions, three steps of four pairs: the whole path in about a minute.
OPTIONS = AdaptOptions(strategies=("kg-agent",), questions=30, test_questions=2, pairs=8, steps=3, batch_size=4, time_budget_s=1800)
QUESTION = "Was Marie Curie born in Warsaw?"


def _arkg(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arkg.cli import main; main()", *args],
        capture_output=True, text=True, timeout=300, cwd=cwd, env={**os.environ, "ARKG_CACHE_DIR": str(cwd / "cache"), "COLUMNS": "400"},
    )  # fmt: skip


def test_adapt_stops_resumes_and_its_adapter_answers_by_default(tmp_path: Path) -> None:
    kg = tmp_path / "kg.db"
    with SQLiteGraph(kg) as graph:
        graph.load(sample_graph_path())
    stop = threading.Event()
    seen: list[AdaptProgress] = []

    def stop_when_tuning(progress: AdaptProgress) -> None:
        seen.append(progress)
        if progress.stage == "tuning":
            stop.set()

    # Two pairs a forward pass, then the whole batch on resuming: the same steps, in less memory.
    first = adapt(str(kg), OPTIONS, micro_batch_size=2, stop=stop, on_progress=stop_when_tuning)
    folder = tmp_path / "kg.db.adapted"
    work = folder / "stages"
    assert (first.finished, first.record, first.folder) == (False, None, folder)
    # Step 1 is reported (and the stop asked) after the trainer's check of that step: step 2 stops.
    assert [p.done for p in seen if p.stage == "tuning"] == [1, 2]
    assert (work / "kg-agent" / "tune" / "checkpoints" / "checkpoint-2").is_dir()
    assert not (folder / RECORD_FILE).exists() and read_adapted(str(kg)) is None
    questions = (work / "questions.jsonl").read_bytes()
    before = (work / "kg-agent" / "before.jsonl").read_bytes()

    resumed: list[AdaptProgress] = []
    done = adapt(str(kg), OPTIONS, command="arkg adapt --db kg.db", on_progress=resumed.append)
    assert done.finished and done.record is not None
    # Nothing finished was done again: the same questions and first scores, tuning from step 1 on.
    assert (work / "questions.jsonl").read_bytes() == questions and (work / "kg-agent" / "before.jsonl").read_bytes() == before
    assert [p.done for p in resumed if p.stage == "tuning"] == [3]
    assert resumed[-1].spent_s > seen[-1].spent_s  # the clock carried over

    record = done.record
    assert record == read_adapted(str(kg))
    outcome = record.strategies["kg-agent"]
    assert (outcome.steps, outcome.before.questions, outcome.after.questions, record.best_strategy) == (3, 2, 2, "kg-agent")
    assert record.test_questions == 2 and record.questions > 2 and record.command == "arkg adapt --db kg.db"
    assert "| kg-agent | " in done.report.read_text(encoding="utf-8")
    # Reproducible from its sidecar: the mix it was tuned on and the shipped adapter it started from, by digest.
    sidecar = json.loads((folder / "adapted-kg-agent.json").read_text(encoding="utf-8"))
    assert sidecar["data"]["sha256"] == file_sha256(work / "kg-agent" / "mix.jsonl")
    assert sidecar["from_adapter"]["sha256"] == file_sha256(tuned_adapter_path("tuned-kg-agent"))
    assert sidecar["adapter"]["sha256"] == file_sha256(folder / outcome.adapter)
    mix = [json.loads(line) for line in (work / "kg-agent" / "mix.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(mix) == 8 and {pair["strategy"] for pair in mix} == {"kg-agent"}
    assert sorted(pair["source"] for pair in mix) == ["domains"] * 2 + ["kg"] * 6  # a quarter replayed
    assert [source["drawn"] for source in sidecar["data"]["synth"]["content"]["sources"]] == [6, 2]

    # Finished, the same call does nothing again; a run of other options would start over.
    again: list[AdaptProgress] = []
    assert adapt(str(kg), OPTIONS, command="arkg adapt --db kg.db", on_progress=again.append).record.strategies == record.strategies
    assert not [p for p in again if p.stage == "tuning"]

    answered = _arkg("ask", QUESTION, "--db", str(kg), cwd=tmp_path)
    assert answered.returncode == 0, answered.stderr[-2000:]
    assert "model: SmolLM2-135M-Instruct + adapted-kg-agent (tuned for this KG by arkg adapt)" in answered.stdout
    assert "strategy: kg-agent (the best on this KG's test questions after arkg adapt)" in answered.stdout
    named = _arkg("ask", QUESTION, "--db", str(kg), "--model", "llamacpp:tuned", "--strategy", "ark", "--max-calls", "1", cwd=tmp_path)
    assert "adapted" not in named.stdout

    info = _arkg("kg", "info", "--db", str(kg), cwd=tmp_path)
    assert f"kg-agent: test questions {outcome.before} -> {outcome.after}" in info.stdout
    assert "default strategy kg-agent" in info.stdout

    # A damaged adapter is refused in one line, naming it, before llama.cpp sees it.
    reader = gguf.GGUFReader(folder / outcome.adapter, "r+")
    next(entry for entry in reader.tensors if entry.name.endswith(".lora_b")).data.flat[0] = math.nan
    reader.data.flush()
    del reader
    refused = _arkg("ask", QUESTION, "--db", str(kg), cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith(f"Error: {folder / outcome.adapter}: tensor ") and "NaN or infinite values" in refused.stderr
