"""The model to tune: a GGUF file's weights, dequantized by transformers' GGUF loader.

The bundled SmolLM2-135M-Instruct exists offline only as a Q4_1 GGUF, so its weights are read from
there (about 0.5 GB as float32); the tokenizer and chat template come from the same file. Requires
the `train` extra.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.bundled import bundled_model_path
from arkg.tune.deps import require_train_extra


@dataclass
class TunableModel:
    path: Path
    model: Any  # transformers' LlamaForCausalLM (or another causal LM the loader supports)
    tokenizer: Any


def load_base(gguf_path: str | Path | None = None) -> TunableModel:
    """Load a GGUF model (the bundled one when None) as a float32 transformers model on the CPU."""
    require_train_extra()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    from transformers.utils import logging as transformers_logging

    path = Path(gguf_path).expanduser() if gguf_path is not None else bundled_model_path()
    if not path.is_file():
        raise ModelError(f"Model file not found: {path}")
    transformers_logging.disable_progress_bar()
    try:
        # The loader's progress bars (tqdm, on stderr) would draw over the caller's display; failures
        # still arrive as exceptions.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
            model = AutoModelForCausalLM.from_pretrained(
                str(path.parent),
                gguf_file=path.name,
                dtype=torch.float32,
                # Plain float weights: a model whose weights stay in GGUF blocks cannot be trained.
                quantization_config=GgufConfig(gguf_file=path.name, dequantize=True),
            )
    except (ValueError, OSError, KeyError) as error:
        raise ModelError(f"Could not load {path} for tuning (transformers' GGUF loader): {error}") from error
    if model.config.model_type != "llama":
        raise ModelError(
            f"{path}: tuning supports llama-architecture models (the adapter is exported with llama's tensor"
            f" names), not {model.config.model_type!r}"
        )
    return TunableModel(path=path, model=model, tokenizer=tokenizer)
