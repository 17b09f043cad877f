"""Hyper-parameters of one tuning run: everything that, with the data and the seed, fixes the adapter."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

# Adam moves each weight by about the learning rate per step, and LoRA weights are of order 0.01 to 1:
# past 1 a run can only diverge (docs/tuning-log.md's recipes tune at 3e-4 to 1e-3).
MAX_LEARNING_RATE = 1.0
# Every linear layer of a llama block (attention and MLP); the embeddings and the tied head stay frozen.
LLAMA_LINEAR_LAYERS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# The blocks a CPU run trains by default: on 2 cores the last 12 of SmolLM2-135M's 30 train about twice
# as many tokens a second as all 30, at a held-out loss measured in docs/tuning-log.md (bench/tune_speed.py).
CPU_LAYERS = 12


class Precision(str, Enum):
    """The compute precision of training's matrix products. bfloat16 is autocast over float32 weights:
    the adapter and its optimizer state stay float32. AUTO takes it where the hardware computes it
    natively (CUDA GPUs that support it, CPUs with AVX512-BF16 or AMX), where it trains 2-3x faster;
    elsewhere it would be emulated, and slower."""

    AUTO = "auto"
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"


class TuneOptions(BaseModel):
    # An infinite or NaN number, in any option, can only end in NaN weights.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    rank: int = Field(8, ge=1, description="LoRA rank r")
    alpha: float = Field(16.0, gt=0, description="LoRA alpha: the update is scaled by alpha / r")
    dropout: float = Field(0.05, ge=0, lt=1)
    target_modules: tuple[str, ...] = LLAMA_LINEAR_LAYERS
    # Training only the upper blocks spares the backward pass through the lower ones (see device_defaults).
    layers: int | None = Field(
        None, ge=1, description="train only the last N transformer blocks (None: the device's default, see device_defaults)"
    )
    learning_rate: float = Field(4e-4, gt=0, le=MAX_LEARNING_RATE)
    warmup_steps: int = Field(10, ge=0)
    epochs: float = Field(1.0, gt=0)
    max_steps: int | None = Field(None, ge=1, description="stop after this many optimizer steps (overrides epochs)")
    batch_size: int = Field(8, ge=1, description="examples per optimizer step")
    max_tokens: int = Field(768, ge=16, description="longer examples (prompt + reply) are left out, never cut")
    # The loss weight of a reply's decision tokens (the option chosen, keys cited, the continue flag, the
    # answer) against its prose (implication, explanation); 1 is the plain mean over reply tokens.
    decision_weight: float = Field(1.0, gt=0, description="loss weight of a reply's decision tokens (1: plain mean)")
    max_examples: int | None = Field(None, ge=1, description="use at most this many pairs (a seeded sample)")
    save_every: int = Field(10, ge=1, description="optimizer steps between checkpoints")
    precision: Precision = Precision.AUTO
    seed: int = 0


def device_defaults(options: TuneOptions, cuda: bool, blocks: int) -> TuneOptions:
    """`options` with what the device decides filled in: `layers` None trains every block on a GPU, and
    the last CPU_LAYERS (of a model's `blocks`) on a CPU, where the backward pass through the lower
    blocks is most of a step."""
    if options.layers is None and not cuda:
        return options.model_copy(update={"layers": min(CPU_LAYERS, blocks)})
    return options
