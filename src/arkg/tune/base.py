"""The model to tune: a GGUF file's weights, dequantized by transformers' GGUF loader.

The bundled SmolLM2-135M-Instruct exists offline only as a Q4_1 GGUF, so its weights are read from
there (about 0.5 GB as float32); the tokenizer and chat template come from the same file. Requires
the `train` extra.

The GGUF loader takes about 40 s on two cores for this 93 MB file (it parses the file three times), so
the first load saves the float32 model and its tokenizer in transformers' own format under arkg's cache
folder (tune-base/), named by the GGUF's SHA-256 and the transformers version, and later loads read
that copy in about a second. Deleting the folder costs only the next load's 40 s.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.bundled import bundled_model_path
from arkg.llm.file_digest import file_sha256
from arkg.paths import user_cache_dir
from arkg.tune.deps import require_train_extra


@dataclass
class TunableModel:
    path: Path
    model: Any  # transformers' LlamaForCausalLM (or another causal LM the loader supports)
    tokenizer: Any


def load_base(gguf_path: str | Path | None = None, *, cache: bool = True) -> TunableModel:
    """Load a GGUF model (the bundled one when None) as a float32 transformers model on the CPU; with
    `cache`, from the copy an earlier load saved (see the module's note), saving one when there is none."""
    require_train_extra()
    path = Path(gguf_path).expanduser() if gguf_path is not None else bundled_model_path()
    if not path.is_file():
        raise ModelError(f"Model file not found: {path}")
    saved = saved_copy_folder(path) if cache else None
    if saved is not None and saved.is_dir():
        try:
            return _checked(path, *_quietly(_read, saved))
        except Exception:  # noqa: BLE001 - a damaged copy fails in many ways (safetensors, JSON, files); the GGUF decides
            shutil.rmtree(saved, ignore_errors=True)  # made again from the GGUF below
    try:
        base = _checked(path, *_quietly(_read, path.parent, path.name))
    except (ValueError, OSError, KeyError) as error:
        raise ModelError(f"Could not load {path} for tuning (transformers' GGUF loader): {error}") from error
    if saved is not None:
        _save(base, saved)
    return base


def saved_copy_folder(gguf_path: Path) -> Path:
    """Where load_base keeps the float32 copy of `gguf_path`'s model: named by the file's content and by
    the transformers version that dequantized it."""
    import transformers

    return user_cache_dir() / "tune-base" / f"{file_sha256(gguf_path)[:16]}-transformers-{transformers.__version__}"


def _quietly(read: Any, *args: Any) -> tuple[Any, Any]:
    """The loader's progress bars (tqdm, on stderr) would draw over the caller's display; failures still
    arrive as exceptions."""
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return read(*args)


def _read(folder: Path, gguf_file: str | None = None) -> tuple[Any, Any]:
    """The model and tokenizer in `folder`: transformers' files, or the GGUF file `gguf_file` there."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf: dict[str, Any] = {}
    if gguf_file is not None:
        # Plain float weights: a model whose weights stay in GGUF blocks cannot be trained.
        gguf = {"gguf_file": gguf_file, "quantization_config": GgufConfig(gguf_file=gguf_file, dequantize=True)}
    tokenizer = AutoTokenizer.from_pretrained(str(folder), gguf_file=gguf_file)
    return AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32, **gguf), tokenizer


def _checked(path: Path, model: Any, tokenizer: Any) -> TunableModel:
    if model.config.model_type != "llama":
        raise ModelError(
            f"{path}: tuning supports llama-architecture models (the adapter is exported with llama's tensor"
            f" names), not {model.config.model_type!r}"
        )
    return TunableModel(path=path, model=model, tokenizer=tokenizer)


def _save(base: TunableModel, folder: Path) -> None:
    """Write the copy under another name and rename it into place: a folder at `folder` is always whole.
    A copy that cannot be written (disk full, read-only cache) only costs the next load its time."""
    temporary = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        base.model.save_pretrained(temporary)
        base.tokenizer.save_pretrained(temporary)
        temporary.rename(folder)
    except OSError as error:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        if not folder.is_dir():  # else another process put its copy there first
            warnings.warn(f"could not save the tuning base model's copy in {folder}: {error}", stacklevel=3)
