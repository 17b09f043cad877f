"""LoRA fine-tuning of the bundled model on training pairs, exported for llama.cpp (`arkg tune`).

Needs the `train` extra (torch, transformers, peft, gguf); importing this package does not import
them, and every entry point raises TrainExtraMissing, naming the extra, when they are absent.

    from arkg.tune import TuneOptions, tune
    result = tune("pairs.jsonl", "runs/tune", TuneOptions(max_steps=200))
    LlamaCppModel(lora_path=result.adapter)
    merge_adapters([(Path("a.gguf"), 0.6), (Path("b.gguf"), 0.4)], Path("merged.gguf"), rank=8)
"""

from arkg.tune.data import Pair, TrainingDataError, read_pairs
from arkg.tune.deps import TrainExtraMissing, require_train_extra
from arkg.tune.merge import MergeResult, merge_adapters
from arkg.tune.options import Precision, TuneOptions
from arkg.tune.run import Phase, TuneError, TuneResult, tune
from arkg.tune.train import StepProgress

__all__ = [
    "MergeResult",
    "Pair",
    "Phase",
    "Precision",
    "StepProgress",
    "TrainExtraMissing",
    "TrainingDataError",
    "TuneError",
    "TuneOptions",
    "TuneResult",
    "merge_adapters",
    "read_pairs",
    "require_train_extra",
    "tune",
]
