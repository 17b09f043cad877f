"""Tuning never exports an adapter llama.cpp cannot run (NaN or infinite values, or an update that
overflows): absurd learning rates are refused before anything runs, and a run whose loss or weights
stop being finite, or whose update is too large, ends with one error line, exporting nothing."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from typer.testing import CliRunner

from arkg.cli import app
from arkg.llm.bundled import bundled_model_path
from arkg.tune import base, train

from tune_pairs import write_pairs


@pytest.fixture
def tiny_base(monkeypatch: pytest.MonkeyPatch, tokenizer) -> None:  # type: ignore[no-untyped-def]
    """Tuning loads a llama of two blocks of width 32 (the bundled model's tokenizer and vocabulary)
    instead of the bundled model: steps of milliseconds, the same code path."""
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2
    )

    def load(path: object = None) -> base.TunableModel:
        torch.manual_seed(0)
        return base.TunableModel(path=bundled_model_path(), model=LlamaForCausalLM(config), tokenizer=tokenizer)

    monkeypatch.setattr(base, "load_base", load)


def _tune(tmp_path: Path, *options: str):  # type: ignore[no-untyped-def]
    data = write_pairs(tmp_path / "pairs.jsonl")
    arguments = ["tune", "--data", str(data), "--out", str(tmp_path / "run"), "--max-steps", "4", "--warmup-steps", "0"]
    return CliRunner().invoke(app, [*arguments, "--rank", "2", "--batch-size", "4", "--threads", "1", *options])


def _error_line(output: str) -> str:
    """The one error line of a command's output (which has no traceback)."""
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in output, output
    return errors[0]


@pytest.mark.parametrize(
    ("rate", "reason"),
    [
        ("inf", "--lr inf: Input should be a finite number"),
        ("nan", "--lr nan: Input should be a finite number"),
        ("1e30", "--lr 1e+30: Input should be less than or equal to 1"),
        ("-1e-3", "--lr -0.001: Input should be greater than 0"),
    ],
)
def test_a_learning_rate_that_is_not_finite_positive_and_at_most_one_is_refused_before_anything_runs(
    tmp_path: Path, rate: str, reason: str
) -> None:
    result = _tune(tmp_path, "--lr", rate)
    assert result.exit_code == 1
    assert _error_line(result.output) == f"Error: {reason}"
    assert not (tmp_path / "run").exists()


def test_a_run_whose_weights_diverge_stops_with_one_error_line_and_exports_nothing(tmp_path: Path, tiny_base: None) -> None:
    """A LoRA scale (alpha / rank) of 5e11 sends the weights to infinity within a few steps."""
    # float32: under bfloat16 autocast (auto picks it on AVX512-BF16 and AMX CPUs) the products stay finite.
    result = _tune(tmp_path, "--alpha", "1e12", "--lr", "1e-2", "--precision", "float32")
    assert result.exit_code == 1
    line = _error_line(result.output)
    assert line.startswith("Error: Training diverged at step ") and "the weight model.layers." in line
    assert "holds NaN or infinite values. Nothing was exported; tune again with a lower learning rate than 0.01" in line
    assert sorted(path.name for path in (tmp_path / "run").iterdir()) == ["checkpoints", "run.json"]


def test_a_run_whose_loss_turns_nan_stops_at_that_step(tmp_path: Path, tiny_base: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Trainer would log a NaN loss as the mean of the losses before it, and train on with NaN weights."""
    real, batches = train.weighted_loss, itertools.count(1)

    def nan_from_the_third_batch(*args, **kwargs):  # type: ignore[no-untyped-def]
        loss = real(*args, **kwargs)
        return loss * math.nan if next(batches) >= 3 else loss

    monkeypatch.setattr(train, "weighted_loss", nan_from_the_third_batch)
    result = _tune(tmp_path)
    assert result.exit_code == 1
    assert _error_line(result.output).startswith("Error: Training diverged at step 3: the loss is nan. Nothing was exported")
    assert not (tmp_path / "run" / "adapter.gguf").exists()


def test_a_run_whose_update_is_too_large_for_llama_cpp_exports_nothing(tmp_path: Path, tiny_base: None) -> None:
    """Finite weights and losses, but a LoRA scale (alpha / rank) of 5e7 makes the update of a weight reach
    thousands; llama.cpp's float16 products would overflow on it."""
    # One step: the forward passes see B = 0, so training stays finite however large the scale; the step then
    # makes the update huge.
    result = _tune(tmp_path, "--alpha", "1e8", "--lr", "1e-3", "--max-steps", "1")
    assert result.exit_code == 1
    line = _error_line(result.output)
    assert line.startswith(f"Error: {tmp_path / 'run' / 'adapter.gguf'}: not written: its update of blk.0.attn_q.weight, (alpha / r) B A,")
    assert sorted(path.name for path in (tmp_path / "run").iterdir()) == ["checkpoints", "run.json"]


def test_a_run_whose_adapter_llama_cpp_cannot_run_exports_nothing_and_says_why(
    tmp_path: Path, tiny_base: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exported file is run in llama.cpp before it moves into place (tests/llm/test_llm_adapter_runs.py
    runs the real check on an adapter whose activations overflow); here the check's verdict is given, since
    the tiny base's adapter does not fit the bundled model."""
    import arkg.llm.llamacpp

    checked: list[tuple[str, Path | None]] = []

    def cannot_run(adapter: Path, base: Path | None = None) -> str:
        checked.append((adapter.name, base))
        return "run on the base, it gives 49,152 NaN or infinite logits (of 49,152) for a short prompt"

    monkeypatch.setattr(arkg.llm.llamacpp, "adapter_run_failure", cannot_run)
    result = _tune(tmp_path, "--lr", "1e-3", "--max-steps", "1")
    assert result.exit_code == 1
    assert _error_line(result.output) == (
        f"Error: {tmp_path / 'run' / 'adapter.gguf'}: not written: run on the base, it gives 49,152 NaN or infinite logits"
        " (of 49,152) for a short prompt. Nothing was exported; tune again with a lower --lr (and --restart)"
    )
    assert checked == [(".adapter.gguf.partial", bundled_model_path())]
    assert sorted(path.name for path in (tmp_path / "run").iterdir()) == ["checkpoints", "run.json"]
