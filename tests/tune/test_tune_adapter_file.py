"""The exported adapter is the trained one: transformers + peft and llama.cpp + adapter agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from llama_cpp import Llama
from peft import LoraConfig, get_peft_model

from arkg.tune.base import load_base
from arkg.tune.adapter_file import export_adapter
from arkg.tune.options import LLAMA_LINEAR_LAYERS
from arkg.llm.llamacpp_cpu import avoid_crashing_kernels

avoid_crashing_kernels()  # the Llama objects made here directly, as arkg makes its own

pytestmark = pytest.mark.slow

PROMPT = [{"role": "user", "content": "Which relation of Marie Curie says where she was born?"}]


def _llama_logits(model_path: Path, tokens: list[int], adapter: Path | None) -> np.ndarray:
    llama = Llama(
        model_path=str(model_path), n_ctx=512, logits_all=True, n_threads=1, verbose=False,
        lora_path=str(adapter) if adapter else None,
    )  # fmt: skip
    try:
        llama.eval(tokens)
        return np.array(llama.scores[: len(tokens)])
    finally:
        llama.close()


def test_llama_cpp_with_the_adapter_computes_what_peft_computes(tmp_path: Path) -> None:
    base = load_base()
    torch.manual_seed(0)
    # A random, non-zero adapter on every linear layer (trained ones start with B = 0, which would
    # prove nothing), scaled so that it moves the logits without swamping the model.
    config = LoraConfig(r=8, lora_alpha=16, target_modules=list(LLAMA_LINEAR_LAYERS), init_lora_weights=False)
    tuned = get_peft_model(base.model, config).eval()
    with torch.no_grad():
        for name, parameter in tuned.named_parameters():
            if "lora_B" in name:
                parameter.mul_(0.3)
    adapter = export_adapter(tuned, tmp_path / "adapter.gguf", alpha=16)

    text = base.tokenizer.apply_chat_template(PROMPT, tokenize=False, add_generation_prompt=True)
    tokens = base.tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        peft_logits = tuned(torch.tensor([tokens])).logits[0].numpy()
        with tuned.disable_adapter():
            base_logits = tuned(torch.tensor([tokens])).logits[0].numpy()

    llama_logits = _llama_logits(base.path, tokens, adapter)
    # llama.cpp runs the Q4_1 weights (with 8-bit activations); transformers their dequantized floats.
    # So agreement is near, not exact; but it must be with the adapted model, not the base.
    agree = (llama_logits.argmax(-1) == peft_logits.argmax(-1)).mean()
    agree_base = (llama_logits.argmax(-1) == base_logits.argmax(-1)).mean()
    assert agree >= 0.9 and agree > agree_base
    correlation = np.corrcoef(llama_logits[-1], peft_logits[-1])[0, 1]
    assert correlation > 0.995 and correlation > np.corrcoef(llama_logits[-1], base_logits[-1])[0, 1]
    assert llama_logits[-1].argmax() == peft_logits[-1].argmax()  # the same next token

    # Without the adapter llama.cpp matches the base: what changed is the adapter's doing.
    plain = _llama_logits(base.path, tokens, None)
    assert (plain.argmax(-1) == base_logits.argmax(-1)).mean() >= 0.9
