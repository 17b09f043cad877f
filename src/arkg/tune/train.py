"""Supervised LoRA fine-tuning with transformers' Trainer: checkpoints, resume, stop on request.

Checkpoints go to one folder every `save_every` optimizer steps (the adapter, optimizer, schedule and
random states), so a run killed at any moment loses at most those steps, and a run asked to stop
saves first. Training again with the same folder continues from the newest checkpoint.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arkg.errors import ArkgError
from arkg.tune.adapter_file import PEFT_PREFIX, adapted_blocks, read_adapter
from arkg.tune.base import TunableModel
from arkg.tune.data import IGNORED, Encoded
from arkg.tune.options import Precision, TuneOptions

# Written into each checkpoint: training seconds up to it, summed over every session that led there.
ELAPSED_FILE = "arkg-elapsed.json"
# The final loss is the mean over the last steps: a single batch's loss depends on which examples it drew.
FINAL_LOSS_STEPS = 10


class TuneError(ArkgError):
    """A tuning run cannot start or continue as asked."""


@dataclass(frozen=True)
class StepProgress:
    step: int
    total_steps: int
    loss: float | None  # of this step's batch (weighted mean over its reply tokens)
    tokens: int  # input tokens trained on so far in this session
    session_s: float  # seconds since this session's first step
    session_steps: int  # steps done in this session

    @property
    def tokens_per_s(self) -> float | None:
        return self.tokens / self.session_s if self.session_s > 0 else None

    @property
    def eta_s(self) -> float | None:
        if self.session_steps == 0:
            return None
        return self.session_s / self.session_steps * (self.total_steps - self.step)


@dataclass(frozen=True)
class TrainOutcome:
    peft_model: Any
    steps: int
    total_steps: int
    finished: bool  # False: stopped on request, resumable from the last checkpoint
    final_loss: float | None
    losses: list[tuple[int, float]]  # (step, loss) of every step, earlier sessions included
    train_s: float  # training time summed over sessions
    device: str
    resumed_from: int | None  # the step this session started from (None: from scratch)


def latest_checkpoint(folder: Path) -> Path | None:
    """The checkpoint with the highest step in `folder` (Trainer names them checkpoint-<step>)."""
    steps = [
        (int(child.name.removeprefix("checkpoint-")), child)
        for child in folder.glob("checkpoint-*")
        if child.name.removeprefix("checkpoint-").isdigit() and (child / "trainer_state.json").is_file()
    ]
    return max(steps)[1] if steps else None


def train_adapter(
    base: TunableModel,
    examples: Sequence[Encoded],
    options: TuneOptions,
    checkpoints: Path,
    *,
    initial_adapter: Path | None = None,
    micro_batch_size: int | None = None,
    on_progress: Callable[[StepProgress], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    end_now: Callable[[], bool] = lambda: False,
) -> TrainOutcome:
    """Train a LoRA adapter on `examples`, checkpointing into `checkpoints` and resuming from it.

    `should_stop` and `end_now` are polled after each step: the first pauses the run (a checkpoint, and an
    unfinished outcome to resume), the second ends it there, finished (a time budget spent).

    initial_adapter: an adapter file (GGUF, as exported) to start from instead of peft's fresh one
    (whose B is zero); a resumed run starts from its checkpoint instead. micro_batch_size: examples
    per forward pass (None: the whole batch); a step of `options.batch_size` examples then adds up the
    gradients of several passes, the same step in less memory."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import DataCollatorForSeq2Seq, PrinterCallback, Trainer, TrainerCallback, TrainingArguments, set_seed

    micro = micro_batch(options, micro_batch_size)
    cuda = torch.cuda.is_available()
    bf16 = options.precision is Precision.BFLOAT16 or (options.precision is Precision.AUTO and native_bf16(cuda))
    blocks = base.model.config.num_hidden_layers
    if options.layers is not None and options.layers > blocks:
        raise TuneError(f"layers={options.layers}: the model has {blocks} blocks")
    first_trained = 0 if options.layers is None else blocks - options.layers
    # An adapter to start from keeps every block it adapts; those below the trained ones stay as it has them.
    adapted = set(range(first_trained, blocks)) | (adapted_blocks(initial_adapter) if initial_adapter is not None else set())
    # A fresh adapter's A matrices are drawn at random: from the seed, not from whatever the process
    # drew before (two runs in one process would otherwise start apart).
    set_seed(options.seed)
    peft_model = get_peft_model(
        base.model,
        LoraConfig(
            r=options.rank,
            lora_alpha=options.alpha,
            lora_dropout=options.dropout,
            target_modules=list(options.target_modules),
            layers_to_transform=None if len(adapted) == blocks else sorted(adapted),
            task_type="CAUSAL_LM",
        ),
    )
    freeze_blocks_below(peft_model, first_trained)
    resume = latest_checkpoint(checkpoints)
    if initial_adapter is not None and resume is None:
        read_adapter(peft_model, initial_adapter, alpha=options.alpha)
    if bf16 and not cuda:
        frozen_weights_to_bf16(peft_model)
    earlier_s = _elapsed_at(resume)
    started = {"at": None, "step": 0}
    tokens = {"seen": 0}
    ended = {"early": False}

    class Reporter(TrainerCallback):
        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if started["at"] is None:
                started["at"], started["step"] = time.monotonic(), state.global_step
                tokens["seen"] = state.num_input_tokens_seen  # restored from the checkpoint on resume

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
            if not logs or "loss" not in logs:
                return
            # Before the step's checkpoint is saved, which happens after its log.
            require_finite(peft_model, state.global_step, float(logs["loss"]), options)
            if on_progress is None or started["at"] is None:
                return
            on_progress(
                StepProgress(
                    step=state.global_step,
                    total_steps=state.max_steps,
                    loss=float(logs["loss"]),
                    tokens=state.num_input_tokens_seen - tokens["seen"],
                    session_s=time.monotonic() - started["at"],
                    session_steps=state.global_step - started["step"],
                )
            )

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            pause, end = should_stop(), end_now()
            if pause or end:
                ended["early"] = end and not pause
                control.should_save = True
                control.should_training_stop = True

        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            session = time.monotonic() - started["at"] if started["at"] is not None else 0.0
            folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            (folder / ELAPSED_FILE).write_text(json.dumps({"train_s": earlier_s + session}), encoding="utf-8")

    arguments = TrainingArguments(
        output_dir=str(checkpoints),
        per_device_train_batch_size=micro,
        gradient_accumulation_steps=options.batch_size // micro,
        learning_rate=options.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=options.warmup_steps,
        num_train_epochs=options.epochs,
        max_steps=options.max_steps or -1,
        logging_steps=1,
        # The Trainer would log a NaN step's loss as the mean of the steps before: it must show.
        logging_nan_inf_filter=False,
        save_strategy="steps",
        save_steps=options.save_every,
        save_total_limit=2,
        report_to="none",
        disable_tqdm=True,
        seed=options.seed,
        data_seed=options.seed,
        train_sampling_strategy="group_by_length",
        remove_unused_columns=False,
        include_num_input_tokens_seen=True,
        use_cpu=not cuda,
    )
    pad = DataCollatorForSeq2Seq(base.tokenizer, padding=True, label_pad_token_id=IGNORED)

    def collate(features: list[dict[str, Any]]) -> dict[str, Any]:
        batch = pad([{key: value for key, value in feature.items() if key != "weights"} for feature in features])
        width = batch["input_ids"].shape[1]
        batch["weights"] = torch.tensor([feature["weights"] + [0.0] * (width - len(feature["weights"])) for feature in features])
        return batch

    class WeightedTrainer(Trainer):
        # Each micro-batch's weighted loss sum is divided by the whole step's weight (what
        # get_batch_samples returns as num_items_in_batch), so the passes add up to the step's weighted
        # mean: the Trainer must not divide by the number of passes again.
        loss_is_scaled_for_ga = True

        def get_batch_samples(self, epoch_iterator: Any, num_batches: int, device: Any) -> tuple[list[Any], Any]:
            batches, _ = super().get_batch_samples(epoch_iterator, num_batches, device)
            return batches, sum(scored_weights(batch["labels"], batch["weights"]).sum() for batch in batches)

        def compute_loss(self, model: Any, inputs: dict[str, Any], return_outputs: bool = False, num_items_in_batch: Any = None) -> Any:
            weights, labels = inputs.pop("weights"), inputs.pop("labels")
            # Autocast here, not through the Trainer's bf16 flag: that one wraps the model's forward,
            # which reply_loss goes around (it runs the decoder and the output layer itself).
            with torch.autocast("cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=bf16):
                loss, logits = reply_loss(model, inputs, labels, weights, step_weight=num_items_in_batch)
            return (loss, {"logits": logits}) if return_outputs else loss

    trainer = WeightedTrainer(
        model=peft_model,
        args=arguments,
        train_dataset=[example.as_features() for example in examples],
        data_collator=collate,
        callbacks=[Reporter()],
    )
    trainer.remove_callback(PrinterCallback)  # it prints every log line; progress goes to on_progress instead
    trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    state = trainer.state
    losses = [(entry["step"], float(entry["loss"])) for entry in state.log_history if "loss" in entry]
    recent = [loss for _, loss in losses[-FINAL_LOSS_STEPS:]]
    session_s = time.monotonic() - started["at"] if started["at"] is not None else 0.0
    return TrainOutcome(
        peft_model=peft_model,
        steps=state.global_step,
        total_steps=state.max_steps,
        finished=ended["early"] or state.global_step >= state.max_steps,
        final_loss=sum(recent) / len(recent) if recent else None,
        losses=losses,
        train_s=earlier_s + session_s,
        device=("cuda" if cuda else "cpu") + (", bf16 autocast" if bf16 else ""),
        resumed_from=int(resume.name.removeprefix("checkpoint-")) if resume else None,
    )


def require_finite(peft_model: Any, step: int, loss: float, options: TuneOptions) -> None:
    """Raise TuneError if a step's loss, or an adapter weight after it, is NaN or infinite: training has
    diverged, and every later step and the exported adapter would be NaN (which crashes llama.cpp)."""
    import torch

    if math.isfinite(loss):
        diverged = next(
            (name for name, weight in peft_model.named_parameters() if weight.requires_grad and not torch.isfinite(weight).all()),
            None,
        )
        if diverged is None:
            return
        what = f"the weight {diverged.removeprefix(PEFT_PREFIX)} holds NaN or infinite values"
    else:
        what = f"the loss is {loss}"
    raise TuneError(
        f"Training diverged at step {step}: {what}. Nothing was exported; tune again with a lower learning rate"
        f" than {options.learning_rate:g} (or a lower alpha than {options.alpha:g}), in a new folder or with restart"
    )


def micro_batch(options: TuneOptions, size: int | None) -> int:
    """Examples per forward pass: `size`, which must divide the batch size, or the whole batch."""
    if size is None:
        return options.batch_size
    if size < 1 or options.batch_size % size:
        raise TuneError(f"micro_batch_size={size} does not divide batch_size={options.batch_size}")
    return size


def native_bf16(cuda: bool) -> bool:
    """Whether the device training runs on computes bfloat16 products in hardware."""
    import torch

    if cuda:
        return bool(torch.cuda.is_bf16_supported())
    # torch's own probes of the CPU's instruction sets (private, hence looked up with a fallback).
    probes = (getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
    return any(probe() for probe in probes if probe is not None)


def freeze_blocks_below(peft_model: Any, first_trained: int) -> None:
    """Keep the LoRA weights of the blocks below `first_trained` as they are (as the adapter started from
    has them), without dropout: the backward pass then stops at `first_trained`, and the blocks below
    cost a forward pass only."""
    import torch
    from peft.tuners.lora import LoraLayer

    for block in peft_model.get_base_model().get_decoder().layers[:first_trained]:
        for module in block.modules():
            if isinstance(module, LoraLayer):
                module.requires_grad_(False)
                for name in module.lora_dropout:
                    module.lora_dropout[name] = torch.nn.Identity()


def frozen_weights_to_bf16(peft_model: Any) -> None:
    """Store the decoder's frozen linear weights in bfloat16, the precision autocast computes them in.

    Autocast caches its casts only of weights that train, so each forward pass would copy every frozen
    weight to bfloat16 again: on 2 CPU cores a fifth of a step's time. The products are the same as
    autocast's (same rounding). LoRA weights stay float32, frozen ones too (they are exported), and so
    do the embeddings and norms, which autocast leaves in float32."""
    import torch

    for name, module in peft_model.get_base_model().get_decoder().layers.named_modules():
        if isinstance(module, torch.nn.Linear) and "lora_" not in name:
            module.to(torch.bfloat16)


def examples_drawn(steps: int, examples: int, batch_size: int) -> int:
    """How many examples `steps` optimizer steps go through: an epoch is ceil(examples / batch_size)
    batches, the last one smaller (the Trainer keeps it), and a new epoch starts over."""
    per_epoch = -(-examples // batch_size)
    epochs, rest = divmod(steps, per_epoch)
    return epochs * examples + min(rest * batch_size, examples)


def reply_loss(model: Any, inputs: dict[str, Any], labels: Any, weights: Any, step_weight: Any = None) -> tuple[Any, Any]:
    """The weighted loss of a batch and the logits it was computed from: those of the positions that
    predict a reply token, the only ones put through the output layer. Over SmolLM2's 49,152-word
    vocabulary, logits at every prompt position would be most of the activation memory (a batch of
    8 x 768 tokens: 1.2 GB of float32) and a share of the compute, for tokens that are never scored.
    step_weight: the total weight of the optimizer step this batch is a part of (None: this batch's)."""
    causal = model.get_base_model()
    hidden = causal.get_decoder()(**inputs).last_hidden_state
    scored = labels[:, 1:] != IGNORED  # position t predicts token t + 1
    logits = causal.get_output_embeddings()(hidden[:, :-1][scored])
    return weighted_loss(logits, labels[:, 1:][scored], scored_weights(labels, weights), step_weight), logits


def scored_weights(labels: Any, weights: Any) -> Any:
    """The loss weights of the tokens a batch scores (the reply tokens, each predicted by the one before)."""
    return weights[:, 1:][labels[:, 1:] != IGNORED]


def weighted_loss(logits: Any, wanted: Any, weights: Any, total_weight: Any = None) -> Any:
    """Cross-entropy of each scored token (logits: one row per token), averaged with the tokens'
    weights (equal weights: the plain mean); divided by `total_weight` instead of these weights' sum
    when the tokens are a part of a larger batch."""
    import torch.nn.functional as functional

    # In float32 even under bf16 autocast: a bfloat16 log-softmax over 49,152 words loses the small
    # differences a nearly fitted reply's loss is made of.
    losses = functional.cross_entropy(logits.float(), wanted, reduction="none")
    weights = weights.to(losses.dtype)
    return (losses * weights).sum() / (weights.sum() if total_weight is None else total_weight)


def _elapsed_at(checkpoint: Path | None) -> float:
    if checkpoint is None or not (checkpoint / ELAPSED_FILE).is_file():
        return 0.0
    return float(json.loads((checkpoint / ELAPSED_FILE).read_text(encoding="utf-8"))["train_s"])
