"""`arkg tune`: LoRA fine-tuning of the bundled model on training pairs (needs the `train` extra)."""

from __future__ import annotations

import shlex
import sys
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.eval_progress import progress_bar
from arkg.cli.interrupt import QuitNow, two_step_ctrl_c
from arkg.paths import check_writable_file
from arkg.tune import Phase, Precision, StepProgress, TuneError, TuneOptions, TuneResult
from arkg.tune.options import CPU_LAYERS

stderr = Console(stderr=True)
console = Console()

_DEFAULTS = TuneOptions()


def tune(
    data: Annotated[Path, typer.Option("--data", help="Training pairs: chat-format JSON Lines, as `arkg synth` writes them.")],
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoints, then adapter.gguf and adapter.json.")],
    base_model: Annotated[
        Path | None, typer.Option("--base-model", help="GGUF model to tune (llama architecture); default: the bundled one.")
    ] = None,
    from_adapter: Annotated[
        Path | None,
        typer.Option(
            "--from-adapter",
            help="Tune this adapter further (GGUF, as arkg tune exports; e.g. the shipped one) instead of a fresh one, at its rank; it must adapt the blocks --layers trains.",
        ),
    ] = None,
    rank: Annotated[int, typer.Option(min=1, max=MAX_INT, help="LoRA rank.")] = _DEFAULTS.rank,
    layers: Annotated[int | None, typer.Option(min=1, max=MAX_INT, help=f"Train only the last N transformer blocks (default: all on a GPU, the last {CPU_LAYERS} on a CPU); with --from-adapter the blocks below keep its weights.")] = None,
    alpha: Annotated[float, typer.Option(min=0.0, help="LoRA alpha (updates scale by alpha / rank).")] = _DEFAULTS.alpha,
    learning_rate: Annotated[float, typer.Option("--lr", help="Peak learning rate (cosine schedule), above 0 and at most 1.")] = _DEFAULTS.learning_rate,
    epochs: Annotated[float, typer.Option(min=0.0, help="Passes over the data.")] = _DEFAULTS.epochs,
    max_steps: Annotated[int | None, typer.Option(min=1, max=MAX_INT, help="Stop after this many optimizer steps (overrides --epochs).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=MAX_INT, help="Examples per optimizer step.")] = _DEFAULTS.batch_size,
    max_tokens: Annotated[int, typer.Option(min=16, max=MAX_INT, help="Leave out examples longer than this (never cut).")] = _DEFAULTS.max_tokens,
    max_examples: Annotated[int | None, typer.Option(min=1, max=MAX_INT, help="Train on a seeded sample of this many pairs.")] = None,
    decision_weight: Annotated[
        float, typer.Option(min=0.0, help="Loss weight of a reply's decision tokens against its prose (1: plain mean).")
    ] = _DEFAULTS.decision_weight,
    warmup_steps: Annotated[int, typer.Option(min=0, max=MAX_INT, help="Steps of linear warm-up.")] = _DEFAULTS.warmup_steps,
    save_every: Annotated[int, typer.Option(min=1, max=MAX_INT, help="Steps between checkpoints.")] = _DEFAULTS.save_every,
    seed: Annotated[int, typer.Option(**ANY_INT, help="Seed of the initialisation, sampling and data order.")] = _DEFAULTS.seed,
    restart: Annotated[bool, typer.Option("--restart", help="Discard the folder's checkpoints and start over.")] = False,
    threads: Annotated[int | None, typer.Option(min=1, max=MAX_INT, help="CPU threads (default: one per core; on shared cores 1 can be faster).")] = None,
    micro_batch_size: Annotated[int | None, typer.Option(min=1, max=MAX_INT, help="Examples per forward pass, a divisor of --batch-size (default: all of them): the same steps in less memory; a run may resume with another.")] = None,
    precision: Annotated[
        Precision,
        typer.Option(help="Compute precision: auto takes bfloat16 autocast where the GPU or CPU (AVX512-BF16, AMX) computes it natively."),
    ] = _DEFAULTS.precision,
) -> None:
    """Tune a LoRA adapter on training pairs and export it for llama.cpp.

    Checkpoints are saved every --save-every steps; Ctrl-C saves one and stops (a second Ctrl-C quits at once), and the same command continues. A CUDA GPU is used when present. Use the result with --model 'llamacpp:+OUT/adapter.gguf'.
    """
    # The fine-tuning libraries' deprecation notices are about their own internals: nothing to act on.
    warnings.filterwarnings("ignore", category=FutureWarning)
    # peft looks for a config.json beside the base weights to see whether the vocabulary grew; a GGUF has
    # none, and tuning never adds tokens.
    warnings.filterwarnings("ignore", message="Could not find a config file", module=r"peft\.")
    with user_errors():
        from arkg.tune import require_train_extra
        from arkg.tune.run import tune as run_tune

        require_train_extra()
        options = _options(
            rank=rank, layers=layers, alpha=alpha, learning_rate=learning_rate, epochs=epochs, max_steps=max_steps,
            batch_size=batch_size, max_tokens=max_tokens, max_examples=max_examples, decision_weight=decision_weight,
            warmup_steps=warmup_steps, save_every=save_every, precision=precision, seed=seed,
        )
        stop = {"asked": False}

        def stopping() -> None:
            stop["asked"] = True
            stderr.print("[yellow]Stopping[/yellow] after this step, with a checkpoint. Press Ctrl-C again to quit at once.")

        progress = progress_bar(stderr, disable=not stderr.is_terminal)
        task = progress.add_task("Training", total=None, status="")
        last_line = {"step": 0}

        def on_phase(phase: Phase) -> None:
            stderr.print(f"[dim]{escape(phase.name.capitalize())}[/dim] {escape(phase.detail)}", highlight=False)

        def on_progress(step: StepProgress) -> None:
            rate = f" · {step.tokens_per_s:,.0f} tokens/s" if step.tokens_per_s else ""
            status = f"loss {step.loss:.3f}{rate}"
            progress.update(task, total=step.total_steps, completed=step.step, status=status)
            if not stderr.is_terminal and step.step - last_line["step"] >= options.save_every:
                eta = "n/a" if step.eta_s is None else str(timedelta(seconds=round(step.eta_s)))
                stderr.print(f"step {step.step}/{step.total_steps} · {status} · ETA {eta}", highlight=False)
                last_line["step"] = step.step

        try:
            with progress, two_step_ctrl_c(stopping):
                result = run_tune(
                    data, out, options, base_model=base_model, from_adapter=from_adapter, command=shlex.join(["arkg", *sys.argv[1:]]),
                    restart=restart, threads=threads, micro_batch_size=micro_batch_size, on_phase=on_phase, on_progress=on_progress, should_stop=lambda: stop["asked"],
                )
        except QuitNow:
            stderr.print(f"[yellow]Quit[/yellow]: the last checkpoint in {escape(str(out))} is kept; the same command continues.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    loss = "n/a" if result.final_loss is None else f"{result.final_loss:.3f}"
    if not result.finished:
        stderr.print(
            f"[yellow]Stopped[/yellow] at step {result.steps}/{result.total_steps} (loss {loss}); checkpoint saved in "
            f"{escape(str(out))}. Run the same command to continue."
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    left_out = f", {result.left_out} left out as longer than --max-tokens" if result.left_out else ""
    console.print(
        f"[green]Tuned[/green] {result.steps} steps on {result.examples:,} examples{left_out}{_drawn(result)} in "
        f"{timedelta(seconds=round(result.train_s))}, final loss {loss}.\n"
        f"Adapter: {escape(str(result.adapter))} (provenance: {escape(str(result.sidecar))})\n"
        f"Use it: --model 'llamacpp:+{escape(str(result.adapter))}'",
        highlight=False,
    )


def merge_adapters(
    adapters: Annotated[
        list[str],
        typer.Argument(
            help="Adapter files (GGUF), each as PATH=WEIGHT or PATH (then every adapter weighs 1/N). A negative"
            " weight subtracts: B=1 C=1 A=-1 adds the increments of two runs tuned from A onto A.",
            show_default=False,
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="The merged adapter (GGUF); its provenance is written beside it as .json.")],
    rank: Annotated[
        int | None, typer.Option(min=1, max=MAX_INT, help="Approximate the sum at this LoRA rank (truncated SVD); default: exact, the ranks summed.")
    ] = None,
) -> None:
    """Merge LoRA adapters into one whose update is the weighted sum of theirs (a model soup of adapters).

    Two adapters tuned from one start on different data can keep much of what each does well (docs/tuning-log.md, recipe 31). Use the result with --model 'llamacpp:+OUT'.
    """
    with user_errors():
        from arkg.tune.merge import merge_adapters as run_merge

        check_writable_file(out, "merged adapter")
        parts = [_weighted(text) for text in adapters]
        if all(weight is None for _, weight in parts):
            parts = [(path, 1.0 / len(parts)) for path, _ in parts]
        elif any(weight is None for _, weight in parts):
            raise typer.BadParameter("give every adapter a weight (PATH=WEIGHT), or none", param_hint="ADAPTERS")
        result = run_merge(parts, out, rank=rank, command=shlex.join(["arkg", *sys.argv[1:]]))  # type: ignore[arg-type]
    kept = "exact" if result.kept == 1.0 else f"{result.kept:.2%} of the update kept in the weight that lost most"
    console.print(
        f"[green]Merged[/green] {len(parts)} adapters at rank {result.rank} ({kept}).\n"
        f"Adapter: {escape(str(result.adapter))} (provenance: {escape(str(result.sidecar))})\n"
        f"Use it: --model 'llamacpp:+{escape(str(result.adapter))}'",
        highlight=False,
    )


def _weighted(text: str) -> tuple[Path, float | None]:
    """PATH=WEIGHT, split at the last '=' when what follows is a number (a path may hold '=')."""
    path, _, weight = text.rpartition("=")
    if path:
        try:
            return Path(path), float(weight)
        except ValueError:
            pass
    return Path(text), None


def _options(**values: Any) -> TuneOptions:
    """The run's options; values TuneOptions refuses (an infinite --lr) are a TuneError naming their flag."""
    try:
        return TuneOptions(**values)
    except ValidationError as error:
        problems = "; ".join(f"{_flag(str(problem['loc'][0]))} {problem['input']}: {problem['msg']}" for problem in error.errors())
        raise TuneError(problems) from None


def _flag(option: str) -> str:
    return "--lr" if option == "learning_rate" else "--" + option.replace("_", "-")


def register(app: typer.Typer) -> None:
    """Add `arkg tune` and `arkg merge-adapters` to the main CLI."""
    app.command(name="tune")(tune)
    app.command(name="merge-adapters")(merge_adapters)


def _drawn(result: TuneResult) -> str:
    """Said only when the steps did not go through the examples exactly once."""
    return "" if result.drawn == result.examples else f" ({result.drawn:,} drawn)"
