"""Training under bfloat16 autocast (`arkg tune --precision`): it engages, records itself, and learns
what float32 learns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from arkg.tune import Precision, TuneOptions, tune

from tune_pairs import write_pairs

pytestmark = pytest.mark.slow

# Two steps of four examples on the last two blocks, at a learning rate that moves the loss in a step.
OPTIONS = TuneOptions(max_steps=2, batch_size=4, layers=2, save_every=5, warmup_steps=0, learning_rate=3e-3)


def _run(data: Path, out: Path, precision: Precision) -> dict:
    done = tune(data, out, OPTIONS.model_copy(update={"precision": precision}), threads=1)
    assert done.finished and done.sidecar is not None
    return json.loads(done.sidecar.read_text(encoding="utf-8"))


def test_bfloat16_autocast_computes_the_step_and_learns_as_float32_does(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "pairs.jsonl")
    full = _run(data, tmp_path / "float32", Precision.FLOAT32)
    half = _run(data, tmp_path / "bfloat16", Precision.BFLOAT16)
    # Training runs where torch can: the GPU when there is one.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    assert full["device"] == device and half["device"] == f"{device}, bf16 autocast"
    assert full["options"]["precision"] == "float32" and half["options"]["precision"] == "bfloat16"
    (full_first, full_second), (half_first, half_second) = full["loss_by_step"].values(), half["loss_by_step"].values()
    # The same batch, other arithmetic: a loss that differs (autocast did engage) by little.
    assert half_first != full_first
    assert half_first == pytest.approx(full_first, rel=0.05)
    # And the step learnt: both losses fall, by about as much.
    assert half_second < half_first and full_second < full_first
    assert half_first - half_second == pytest.approx(full_first - full_second, rel=0.5)
