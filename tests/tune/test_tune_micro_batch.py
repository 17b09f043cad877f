"""Micro-batches (`arkg tune --micro-batch-size`): a step split into several forward passes is the same
step in less memory, so a run may resume with another micro-batch size."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arkg.tune import Precision, TuneError, TuneOptions, tune
from arkg.tune.adapter_file import read_lora_file

from tune_pairs import write_pairs

pytestmark = pytest.mark.slow

# Two steps of four examples on the last two blocks; no dropout and float32, so that the passes differ
# only in how the arithmetic is grouped.
OPTIONS = TuneOptions(
    max_steps=2, batch_size=4, layers=2, save_every=5, warmup_steps=0, learning_rate=3e-3, dropout=0.0, precision=Precision.FLOAT32
)


def _sidecar(out: Path) -> dict:
    return json.loads((out / "adapter.json").read_text(encoding="utf-8"))


def _assert_same_adapter(a: Path, b: Path) -> None:
    first, second = read_lora_file(a / "adapter.gguf"), read_lora_file(b / "adapter.gguf")
    assert first.tensors.keys() == second.tensors.keys()
    for name, tensor in first.tensors.items():
        # Adam's step divides by the gradient's size, so an entry whose gradient is near zero turns
        # rounding into up to a learning rate's worth of difference. All but a rare such entry agree
        # within 1e-4, and none is off by more than the learning rate (a wrong step moves most entries).
        off = np.abs(second.tensors[name] - tensor)
        beyond = off > 1e-4 + 1e-3 * np.abs(tensor)
        assert beyond.mean() <= 1e-3, f"{name}: {beyond.sum()} of {tensor.size} entries differ"
        assert off.max() <= OPTIONS.learning_rate, f"{name}: an entry differs by {off.max():.3g}"
    # And the update moved away from the start (B starts at zero): the comparison is not of two blanks.
    assert any(np.abs(tensor).max() > 1e-4 for name, tensor in first.tensors.items() if "lora_b" in name)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data, and a run of it in whole batches: the run the others must reproduce."""
    folder = tmp_path_factory.mktemp("micro")
    done = tune(write_pairs(folder / "pairs.jsonl"), folder / "whole", OPTIONS, threads=1)
    assert done.finished and done.drawn == 8
    return folder


def test_the_seed_fixes_a_fresh_adapter_even_after_another_run_in_the_same_process(whole: Path, tmp_path: Path) -> None:
    assert tune(whole / "pairs.jsonl", tmp_path / "again", OPTIONS, threads=1).finished
    _assert_same_adapter(whole / "whole", tmp_path / "again")


def test_a_step_in_micro_batches_is_the_step_of_the_whole_batch(whole: Path, tmp_path: Path) -> None:
    split = tune(whole / "pairs.jsonl", tmp_path / "split", OPTIONS, threads=1, micro_batch_size=1)
    assert split.finished and split.drawn == 8
    whole_meta, split_meta = _sidecar(whole / "whole"), _sidecar(tmp_path / "split")
    assert (whole_meta["micro_batch_size"], split_meta["micro_batch_size"]) == (4, 1)
    # The logged loss of a step is the weighted mean over its four examples either way.
    assert list(split_meta["loss_by_step"].values()) == pytest.approx(list(whole_meta["loss_by_step"].values()), rel=1e-4)
    _assert_same_adapter(whole / "whole", tmp_path / "split")


def test_a_run_stopped_with_whole_batches_resumes_in_micro_batches(whole: Path, tmp_path: Path) -> None:
    stopped = tune(whole / "pairs.jsonl", tmp_path / "resumed", OPTIONS, threads=1, should_stop=lambda: True)
    assert not stopped.finished and stopped.steps == 1
    resumed = tune(whole / "pairs.jsonl", tmp_path / "resumed", OPTIONS, threads=1, micro_batch_size=2)
    assert resumed.finished and resumed.resumed_from == 1
    _assert_same_adapter(whole / "whole", tmp_path / "resumed")


def test_a_micro_batch_that_does_not_divide_the_batch_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    data = write_pairs(tmp_path / "pairs.jsonl")
    with pytest.raises(TuneError, match=r"micro_batch_size=3 does not divide batch_size=4"):
        tune(data, tmp_path / "run", OPTIONS, micro_batch_size=3)
    assert not (tmp_path / "run").exists()
