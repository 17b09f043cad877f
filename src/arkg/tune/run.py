"""`arkg tune`: training pairs in, a llama.cpp LoRA adapter and its provenance out.

    result = tune("pairs.jsonl", "runs/tune", TuneOptions(seed=0), command="arkg tune ...")
    result.adapter        # runs/tune/adapter.gguf: load with LlamaCppModel(lora_path=...)
    result.sidecar        # runs/tune/adapter.json: data digest, seed, hyper-parameters, command, loss, time

The output folder holds `run.json` (what the run was started with), `checkpoints/`, and once training
is complete the adapter and its sidecar. Starting again on the same folder with the same data,
base model and options resumes; anything else is refused unless `restart=True`.
"""

from __future__ import annotations

import json
import shutil
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.bundled import bundled_model_path
from arkg.llm.file_digest import file_sha256
from arkg.paths import write_atomically
from arkg.tune.adapter_file import read_sidecar
from arkg.tune.data import encode, read_pairs, sample_pairs
from arkg.tune.deps import require_train_extra
from arkg.tune.options import TuneOptions, device_defaults
from arkg.tune.train import StepProgress, TuneError, examples_drawn, micro_batch, train_adapter

ADAPTER_FILE = "adapter.gguf"
SIDECAR_FILE = "adapter.json"
RUN_FILE = "run.json"
CHECKPOINTS = "checkpoints"
SIDECAR_FORMAT = "arkg-adapter/1"
# `arkg synth` writes its provenance beside the pairs under this suffix; the sidecar keeps a copy.
SYNTH_META_SUFFIX = ".meta.json"
LIBRARIES = ("torch", "transformers", "peft", "gguf")


@dataclass(frozen=True)
class Phase:
    """A stage of the run starting: loading, encoding, training, exporting."""

    name: str
    detail: str = ""


@dataclass(frozen=True)
class TuneResult:
    out: Path
    finished: bool  # False: stopped on request; the same call continues from the last checkpoint
    steps: int
    total_steps: int
    final_loss: float | None
    train_s: float
    examples: int  # pairs within options.max_tokens, the set training draws from
    left_out: int  # pairs longer than options.max_tokens
    drawn: int  # examples the steps went through: fewer than `examples` when max_steps ends the epoch early
    resumed_from: int | None
    adapter: Path | None  # set when finished
    sidecar: Path | None


def tune(
    data: str | Path,
    out: str | Path,
    options: TuneOptions = TuneOptions(),
    *,
    base_model: str | Path | None = None,
    from_adapter: str | Path | None = None,
    command: str = "",
    restart: bool = False,
    threads: int | None = None,
    micro_batch_size: int | None = None,
    on_phase: Callable[[Phase], None] = lambda phase: None,
    on_progress: Callable[[StepProgress], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    end_now: Callable[[], bool] = lambda: False,
) -> TuneResult:
    """Tune a LoRA adapter of `base_model` (the bundled GGUF when None) on the pairs in `data`.

    from_adapter: an adapter file of `base_model` (GGUF, as this function exports them) to tune further,
    at its rank and on its layers, instead of a fresh adapter. threads: torch's CPU threads (None: its
    default, one per core). micro_batch_size: examples per forward pass, a divisor of the batch size
    (None: the whole batch); it bounds the memory without changing the steps, so a run resumes with
    another. `should_stop` is polled after each step: True saves a checkpoint and
    returns an unfinished result. `end_now`, polled likewise, ends training at that step and exports the
    adapter as it stands (a time budget spent; the sidecar records the steps run).
    """
    require_train_extra()
    import torch

    from arkg.tune.base import load_base
    from arkg.llm.llamacpp import adapter_run_failure
    from arkg.tune.adapter_file import export_adapter

    data, out = Path(data), Path(out)
    micro = micro_batch(options, micro_batch_size)
    base_path = Path(base_model).expanduser() if base_model is not None else bundled_model_path()
    start_adapter = Path(from_adapter).expanduser() if from_adapter is not None else None
    if start_adapter is not None and not start_adapter.is_file():
        raise TuneError(f"Adapter to start from not found: {start_adapter}")
    on_phase(Phase("reading", str(data)))
    pairs = read_pairs(data)
    if threads is not None:
        # On shared cores one thread per core contends with the other work: fewer can be much faster.
        torch.set_num_threads(threads)
    on_phase(Phase("loading", base_path.name))
    base = load_base(base_path)
    # Before the run's identity is recorded: a run resumes with the blocks it started with.
    options = device_defaults(options, torch.cuda.is_available(), base.model.config.num_hidden_layers)
    identity = {
        "data_sha256": file_sha256(data),
        "base_model_sha256": file_sha256(base_path) if base_path.is_file() else None,
        "options": options.model_dump(mode="json"),
    }
    start_record = None
    if start_adapter is not None:
        identity["from_adapter_sha256"] = file_sha256(start_adapter)
        # Read before training: a sidecar that cannot be read is refused now, not after the run.
        start_record = {
            "file": start_adapter.name,
            "sha256": identity["from_adapter_sha256"],
            "provenance": read_sidecar(start_adapter, identity["from_adapter_sha256"]),
        }
    _claim_folder(out, identity, restart)

    chosen = sample_pairs(pairs, options.max_examples, options.seed)
    on_phase(Phase("encoding", f"{len(chosen):,} of {len(pairs):,} pairs"))
    encoded = [encode(pair, base.tokenizer, options.decision_weight) for pair in chosen]
    examples = [example for example in encoded if len(example.input_ids) <= options.max_tokens]
    if not examples:
        raise TuneError(f"{data}: every pair is longer than max_tokens={options.max_tokens}; raise it")

    on_phase(Phase("training", f"{len(examples):,} examples"))
    outcome = train_adapter(
        base,
        examples,
        options,
        out / CHECKPOINTS,
        initial_adapter=start_adapter,
        micro_batch_size=micro,
        on_progress=on_progress,
        should_stop=should_stop,
        end_now=end_now,
    )
    result = TuneResult(
        out=out,
        finished=outcome.finished,
        steps=outcome.steps,
        total_steps=outcome.total_steps,
        final_loss=outcome.final_loss,
        train_s=outcome.train_s,
        examples=len(examples),
        left_out=len(encoded) - len(examples),
        drawn=examples_drawn(outcome.steps, len(examples), options.batch_size),
        resumed_from=outcome.resumed_from,
        adapter=None,
        sidecar=None,
    )
    if not outcome.finished:
        return result

    on_phase(Phase("exporting", ADAPTER_FILE))
    try:
        # The file is run in llama.cpp before it is moved into place: finite weights can still overflow there.
        adapter = export_adapter(
            outcome.peft_model,
            out / ADAPTER_FILE,
            alpha=options.alpha,
            verify=lambda written: adapter_run_failure(written, base_path),
        )
    except ModelError as error:
        raise TuneError(f"{error}. Nothing was exported; tune again with a lower --lr (and --restart)") from error
    sidecar = out / SIDECAR_FILE
    provenance = {
        "format": SIDECAR_FORMAT,
        "adapter": {"file": adapter.name, "sha256": file_sha256(adapter), "bytes": adapter.stat().st_size},
        "base_model": {"file": base_path.name, "sha256": identity["base_model_sha256"]},
        "from_adapter": start_record,
        "data": {
            "file": data.name,
            "sha256": identity["data_sha256"],
            "pairs": len(pairs),
            "used": len(examples),
            "left_out_too_long": len(encoded) - len(examples),
            # Of the `used` examples (every one, once): the steps may go through fewer, or some twice.
            "tokens": sum(len(example.input_ids) for example in examples),
            "reply_tokens": sum(sum(label >= 0 for label in example.labels) for example in examples),
            "drawn": result.drawn,
            "synth": _synth_meta(data),
        },
        "seed": options.seed,
        "options": identity["options"],
        "command": command,
        "arkg_version": version("arkg"),
        "libraries": {name: version(name) for name in LIBRARIES},
        "device": outcome.device,
        "micro_batch_size": micro,
        "steps": outcome.steps,
        "train_s": round(outcome.train_s, 1),
        "final_loss": outcome.final_loss,
        "loss_by_step": {step: round(loss, 4) for step, loss in outcome.losses},
        "first_loss": statistics.fmean(loss for _, loss in outcome.losses[:10]) if outcome.losses else None,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    write_atomically(sidecar, _json(provenance))
    return TuneResult(**{**result.__dict__, "adapter": adapter, "sidecar": sidecar})


def _claim_folder(out: Path, identity: dict[str, Any], restart: bool) -> None:
    """Make `out` this run's folder: new, or holding a run started with the same identity."""
    run_file = out / RUN_FILE
    if run_file.is_file() and not restart:
        earlier = json.loads(run_file.read_text(encoding="utf-8"))
        if earlier != identity:
            changed = [key for key in identity if earlier.get(key) != identity[key]]
            raise TuneError(
                f"{out} holds a run with other {', '.join(changed)}; use another folder, or restart to start over"
            )
        return
    if out.exists() and any(out.iterdir()) and not run_file.is_file():
        raise TuneError(f"{out} exists and is not a tuning run's folder; name a new or empty folder")
    if restart:
        shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)
        for name in (ADAPTER_FILE, SIDECAR_FILE):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(run_file, _json(identity))


def _synth_meta(data: Path) -> Any:
    meta = data.with_name(data.name + SYNTH_META_SUFFIX)
    if not meta.is_file():
        return None
    return {"file": meta.name, "sha256": file_sha256(meta), "content": json.loads(meta.read_text(encoding="utf-8"))}


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
