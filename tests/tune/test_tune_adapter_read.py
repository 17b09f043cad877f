"""An adapter file read back into peft is the adapter that was written, or a clear refusal."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

from arkg.errors import ModelError
from arkg.tune.adapter_file import export_adapter, read_adapter
from arkg.tune.options import LLAMA_LINEAR_LAYERS

# A llama small enough to build in milliseconds, with grouped-query attention like SmolLM2's (the
# query and key rows are reordered for llama.cpp with different head counts).
TINY = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2)
TOKENS = torch.tensor([[1, 5, 9, 2, 33, 7]])


@pytest.fixture(scope="module")
def base() -> LlamaForCausalLM:
    torch.manual_seed(0)
    return LlamaForCausalLM(TINY).eval()


def _adapted(base: LlamaForCausalLM, *, rank: int = 4, layers: list[int] | None = None, random: bool = False):
    config = LoraConfig(
        r=rank, lora_alpha=8, target_modules=list(LLAMA_LINEAR_LAYERS), layers_to_transform=layers, init_lora_weights=not random
    )
    return get_peft_model(copy.deepcopy(base), config).eval()


def test_read_back_the_model_computes_what_was_written(base: LlamaForCausalLM, tmp_path: Path) -> None:
    torch.manual_seed(1)
    written = _adapted(base, random=True)
    path = export_adapter(written, tmp_path / "adapter.gguf", alpha=8, f16=False)
    fresh = _adapted(base)
    with torch.no_grad():
        assert not torch.allclose(fresh(TOKENS).logits, written(TOKENS).logits)
        read_adapter(fresh, path, alpha=8)
        assert torch.allclose(fresh(TOKENS).logits, written(TOKENS).logits, atol=1e-5)


def test_an_adapter_written_with_another_alpha_is_rescaled(base: LlamaForCausalLM, tmp_path: Path) -> None:
    torch.manual_seed(2)
    written = _adapted(base, random=True)
    path = export_adapter(written, tmp_path / "adapter.gguf", alpha=8, f16=False)
    # Read under alpha 16: the same update (alpha / r) B A needs B halved.
    doubled = get_peft_model(copy.deepcopy(base), LoraConfig(r=4, lora_alpha=16, target_modules=list(LLAMA_LINEAR_LAYERS))).eval()
    read_adapter(doubled, path, alpha=16)
    with torch.no_grad():
        assert torch.allclose(doubled(TOKENS).logits, written(TOKENS).logits, atol=1e-5)


def test_another_rank_or_other_layers_are_refused_by_name(base: LlamaForCausalLM, tmp_path: Path) -> None:
    path = export_adapter(_adapted(base, random=True), tmp_path / "adapter.gguf", alpha=8)
    with pytest.raises(ModelError, match=r"adapter.gguf: blk\.0\.attn_q has LoRA shapes \(4, 32\).*tune at the file's rank"):
        read_adapter(_adapted(base, rank=8), path, alpha=8)
    with pytest.raises(ModelError, match=r"adapts layers this run does not \(blk\.0\."):
        read_adapter(_adapted(base, layers=[1, 2]), path, alpha=8)
    upper = export_adapter(_adapted(base, layers=[2], random=True), tmp_path / "upper.gguf", alpha=8)
    with pytest.raises(ModelError, match=r"upper.gguf: no LoRA tensors for blk\.0\.attn_q, which this run adapts"):
        read_adapter(_adapted(base), upper, alpha=8)


def test_a_file_that_is_no_lora_adapter_is_refused(base: LlamaForCausalLM, tmp_path: Path) -> None:
    from arkg.llm.bundled import bundled_model_path

    with pytest.raises(ModelError, match=r"SmolLM2.*not a LoRA adapter \(general.type is 'model'\)"):
        read_adapter(_adapted(base), bundled_model_path(), alpha=8)
    junk = tmp_path / "junk.gguf"
    junk.write_text("not gguf", encoding="utf-8")
    with pytest.raises(ModelError, match=r"junk.gguf: not a readable GGUF file"):
        read_adapter(_adapted(base), junk, alpha=8)
