"""The CI-sized run: a few steps on a tiny data set, stopped and resumed, exported, loaded by llama.cpp."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import gguf
import pytest

from arkg.agents import build_strategy
from arkg.agents.ark.trace import AnchorAttempt, RelationAttempt
from arkg.errors import ModelError
from arkg.graph import open_graph
from arkg.llm import LlamaCppModel
from arkg.llm.bundled import bundled_model_path
from arkg.tune import TuneError, TuneOptions, tune
from arkg.tune.train import native_bf16

from tune_pairs import write_pairs

pytestmark = pytest.mark.slow

# Two steps of four examples on the last two blocks: seconds of training, the whole path exercised.
OPTIONS = TuneOptions(max_steps=2, batch_size=4, layers=2, save_every=5, warmup_steps=0, learning_rate=1e-3)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_train_stop_resume_export_and_answer_through_llama_cpp(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "pairs.jsonl")
    out = tmp_path / "run"
    steps: list[int] = []

    stopped = tune(data, out, OPTIONS, threads=1, should_stop=lambda: True, on_progress=lambda p: steps.append(p.step))
    # Asked to stop after the first step: a checkpoint is saved there, nothing is exported yet.
    assert (stopped.finished, stopped.steps, stopped.total_steps, stopped.adapter) == (False, 1, 2, None)
    assert (out / "checkpoints" / "checkpoint-1" / "adapter_model.safetensors").is_file()

    done = tune(data, out, OPTIONS, threads=1, command="arkg tune --data pairs.jsonl", on_progress=lambda p: steps.append(p.step))
    assert (done.finished, done.resumed_from, done.steps) == (True, 1, 2)
    assert steps == [1, 2]  # step 1 was not trained twice
    assert done.examples == 8 and done.left_out == 0

    provenance = json.loads(done.sidecar.read_text(encoding="utf-8"))
    assert provenance["data"]["sha256"] == _sha256(data) and provenance["data"]["used"] == 8
    assert done.drawn == provenance["data"]["drawn"] == 8  # 2 steps of 4
    assert provenance["base_model"]["sha256"] == _sha256(bundled_model_path())
    assert provenance["adapter"]["sha256"] == _sha256(done.adapter)
    assert provenance["options"] == OPTIONS.model_dump(mode="json") and provenance["seed"] == 0
    assert provenance["command"] == "arkg tune --data pairs.jsonl"
    assert provenance["steps"] == 2 and provenance["final_loss"] > 0 and provenance["train_s"] > 0
    # The default precision, auto: bfloat16 autocast where this CPU computes it natively.
    assert provenance["device"] == "cpu" + (", bf16 autocast" if native_bf16(cuda=False) else "")
    assert set(provenance["loss_by_step"]) == {"1", "2"}

    # The adapter is llama.cpp's LoRA format: its metadata, and A/B for each linear layer of the last 2 blocks.
    reader = gguf.GGUFReader(done.adapter)
    fields = {name: reader.fields[name].contents() for name in ("general.type", "general.architecture", "adapter.type")}
    assert fields == {"general.type": "adapter", "general.architecture": "llama", "adapter.type": "lora"}
    assert reader.fields["adapter.lora.alpha"].contents() == OPTIONS.alpha
    names = {tensor.name for tensor in reader.tensors}
    assert len(names) == 2 * 7 * 2
    assert {"blk.29.attn_q.weight.lora_a", "blk.28.ffn_down.weight.lora_b"} <= names
    assert not any(name.startswith("blk.27.") for name in names)

    model = LlamaCppModel(lora_path=done.adapter, n_threads=1)
    result = build_strategy("ark", model, open_graph(None), {"mode": "constrained", "k_max": 1}).ask(
        "Was Pierre Curie born in Poland?"
    )
    assert result.answer in (True, False, None) and result.stop_reason
    picks = [event for event in result.trace.events if isinstance(event, (AnchorAttempt, RelationAttempt))]
    assert picks and all(getattr(event, "valid", True) and getattr(event, "outcome", "valid") != "invalid" for event in picks)

    # Other options on the same folder are refused: the checkpoints belong to this run.
    with pytest.raises(TuneError, match="holds a run with other options"):
        tune(data, out, OPTIONS.model_copy(update={"rank": 4}))

    # Tuning that adapter further starts from it: a step at a vanishing learning rate keeps it as it was.
    further = tune(
        data, tmp_path / "further", OPTIONS.model_copy(update={"max_steps": 1, "learning_rate": 1e-9}), threads=1, from_adapter=done.adapter
    )
    before = {tensor.name: tensor.data for tensor in reader.tensors}
    after = {tensor.name: tensor.data for tensor in gguf.GGUFReader(further.adapter).tensors}
    assert set(after) == set(before) and all((after[name] == before[name]).all() for name in before)
    assert any(before[name].any() for name in before if name.endswith("lora_b"))  # a fresh adapter's B is zero
    started = json.loads(further.sidecar.read_text(encoding="utf-8"))["from_adapter"]
    # The start's own sidecar comes along, so the new one tells the whole making.
    assert started == {"file": "adapter.gguf", "sha256": _sha256(done.adapter), "provenance": json.loads(done.sidecar.read_text(encoding="utf-8"))}
    with pytest.raises(TuneError, match="Adapter to start from not found: .*missing.gguf"):
        tune(data, tmp_path / "other", OPTIONS, from_adapter=tmp_path / "missing.gguf")
    assert not (tmp_path / "other").exists()  # refused before the run folder is made
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(done.adapter.read_bytes())
    broken.with_suffix(".json").write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match=r"broken.json: not valid JSON"):
        tune(data, tmp_path / "other", OPTIONS, from_adapter=broken)
    assert not (tmp_path / "other").exists()


def test_a_spent_time_budget_ends_training_and_exports_what_it_has(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "pairs.jsonl")
    ended = tune(data, tmp_path / "run", OPTIONS, threads=1, end_now=lambda: True)
    # Ended after the first of two steps: finished all the same, the adapter exported with the steps it had.
    assert (ended.finished, ended.steps, ended.total_steps) == (True, 1, 2)
    assert ended.adapter is not None and ended.adapter.is_file()
    assert json.loads(ended.sidecar.read_text(encoding="utf-8"))["steps"] == 1
