"""Merged adapters: the weighted sum of the parts' updates, exactly or at a lower rank, with provenance;
and clear refusals of parts that cannot be merged."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM
from typer.testing import CliRunner

from arkg.cli import app
from arkg.errors import ModelError
from arkg.tune.adapter_file import export_adapter, read_adapter, read_lora_file, write_lora_file
from arkg.tune.merge import merge_adapters
from arkg.tune.options import LLAMA_LINEAR_LAYERS

LAYERS = ("blk.0.attn_q.weight", "blk.0.ffn_down.weight", "blk.1.attn_v.weight")
SHAPES = {"blk.0.attn_q.weight": (24, 16), "blk.0.ffn_down.weight": (16, 40), "blk.1.attn_v.weight": (8, 16)}  # out x in


def _lora(path: Path, *, rank: int, alpha: float, seed: int, layers: tuple[str, ...] = LAYERS, lopsided: float = 1.0) -> Path:
    """Random factors; `lopsided` multiplies B and divides A by itself (the same update, other factors)."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for layer in layers:
        rows, columns = SHAPES[layer]
        tensors[f"{layer}.lora_a"] = (rng.normal(size=(rank, columns)) / lopsided).astype(np.float32)
        tensors[f"{layer}.lora_b"] = (rng.normal(size=(rows, rank)) * lopsided).astype(np.float32)
    return write_lora_file(tensors, path, alpha=alpha)


def _updates(path: Path) -> dict[str, np.ndarray]:
    """Each weight's update as llama.cpp applies it: (alpha / r) B A."""
    lora = read_lora_file(path)
    updates = {}
    for name, a in lora.tensors.items():
        if name.endswith(".lora_a"):
            layer = name.removesuffix(".lora_a")
            updates[layer] = (lora.alpha / a.shape[0]) * (lora.tensors[f"{layer}.lora_b"].astype(np.float64) @ a)
    return updates


def test_the_merged_update_is_the_weighted_sum_of_the_parts(tmp_path: Path) -> None:
    first = _lora(tmp_path / "first.gguf", rank=4, alpha=8, seed=1)
    second = _lora(tmp_path / "second.gguf", rank=2, alpha=16, seed=2)
    (tmp_path / "first.json").write_text(json.dumps({"command": "arkg tune --data a.jsonl"}), encoding="utf-8")
    result = merge_adapters([(first, 0.25), (second, 0.75)], tmp_path / "merged.gguf", command="arkg merge-adapters ...")
    assert result.rank == 6 and result.kept == 1.0
    merged, one, two = _updates(result.adapter), _updates(first), _updates(second)
    assert sorted(merged) == sorted(LAYERS)
    for layer in LAYERS:
        expected = 0.25 * one[layer] + 0.75 * two[layer]
        # float16 tensors: close to the sum, not bit for bit.
        assert np.allclose(merged[layer], expected, rtol=0, atol=1e-2 * np.abs(expected).max())
    provenance = json.loads(result.sidecar.read_text(encoding="utf-8"))
    assert result.sidecar == tmp_path / "merged.json"
    assert provenance["format"] == "arkg-merged-adapter/1" and provenance["rank"] == 6
    assert [(part["file"], part["weight"]) for part in provenance["parts"]] == [("first.gguf", 0.25), ("second.gguf", 0.75)]
    assert provenance["parts"][0]["provenance"] == {"command": "arkg tune --data a.jsonl"}
    assert provenance["parts"][1]["provenance"] is None  # no sidecar beside it
    assert all(len(part["sha256"]) == 64 for part in provenance["parts"])
    assert provenance["command"] == "arkg merge-adapters ..." and len(provenance["adapter"]["sha256"]) == 64


def test_a_lower_rank_keeps_the_best_approximation_of_the_sum_and_says_how_much_of_it(tmp_path: Path) -> None:
    first = _lora(tmp_path / "first.gguf", rank=4, alpha=8, seed=3)
    second = _lora(tmp_path / "second.gguf", rank=4, alpha=8, seed=4)
    result = merge_adapters([(first, 0.5), (second, 0.5)], tmp_path / "merged.gguf", rank=3)
    assert result.rank == 3
    merged = _updates(result.adapter)
    one, two = _updates(first), _updates(second)
    shares = []
    for layer in LAYERS:
        full = 0.5 * one[layer] + 0.5 * two[layer]
        singular = np.linalg.svd(full, compute_uv=False)
        shares.append(float(np.sum(singular[:3] ** 2) / np.sum(singular**2)))
        # Eckart-Young: the error of the best rank-3 approximation is the norm of the singular values left out.
        error = np.linalg.norm(merged[layer] - full)
        assert error == pytest.approx(np.sqrt(np.sum(singular[3:] ** 2)), rel=1e-2)
    assert result.kept == pytest.approx(min(shares), rel=1e-6) and result.kept < 1.0


def test_a_single_adapter_merged_at_weight_one_computes_what_it_did(tmp_path: Path) -> None:
    """Through peft and a tiny llama: alpha and rank folded into B leave the model's outputs unchanged."""
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    torch.manual_seed(0)
    base = LlamaForCausalLM(config).eval()

    def adapted(alpha: float, random: bool):
        lora = LoraConfig(r=4, lora_alpha=alpha, target_modules=list(LLAMA_LINEAR_LAYERS), init_lora_weights=not random)
        return get_peft_model(copy.deepcopy(base), lora).eval()

    written = adapted(8, random=True)
    path = export_adapter(written, tmp_path / "adapter.gguf", alpha=8, f16=False)
    merged = merge_adapters([(path, 1.0)], tmp_path / "merged.gguf").adapter
    reread = adapted(16, random=False)
    read_adapter(reread, merged, alpha=16)
    tokens = torch.tensor([[1, 5, 9, 2, 33, 7]])
    with torch.no_grad():
        assert torch.allclose(reread(tokens).logits, written(tokens).logits, atol=1e-3)


def test_a_part_s_sidecar_is_kept_unless_it_names_another_file(tmp_path: Path) -> None:
    part = _lora(tmp_path / "part.gguf", rank=2, alpha=4, seed=8)
    sidecar = tmp_path / "part.json"

    def recorded() -> object:
        merged = merge_adapters([(part, 1.0)], tmp_path / "merged.gguf").sidecar
        return json.loads(merged.read_text(encoding="utf-8"))["parts"][0]["provenance"]

    sidecar.write_text(json.dumps({"adapter": {"sha256": "0" * 64}, "command": "arkg tune --data old.jsonl"}), encoding="utf-8")
    assert recorded() is None  # a stale sidecar, left beside a file it does not describe
    own = {"adapter": {"sha256": hashlib.sha256(part.read_bytes()).hexdigest()}, "command": "arkg tune --data a.jsonl"}
    sidecar.write_text(json.dumps(own), encoding="utf-8")
    assert recorded() == own


def test_parts_that_cannot_be_merged_are_refused_by_name(tmp_path: Path) -> None:
    first = _lora(tmp_path / "first.gguf", rank=4, alpha=8, seed=5)
    fewer = _lora(tmp_path / "fewer.gguf", rank=4, alpha=8, seed=6, layers=LAYERS[:2])
    with pytest.raises(ModelError, match=r"fewer.gguf: adapts other weights than .*first.gguf \(blk\.1\.attn_v\.weight\)"):
        merge_adapters([(first, 0.5), (fewer, 0.5)], tmp_path / "merged.gguf")
    with pytest.raises(ModelError, match=r"missing.gguf: no such adapter file"):
        merge_adapters([(first, 0.5), (tmp_path / "missing.gguf", 0.5)], tmp_path / "merged.gguf")
    junk = tmp_path / "junk.gguf"
    junk.write_text("not gguf", encoding="utf-8")
    with pytest.raises(ModelError, match=r"junk.gguf: not a readable GGUF file"):
        merge_adapters([(first, 0.5), (junk, 0.5)], tmp_path / "merged.gguf")
    with pytest.raises(ModelError, match=r"first.gguf: weight nan is not a finite number"):
        merge_adapters([(first, float("nan"))], tmp_path / "merged.gguf")
    other = _lora(tmp_path / "other.gguf", rank=4, alpha=8, seed=7)
    (tmp_path / "other.json").write_text('{"command": ', encoding="utf-8")
    with pytest.raises(ModelError, match=r"other.json: not valid JSON \(line 1\)"):
        merge_adapters([(first, 0.5), (other, 0.5)], tmp_path / "merged.gguf")
    # Nothing was written by the refused merges.
    assert not (tmp_path / "merged.gguf").exists() and not (tmp_path / "merged.json").exists()


def test_the_command_weighs_adapters_equally_unless_told_and_refuses_half_given_weights(tmp_path: Path) -> None:
    first = _lora(tmp_path / "first.gguf", rank=2, alpha=2, seed=7)
    second = _lora(tmp_path / "second.gguf", rank=2, alpha=2, seed=8)
    out = tmp_path / "merged.gguf"
    runner = CliRunner()
    result = runner.invoke(app, ["merge-adapters", str(first), str(second), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Merged 2 adapters at rank 4 (exact)" in result.output
    assert [part["weight"] for part in json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["parts"]] == [0.5, 0.5]
    result = runner.invoke(app, ["merge-adapters", f"{first}=0.2", f"{second}=0.8", "--out", str(out), "--rank", "1"])
    assert result.exit_code == 0, result.output
    assert "at rank 1 (" in result.output and "of the update kept" in result.output
    assert [part["weight"] for part in json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["parts"]] == [0.2, 0.8]
    result = runner.invoke(app, ["merge-adapters", f"{first}=0.2", str(second), "--out", str(out)])
    assert result.exit_code != 0 and "give every adapter a weight" in result.output


def test_a_negative_weight_subtracts_so_two_runs_increments_add_onto_their_common_start(tmp_path: Path) -> None:
    """start + (one - start) + (two - start), as `one=1 two=1 start=-1` on the command line."""
    start = _lora(tmp_path / "start.gguf", rank=2, alpha=2, seed=3)
    one = _lora(tmp_path / "one.gguf", rank=2, alpha=2, seed=4)
    two = _lora(tmp_path / "two.gguf", rank=2, alpha=2, seed=5)
    out = tmp_path / "sum.gguf"
    result = CliRunner().invoke(app, ["merge-adapters", f"{one}=1", f"{two}=1", f"{start}=-1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    merged, parts = _updates(out), [_updates(path) for path in (start, one, two)]
    for layer in LAYERS:
        expected = parts[0][layer] + (parts[1][layer] - parts[0][layer]) + (parts[2][layer] - parts[0][layer])
        assert np.allclose(merged[layer], expected, rtol=0, atol=1e-2 * np.abs(expected).max())
    assert [part["weight"] for part in json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["parts"]] == [1, 1, -1]


def test_a_huge_weight_is_refused_in_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    first = _lora(tmp_path / "first.gguf", rank=2, alpha=2, seed=1)
    second = _lora(tmp_path / "second.gguf", rank=2, alpha=2, seed=2)
    out = tmp_path / "merged.gguf"
    result = CliRunner().invoke(app, ["merge-adapters", f"{first}=1e39", f"{second}=1", "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: {first}: weight 1e+39 is past ±100; adapters are mixed with weights of about -1 to 1"
    assert not out.exists() and not out.with_suffix(".json").exists()


def test_a_merge_whose_values_pass_the_range_of_float16_is_refused(tmp_path: Path) -> None:
    """A part's B of order 1e5 (its A of 1e-5: a modest update) passes 65,504, where float16 holds only infinity."""
    first = _lora(tmp_path / "first.gguf", rank=2, alpha=2, seed=1, lopsided=1e5)
    second = _lora(tmp_path / "second.gguf", rank=2, alpha=2, seed=2)
    out = tmp_path / "merged.gguf"
    refusal = r"merged.gguf: not written: tensor blk\.\d\.\w+\.weight\.lora_b would hold [\d,]+ values \(of [\d,]+\) that are NaN or beyond"
    with pytest.raises(ModelError, match=refusal + " the range of float16"):
        merge_adapters([(first, 0.5), (second, 0.5)], out)
    assert not out.exists() and not out.with_suffix(".json").exists()
    assert [path.name for path in tmp_path.iterdir() if "merged" in path.name] == []  # no partial file either
