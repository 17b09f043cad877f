"""A peft LoRA adapter as a llama.cpp LoRA adapter file (GGUF), loadable on top of the base GGUF, and
such a file read back into a peft model (to tune an adapter further: `arkg tune --from-adapter`).

llama.cpp's adapter format: `general.type = adapter`, `adapter.type = lora`, `adapter.lora.alpha`, and
for each adapted weight `W` (named as in the base GGUF, e.g. `blk.0.attn_q.weight`) two tensors
`W.lora_a` (r x in) and `W.lora_b` (out x r); llama.cpp adds (alpha / r) * B A x to W x, as peft does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.lora_file import count_non_finite, implausible_update, read_lora
from arkg.tune.deps import require_train_extra

ARCHITECTURE = "llama"
# Given an adapter file, why it cannot be used, or None.
Verify = Callable[[Path], "str | None"]
PEFT_PREFIX = "base_model.model."


def export_adapter(
    peft_model: Any, path: str | Path, *, alpha: float, f16: bool = True, verify: Verify | None = None
) -> Path:
    """Write the adapter of `peft_model` (a peft LoRA over a llama model) to `path` as GGUF.

    Tensors are written as float16 by default (half the size; the adapter's values are small and
    well within its range). The file is written under a temporary name and then moved into place,
    once `verify` (see `write_lora_file`) finds nothing wrong with it.
    """
    require_train_extra()
    import numpy as np

    dtype = np.float16 if f16 else np.float32
    tensors: dict[str, Any] = {}
    for gguf_name, module, heads in _adapted_layers(peft_model):
        a = module.lora_A["default"].weight.detach().float().cpu().numpy()
        b = module.lora_B["default"].weight.detach().float().cpu().numpy()
        if heads is not None:
            b = _rope_permute(b, heads)
        with np.errstate(over="ignore"):  # what overflows is infinite, and write_lora_file refuses it by name
            tensors[f"{gguf_name}.weight.lora_a"] = a.astype(dtype)
            tensors[f"{gguf_name}.weight.lora_b"] = b.astype(dtype)
    return write_lora_file(tensors, Path(path), alpha=alpha, verify=verify)


def read_adapter(peft_model: Any, path: str | Path, *, alpha: float) -> None:
    """Set the LoRA weights of `peft_model` to those of the adapter file at `path` (as `export_adapter`
    writes it), so that the model computes what llama.cpp computes with that file.

    The file must adapt exactly the model's LoRA layers, at the model's rank; a file written with
    another alpha has its B matrices rescaled, since the update is (alpha / r) B A.
    """
    require_train_extra()
    import torch

    path = Path(path)
    lora = read_lora_file(path)
    file_alpha = lora.alpha if lora.alpha is not None else alpha
    stored = lora.tensors
    expected = set()
    layers = _adapted_layers(peft_model)
    with torch.no_grad():
        for gguf_name, module, heads in layers:
            names = (f"{gguf_name}.weight.lora_a", f"{gguf_name}.weight.lora_b")
            expected.update(names)
            if names[0] not in stored or names[1] not in stored:
                raise ModelError(f"{path}: no LoRA tensors for {gguf_name}, which this run adapts (tune the same layers)")
            a, b = (stored[name] for name in names)
            target_a, target_b = module.lora_A["default"].weight, module.lora_B["default"].weight
            if a.shape != tuple(target_a.shape) or b.shape != tuple(target_b.shape):
                raise ModelError(
                    f"{path}: {gguf_name} has LoRA shapes {a.shape} and {b.shape}, this run's are"
                    f" {tuple(target_a.shape)} and {tuple(target_b.shape)} (tune at the file's rank)"
                )
            if heads is not None:
                b = _rope_unpermute(b, heads)
            target_a.copy_(torch.from_numpy(a))
            target_b.copy_(torch.from_numpy(b * (file_alpha / alpha)))
    extra = sorted(set(stored) - expected)
    if extra:
        raise ModelError(f"{path}: adapts layers this run does not ({', '.join(extra[:3])}{', …' if len(extra) > 3 else ''})")


def adapted_blocks(path: str | Path) -> set[int]:
    """The transformer blocks an adapter file has LoRA tensors for (llama.cpp names them blk.N.*)."""
    return {int(name.split(".")[1]) for name in read_lora_file(Path(path)).tensors if name.startswith("blk.")}


@dataclass(frozen=True)
class LoraFile:
    """An adapter file's contents: alpha (None when the file names none) and its tensors as float32
    arrays in the file's layout (lora_a: r x in, lora_b: out x r, llama.cpp's row order)."""

    alpha: float | None
    tensors: dict[str, Any]


def read_lora_file(path: Path) -> LoraFile:
    """Read a llama.cpp LoRA adapter file, refusing by name anything else."""
    lora, alpha = read_lora(path)
    return LoraFile(alpha=alpha, tensors={name: lora.values(tensor) for name, tensor in lora.tensors.items()})


def write_lora_file(tensors: dict[str, Any], path: Path, *, alpha: float, verify: Verify | None = None) -> Path:
    """Write tensors (named and laid out as `read_lora_file` returns them) as a llama.cpp LoRA adapter,
    under a temporary name first, so that an interrupted write leaves nothing at `path`. Tensors with
    NaN or infinite values, or an update past arkg.llm.lora_file.MAX_UPDATE, are refused, and nothing is written:
    llama.cpp cannot run with them. `verify` is given the written file before it moves into place and
    returns why it cannot be used (nothing is written then) or None."""
    import gguf

    if not tensors:
        raise ModelError("The model has no LoRA layers to export")
    if not math.isfinite(alpha):
        raise ModelError(f"{path}: not written: alpha is {alpha}, not a finite number")
    for name, array in tensors.items():
        if bad := count_non_finite(array):
            raise ModelError(
                f"{path}: not written: tensor {name} would hold {bad:,} values (of {array.size:,}) that are NaN"
                f" or beyond the range of {array.dtype}"
            )
    if found := implausible_update(tensors, alpha):
        weight, bound = found
        raise ModelError(
            f"{path}: not written: its update of {weight}, (alpha / r) B A, would change values by up to {bound:.3g};"
            " llama.cpp cannot run a model with it (tuned adapters change them by less than 1)"
        )
    temporary = path.with_name(f".{path.name}.partial")
    try:
        writer = gguf.GGUFWriter(str(temporary), ARCHITECTURE)
        writer.add_type(gguf.GGUFType.ADAPTER)
        writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
        writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
        for name, array in tensors.items():
            writer.add_tensor(name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        if verify is not None and (failure := verify(temporary)):
            raise ModelError(f"{path}: not written: {failure}")
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def _adapted_layers(peft_model: Any) -> list[tuple[str, Any, int | None]]:
    """(llama.cpp tensor name, LoRA module, rotary heads of its output or None) of each adapted layer."""
    import gguf

    config = peft_model.base_model.model.config
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config.num_hidden_layers)
    layers = []
    for module_name, module in peft_model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in module.lora_A:
            continue
        hf_name = module_name.removeprefix(PEFT_PREFIX)
        gguf_name = names.get_name(hf_name)
        if gguf_name is None:
            raise ModelError(f"No llama.cpp tensor name for the adapted layer {hf_name!r}")
        heads = (
            config.num_attention_heads if hf_name.endswith("self_attn.q_proj")
            else config.num_key_value_heads if hf_name.endswith("self_attn.k_proj")
            else None
        )  # fmt: skip
        layers.append((gguf_name, module, heads))
    return layers


def _rope_permute(weights: Any, heads: int) -> Any:
    """Reorder output rows from Hugging Face's rotary layout to llama.cpp's.

    llama.cpp's converter interleaves the two halves of each head's query and key rows (and
    transformers' GGUF loader undoes that on load), so the rows of lora_b, which produce those
    outputs, need the same reordering; lora_a acts on inputs and is unchanged.
    """
    rows = weights.shape[0]
    return weights.reshape(heads, 2, rows // heads // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def _rope_unpermute(weights: Any, heads: int) -> Any:
    """The inverse of `_rope_permute`: llama.cpp's row order back to Hugging Face's."""
    rows = weights.shape[0]
    return weights.reshape(heads, rows // heads // 2, 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def read_sidecar(adapter: Path, sha256: str) -> Any:
    """The JSON beside an adapter (ADAPTER.json: what `arkg tune` or `arkg merge-adapters` recorded of its
    making), or None where there is none or where it names another file's SHA-256 (a stale sidecar)."""
    sidecar = adapter.with_suffix(".json")
    if not sidecar.is_file():
        return None
    try:
        provenance = json.loads(sidecar.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ModelError(f"{sidecar}: not valid JSON (line {error.lineno}): {error.msg}") from error
    described = provenance.get("adapter") if isinstance(provenance, dict) else None
    if isinstance(described, dict) and described.get("sha256") not in (None, sha256):
        return None
    return provenance
