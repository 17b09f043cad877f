"""Write a peft LoRA adapter as a llama.cpp LoRA adapter (GGUF), loadable on top of the base GGUF.

llama.cpp's adapter format: `general.type = adapter`, `adapter.type = lora`, `adapter.lora.alpha`, and
for each adapted weight `W` (named as in the base GGUF, e.g. `blk.0.attn_q.weight`) two tensors
`W.lora_a` (r x in) and `W.lora_b` (out x r); llama.cpp adds (alpha / r) * B A x to W x, as peft does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.tune.deps import require_train_extra

ARCHITECTURE = "llama"
PEFT_PREFIX = "base_model.model."


def export_adapter(peft_model: Any, path: str | Path, *, alpha: float, f16: bool = True) -> Path:
    """Write the adapter of `peft_model` (a peft LoRA over a llama model) to `path` as GGUF.

    Tensors are written as float16 by default (half the size; the adapter's values are small and
    well within its range). The file is written under a temporary name and then moved into place.
    """
    require_train_extra()
    import gguf
    import numpy as np

    config = peft_model.base_model.model.config
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config.num_hidden_layers)
    tensors: dict[str, Any] = {}
    for module_name, module in peft_model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in module.lora_A:
            continue
        hf_name = module_name.removeprefix(PEFT_PREFIX)
        gguf_name = names.get_name(hf_name)
        if gguf_name is None:
            raise ModelError(f"No llama.cpp tensor name for the adapted layer {hf_name!r}")
        a = module.lora_A["default"].weight.detach().float().cpu().numpy()
        b = module.lora_B["default"].weight.detach().float().cpu().numpy()
        if hf_name.endswith("self_attn.q_proj"):
            b = _rope_permute(b, config.num_attention_heads)
        elif hf_name.endswith("self_attn.k_proj"):
            b = _rope_permute(b, config.num_key_value_heads)
        dtype = np.float16 if f16 else np.float32
        tensors[f"{gguf_name}.weight.lora_a"] = a.astype(dtype)
        tensors[f"{gguf_name}.weight.lora_b"] = b.astype(dtype)
    if not tensors:
        raise ModelError("The model has no LoRA layers to export")
    path = Path(path)
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
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def _rope_permute(weights: Any, heads: int) -> Any:
    """Reorder output rows from Hugging Face's rotary layout to llama.cpp's.

    llama.cpp's converter interleaves the two halves of each head's query and key rows (and
    transformers' GGUF loader undoes that on load), so the rows of lora_b, which produce those
    outputs, need the same reordering; lora_a acts on inputs and is unchanged.
    """
    rows = weights.shape[0]
    return weights.reshape(heads, 2, rows // heads // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)
