"""A LoRA adapter is checked before llama.cpp loads it: one with NaN or infinite values, an update too
large for llama.cpp's arithmetic, or tensors that do not fit the base model, is refused by file and
tensor name instead of crashing the process."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import gguf
import numpy as np
import pytest

from arkg.data import tuned_adapter_path
from arkg.errors import ModelError
from arkg.llm import open_model
from arkg.tune.adapter_file import write_lora_file

# Weights of the bundled SmolLM2-135M (rows x columns): hidden width 576, 3 key-value heads of 64, MLP 1536.
Q, K, DOWN = "blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.ffn_down.weight"


def _poke(path: Path, tensor: str | None = None, alpha: float | None = None) -> Path:
    """Overwrite, in the file, the first value of `tensor` with NaN, or the adapter's alpha."""
    reader = gguf.GGUFReader(path, "r+")
    if tensor is not None:
        next(entry for entry in reader.tensors if entry.name == tensor).data.flat[0] = math.nan
    if alpha is not None:
        reader.fields["adapter.lora.alpha"].parts[-1][0] = alpha
    reader.data.flush()
    return path


def _shipped_copy(tmp_path: Path) -> Path:
    return Path(shutil.copyfile(tuned_adapter_path("tuned"), tmp_path / "adapter.gguf"))


def test_an_adapter_with_a_nan_is_refused_in_one_line_by_the_command_and_nothing_crashes(tmp_path: Path) -> None:
    adapter = _poke(_shipped_copy(tmp_path), tensor="blk.7.ffn_up.weight.lora_b")
    done = subprocess.run(
        [sys.executable, "-c", "from arkg.cli import main; main()", "ask", "Was Pierre Curie born in Poland?", "--model", f"llamacpp:+{adapter}"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**os.environ, "ARKG_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "400"},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.splitlines() == [
        f"Error: {adapter}: tensor blk.7.ffn_up.weight.lora_b holds 1 NaN or infinite values (of 12,288);"
        " llama.cpp cannot run a model with it"
    ]
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("alpha", "reason"),
    [
        (math.inf, r"adapter.lora.alpha is inf, not a finite number"),
        # Finite values, but a scale alpha / r of 1.25e11: llama.cpp's float16 products overflow into NaN.
        (1e12, r"its update of blk\.\d+\.\w+\.weight, \(alpha / r\) B A, changes values by up to [\d.]+e\+\d+; llama.cpp cannot run"),
    ],
)
def test_an_adapter_with_an_absurd_alpha_is_refused(tmp_path: Path, alpha: float, reason: str) -> None:
    adapter = _poke(_shipped_copy(tmp_path), alpha=alpha)
    with pytest.raises(ModelError, match=f"adapter.gguf: {reason}"):
        open_model(f"llamacpp:+{adapter}", cache=False)


def _pair(rows: int, columns: int, rank: int = 2, b_rank: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Finite LoRA factors for a weight of rows x columns: A (rank x columns), B (rows x rank)."""
    return np.full((rank, columns), 0.01, np.float32), np.full((rows, b_rank or rank), 0.01, np.float32)


@pytest.mark.parametrize(
    ("tensors", "reason"),
    [
        (
            {K: _pair(192, 576), Q: _pair(576, 512)},
            r"tensor blk\.0\.attn_q\.weight\.lora_a is 2 x 512, but for blk\.0\.attn_q\.weight of SmolLM2-135M-Instruct\.Q4_1\.gguf"
            r" \(576 x 576\) it must be 2 x 576: an adapter made for another model\?",
        ),
        (
            {K: _pair(576, 576)},
            r"tensor blk\.0\.attn_k\.weight\.lora_b is 576 x 2, but for blk\.0\.attn_k\.weight .* \(192 x 576\) it must be 192 x 2",
        ),
        ({DOWN: _pair(576, 1536, rank=4, b_rank=2)}, r"tensor blk\.0\.ffn_down\.weight\.lora_b is 576 x 2, but .* it must be 576 x 4"),
        (
            {"blk.30.attn_q.weight": _pair(576, 576)},
            r"tensor blk\.30\.attn_q\.weight\.lora_a adapts blk\.30\.attn_q\.weight, which SmolLM2-135M-Instruct\.Q4_1\.gguf does not have",
        ),
        ({Q: _pair(576, 576)[:1]}, r"tensor blk\.0\.attn_q\.weight\.lora_a has no \.lora_b partner"),
    ],
    ids=["input-width", "output-height", "ranks-differ", "no-such-weight", "lone-factor"],
)
def test_an_adapter_that_does_not_fit_the_base_model_is_refused_by_tensor(tmp_path: Path, tensors: dict, reason: str) -> None:  # type: ignore[type-arg]
    named = {f"{weight}{suffix}": array for weight, pair in tensors.items() for suffix, array in zip((".lora_a", ".lora_b"), pair)}
    adapter = write_lora_file(named, tmp_path / "other.gguf", alpha=4)
    with pytest.raises(ModelError, match=f"^{re.escape(str(adapter))}: {reason}"):
        open_model(f"llamacpp:+{adapter}", cache=False)


def test_checking_an_adapter_of_the_shipped_size_takes_a_fraction_of_a_second() -> None:
    """Every value of its 4.9 MB is read, and the base model's tensor directory (not its 98 MB)."""
    from arkg.llm.bundled import bundled_model_path
    from arkg.llm.lora_file import check_adapter

    started = time.perf_counter()
    check_adapter(tuned_adapter_path("tuned"), bundled_model_path())
    assert time.perf_counter() - started < 2.0
