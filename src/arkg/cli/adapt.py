"""`arkg adapt`: the bundled model tuned for one KG, from that KG's own questions (needs the `train` extra)."""

from __future__ import annotations

import logging
import shlex
import sys
import threading
import warnings
from datetime import timedelta
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from arkg.agents.teaching import taught_strategies
from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.eval_progress import progress_bar
from arkg.cli.interrupt import QuitNow, two_step_ctrl_c
from arkg.cli.tables import print_table

stderr = Console(stderr=True, soft_wrap=True)
console = Console(soft_wrap=True)

STAGES = {
    "sampling": "Sampling the KG",
    "questions": "Making questions",
    "pairs": "Training pairs",
    "replay pairs": "Replayed pairs",
    "before": "Shipped adapter",
    "tuning": "Tuning",
    "after": "Adapted",
}


def adapt(
    db: Annotated[str, typer.Option("--db", help="The KG: a SQLite store (`arkg kg load`), or `sample`.")],
    strategy: Annotated[
        list[str] | None, typer.Option("--strategy", "-s", help=f"Strategies to adapt (repeat): {', '.join(taught_strategies())}. Default: ark and kg-agent.")
    ] = None,
    time_budget: Annotated[float, typer.Option("--time-budget", min=1, max=10_000, help="Minutes the whole run may take; tuning ends early to keep to it.")] = 60,
    questions: Annotated[int, typer.Option("--questions", min=10, max=MAX_INT, help="Questions to make from the KG, train and test together.")] = 600,
    test_questions: Annotated[int, typer.Option("--test-questions", min=1, max=MAX_INT, help="Held-out test questions each strategy is scored on, before and after.")] = 30,
    pairs: Annotated[int, typer.Option("--pairs", min=8, max=MAX_INT, help="Training pairs per strategy.")] = 1200,
    replay_share: Annotated[float, typer.Option("--replay-share", min=0, max=0.95, help="Share of the pairs replayed from the shipped adapters' training domains.")] = 0.25,
    steps: Annotated[int, typer.Option("--steps", min=1, max=MAX_INT, help="At most this many optimizer steps per strategy.")] = 150,
    threads: Annotated[int | None, typer.Option("--threads", min=1, max=1024, help="Training threads (default: one per core).")] = None,
    micro_batch_size: Annotated[
        int | None,
        typer.Option("--micro-batch-size", min=1, max=MAX_INT, help="Pairs per forward pass, a divisor of 8: the same steps in less memory (default: all 8)."),
    ] = None,
    seed: Annotated[int, typer.Option(**ANY_INT, help="Seed of the questions, the mix and tuning.")] = 0,
    restart: Annotated[bool, typer.Option("--restart", help="Discard an unfinished run of this KG and start over.")] = False,
) -> None:
    """Tune the bundled model for one KG: questions made from it, training pairs, tuning from the shipped adapters, and a before/after score on held-out questions.

    Afterwards `arkg ask`, `eval`, `serve` and `mcp` with this --db use the KG's adapters and the strategy that scored best, unless --model or --strategy say otherwise. Ctrl-C stops at the next step (a second quits at once); the same command goes on.
    """
    # The fine-tuning libraries' notices are about their internals; the GGUF writer's, about its files.
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message="Could not find a config file", module=r"peft\.")
    logging.getLogger("gguf").setLevel(logging.WARNING)
    with user_errors():
        from arkg.tune import require_train_extra
        from arkg.tune.adapt import AdaptOptions, AdaptProgress, adapt_table
        from arkg.tune.adapt import adapt as run_adapt

        require_train_extra()
        options = AdaptOptions(
            strategies=tuple(dict.fromkeys(strategy or AdaptOptions().strategies)), questions=questions,
            test_questions=test_questions, pairs=pairs, replay_share=replay_share, steps=steps,
            time_budget_s=time_budget * 60, seed=seed,
        )
        stop = threading.Event()

        def stopping() -> None:
            stop.set()
            stderr.print("[yellow]Stopping[/yellow] at the next step; what is done is kept. Press Ctrl-C again to quit at once.")

        progress = progress_bar(stderr, disable=not stderr.is_terminal)
        tasks: dict[tuple[str, str | None], object] = {}
        quarters: dict[tuple[str, str | None], int] = {}

        def on_progress(step: AdaptProgress) -> None:
            key = (step.stage, step.strategy)
            label = STAGES.get(step.stage, step.stage) + (f" · {step.strategy}" if step.strategy else "")
            budget = f"{timedelta(seconds=round(step.spent_s))} of {timedelta(seconds=round(step.budget_s))}"
            if key not in tasks:
                tasks[key] = progress.add_task(label, total=step.total, status=budget)
            # Without a terminal (a log file, CI), a line as each stage starts and at each quarter of it.
            quarter = 4 * step.done // step.total if step.total else 0
            if not stderr.is_terminal and quarters.get(key, -1) < quarter:
                quarters[key] = quarter
                done = f"{step.done:,}/{step.total:,}" if step.total else f"{step.done:,}"
                stderr.print(f"{label}: {done} ({budget} spent)", highlight=False)
            progress.update(tasks[key], completed=step.done, total=step.total, status=budget)  # type: ignore[arg-type]

        db_spec = None if db == "sample" else db
        try:
            with progress, two_step_ctrl_c(stopping):
                result = run_adapt(
                    db_spec, options, command=shlex.join(["arkg", *sys.argv[1:]]), restart=restart, threads=threads,
                    micro_batch_size=micro_batch_size, stop=stop, on_progress=on_progress,
                )
        except QuitNow:
            stderr.print("[yellow]Quit[/yellow]: finished stages and the last checkpoint are kept; the same command goes on.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if not result.finished or result.record is None:
        stderr.print(f"[yellow]Stopped[/yellow]: the work so far is kept in {escape(str(result.folder))}; run the same command to go on.")
        raise typer.Exit(EXIT_INTERRUPTED)
    record = result.record
    print_table(console, adapt_table(record))
    console.print(
        f"[green]Adapted[/green] in {timedelta(seconds=round(record.elapsed_s))}: adapters in {escape(str(result.folder))} "
        f"(table: {escape(str(result.report))}).\n"
        f"`arkg ask --db {escape(db)} ...` now uses them with --strategy {record.best_strategy}, the best on these test "
        "questions; --model or --strategy override.",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add `arkg adapt` to the main CLI."""
    app.command("adapt")(adapt)
