"""Training under bfloat16 autocast (`arkg tune --precision`): it engages, records itself, and learns
what float32 learns. One step each: autocast has no native bfloat16 to run on in a CPU without it, where
a step takes about three times as long as in float32."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from arkg.tune import Precision, TuneOptions, tune
from arkg.tune.adapter_file import read_lora_file

from tune_pairs import write_pairs

pytestmark = pytest.mark.slow

# One step of four examples on the last two blocks.
OPTIONS = TuneOptions(max_steps=1, batch_size=4, layers=2, save_every=5, warmup_steps=0, learning_rate=3e-3)


def _run(data: Path, out: Path, precision: Precision) -> tuple[dict, np.ndarray]:
    """The run's sidecar, and its step: every lora_b of the adapter (a fresh adapter's lora_b is zero)."""
    done = tune(data, out, OPTIONS.model_copy(update={"precision": precision}), threads=1)
    assert done.finished and done.sidecar is not None and done.adapter is not None
    tensors = read_lora_file(done.adapter).tensors
    step = np.concatenate([tensors[name].ravel() for name in sorted(tensors) if name.endswith("lora_b")])
    return json.loads(done.sidecar.read_text(encoding="utf-8")), step


def test_bfloat16_autocast_computes_the_step_and_learns_as_float32_does(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "pairs.jsonl")
    (full, full_step), (half, half_step) = _run(data, tmp_path / "float32", Precision.FLOAT32), _run(data, tmp_path / "bfloat16", Precision.BFLOAT16)
    # Training runs where torch can: the GPU when there is one.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    assert full["device"] == device and half["device"] == f"{device}, bf16 autocast"
    assert full["options"]["precision"] == "float32" and half["options"]["precision"] == "bfloat16"
    # The same batch, other arithmetic: a loss that differs (autocast did engage) by little.
    (full_loss,), (half_loss,) = full["loss_by_step"].values(), half["loss_by_step"].values()
    assert half_loss != full_loss
    assert half_loss == pytest.approx(full_loss, rel=0.05)
    # And the same step: about the learning rate per weight (Adam's first step), in nearly the same direction.
    assert np.abs(full_step).mean() == pytest.approx(OPTIONS.learning_rate, rel=0.2)
    assert np.abs(half_step).mean() == pytest.approx(OPTIONS.learning_rate, rel=0.2)
    cosine = float(full_step @ half_step / (np.linalg.norm(full_step) * np.linalg.norm(half_step)))
    assert cosine > 0.9
