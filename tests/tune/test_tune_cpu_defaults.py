"""What `arkg tune` does by default on a CPU to train faster: the last CPU_LAYERS blocks trained (the
blocks below an adapter started from kept as it has them), and the frozen linear weights stored in
bfloat16 under autocast, which computes the same products as casting them at every pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

from arkg.tune import TuneOptions, tune
from arkg.tune.adapter_file import adapted_blocks, read_lora_file
from arkg.tune.data import IGNORED
from arkg.tune.options import CPU_LAYERS, LLAMA_LINEAR_LAYERS, device_defaults
from arkg.tune.train import freeze_blocks_below, frozen_weights_to_bf16, reply_loss

from tune_pairs import write_pairs

TINY = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2)


def _tiny_adapted(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    lora = LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=list(LLAMA_LINEAR_LAYERS), init_lora_weights=False)
    return get_peft_model(LlamaForCausalLM(TINY), lora)


def _batch() -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
    inputs = {"input_ids": torch.tensor([[1, 5, 9, 2, 33, 7], [1, 8, 4, 6, 0, 0]]), "attention_mask": torch.tensor([[1] * 6, [1, 1, 1, 1, 0, 0]])}
    labels = torch.tensor([[IGNORED, IGNORED, IGNORED, 2, 33, 7], [IGNORED, IGNORED, 4, 6, IGNORED, IGNORED]])
    return inputs, labels, torch.tensor([[0.0, 0.0, 0.0, 1.0, 5.0, 1.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]])


def _loss_and_gradients(model: torch.nn.Module) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss, _ = reply_loss(model, *_batch())
    loss.backward()
    return loss.detach(), {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}


def test_a_cpu_trains_the_last_blocks_by_default_and_a_gpu_every_block() -> None:
    assert device_defaults(TuneOptions(), cuda=False, blocks=30).layers == CPU_LAYERS
    assert device_defaults(TuneOptions(), cuda=True, blocks=30).layers is None
    assert device_defaults(TuneOptions(), cuda=False, blocks=2).layers == 2  # a smaller model: all of it
    # Asked for explicitly, the blocks are the same anywhere.
    assert device_defaults(TuneOptions(layers=30), cuda=False, blocks=30).layers == 30
    assert device_defaults(TuneOptions(layers=4), cuda=True, blocks=30).layers == 4


def test_bfloat16_frozen_weights_give_autocast_s_loss_and_gradients_bit_for_bit() -> None:
    cast_each_pass, stored = _tiny_adapted(), _tiny_adapted()
    frozen_weights_to_bf16(stored)
    decoder = stored.get_base_model().get_decoder()
    assert decoder.layers[0].self_attn.q_proj.base_layer.weight.dtype == torch.bfloat16
    assert decoder.layers[0].mlp.down_proj.base_layer.weight.dtype == torch.bfloat16
    # What trains, and what autocast keeps in float32, stays float32.
    assert decoder.layers[0].self_attn.q_proj.lora_A["default"].weight.dtype == torch.float32
    assert decoder.layers[0].input_layernorm.weight.dtype == torch.float32
    assert decoder.embed_tokens.weight.dtype == torch.float32
    (loss, gradients), (expected_loss, expected) = _loss_and_gradients(stored), _loss_and_gradients(cast_each_pass)
    assert torch.equal(loss, expected_loss)
    assert gradients.keys() == expected.keys() and len(gradients) == 3 * 7 * 2
    assert all(torch.equal(gradients[name], expected[name]) for name in expected)


def test_blocks_below_the_trained_ones_keep_their_lora_weights_and_take_no_gradient() -> None:
    model = _tiny_adapted()
    model.get_base_model().get_decoder().layers[0].self_attn.q_proj.lora_dropout["default"] = torch.nn.Dropout(0.5)
    freeze_blocks_below(model, 2)
    lower = model.get_base_model().get_decoder().layers[0].self_attn.q_proj
    assert isinstance(lower.lora_dropout["default"], torch.nn.Identity)
    _, gradients = _loss_and_gradients(model)
    assert {int(name.split(".layers.")[1].split(".")[0]) for name in gradients} == {2}
    assert not any(p.requires_grad for name, p in model.named_parameters() if ".layers.0." in name or ".layers.1." in name)


@pytest.mark.slow
def test_tuning_further_on_a_cpu_trains_the_last_blocks_and_exports_every_block_of_the_start(tmp_path: Path) -> None:
    """A CPU run with no --layers trains the last CPU_LAYERS blocks; tuning its adapter further on the last
    two (stopped and resumed on the way) changes those two alone and exports all the start's blocks."""
    data = write_pairs(tmp_path / "pairs.jsonl")
    options = TuneOptions(max_steps=1, batch_size=4, save_every=1, warmup_steps=0, learning_rate=3e-3)
    first = tune(data, tmp_path / "first", options, threads=1)
    assert first.adapter is not None
    blocks = adapted_blocks(first.adapter)
    assert blocks == set(range(30 - CPU_LAYERS, 30))

    further = options.model_copy(update={"layers": 2, "max_steps": 2})
    stopped = tune(data, tmp_path / "further", further, from_adapter=first.adapter, threads=1, should_stop=lambda: True)
    assert not stopped.finished and stopped.steps == 1
    done = tune(data, tmp_path / "further", further, from_adapter=first.adapter, threads=1)
    assert done.finished and done.resumed_from == 1 and done.adapter is not None
    start, end = read_lora_file(first.adapter).tensors, read_lora_file(done.adapter).tensors
    assert start.keys() == end.keys()
    moved = {int(name.split(".")[1]) for name in start if not np.array_equal(start[name], end[name])}
    assert moved == {28, 29}
