"""`arkg eval` and `arkg report`: evaluation runs and their reports."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from arkg.agents import DEFAULT_STRATEGIES_HELP, REGISTRY, default_strategy
from arkg.agents.abstention import Abstention
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.eval_progress import eval_progress
from arkg.cli.interrupt import QuitNow, two_step_ctrl_c
from arkg.cli.options import TEMPERATURE_RANGE, AbstainUnsupported, Agreement, Model, Protocol, ProtocolName, Retries, Samples, SampleTemperature, Timeout, kg_best_strategy
from arkg.cli.settings import parse_assignments, settings_overrides
from arkg.cli.tables import print_table
from arkg.eval.question_graphs import Perturbation
from arkg.eval.report import SystemReport, build_report
from arkg.eval.report_render import notes, report_tables, warnings, write_report
from arkg.eval.results import check_results_target
from arkg.eval.runner import DEFAULT_MAX_UNAVAILABLE, RunSummary, StopReason, run_evaluation
from arkg.eval.setup import EvalPlan, plan_evaluation
from arkg.paths import check_writable_file
from arkg.text import one_line

console = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)

# Exit statuses of `arkg eval` besides 0 (every question answered), 1 (a user error) and 2 (bad options).
EXIT_FAILED_QUESTIONS = 3
EXIT_SERVER_DOWN = 4
EXIT_CODES = f"""Exit status:
0 every question answered;
1 an error in the input or setup (one line says which);
2 a bad option;
{EXIT_FAILED_QUESTIONS} some questions ended in an error (--resume retries only those);
{EXIT_SERVER_DOWN} stopped early: the model server could not be reached (--resume continues);
{EXIT_INTERRUPTED} stopped by Ctrl-C (--resume continues)."""


def evaluate(
    out: Annotated[Path, typer.Option("--out", help="Results file (JSON lines), appended to as questions finish.")],
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", "-s", help=f"A registered strategy: {', '.join(REGISTRY)}. Default: {DEFAULT_STRATEGIES_HELP}.", show_default=False
        ),
    ] = None,
    dataset_file: Annotated[
        Path | None,
        typer.Argument(
            metavar="DATASET",
            help="The questions: CoLoTa, RoG/GCR (WebQSP, CWQ), ARK-V1, MetaQA, arkg geography, or a file of your own "
            "(JSON lines, JSON or CSV with a `question` column); the format is told from the content "
            "(docs/question-formats.md).",
            show_default=False,
        ),
    ] = None,
    dataset: Annotated[Path | None, typer.Option("--dataset", help="The same as DATASET.", show_default=False)] = None,
    model: Model = None,
    runs: Annotated[int, typer.Option("--runs", min=1, max=MAX_INT, help="Runs per question; run r samples with seed S+r.")] = 1,
    temperature: Annotated[float, typer.Option("--temperature", **TEMPERATURE_RANGE, help="Sampling temperature (0-2).")] = 0.0,
    seed: Annotated[int, typer.Option("--seed", **ANY_INT, help="Base seed S.")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=MAX_INT, help="Questions in parallel (HTTP backends).")] = 1,
    limit: Annotated[int | None, typer.Option("--limit", min=1, max=MAX_INT, help="Only the first N questions.")] = None,
    ids: Annotated[list[str] | None, typer.Option("--ids", help="Only these question ids (repeat, or comma-separate).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue OUT, skipping questions already answered (failed ones are retried).")] = False,
    mode: Annotated[SelectionMode | None, typer.Option("--mode", help="Free-text picks (paper) or constrained decoding (strategies that explore the KG).")] = None,
    edges: Annotated[EdgeSet | None, typer.Option("--edges", help="Explore outgoing edges only, or both directions.")] = None,
    setting: Annotated[list[str] | None, typer.Option("--set", help="Any setting of the strategy as NAME=VALUE (repeat).")] = None,
    db: Annotated[str | None, typer.Option("--db", help="This KG (SQLite store, or wikidata:URL / rdf:URL) instead of the data set's gold triples.")] = None,
    kb: Annotated[
        Path | None,
        typer.Option("--kb", help="This KG file (any format `arkg kg load` reads, e.g. MetaQA's kb.txt), loaded in memory for the run."),
    ] = None,
    neighbourhoods: Annotated[
        Path | None,
        typer.Option(
            "--neighbourhoods",
            help="Run each question on its own 1-hop neighbourhood, kept as one snapshot per question in this folder "
            "(fetched from the SPARQL endpoint --db where missing; offline afterwards).",
        ),
    ] = None,
    perturb: Annotated[
        Perturbation,
        typer.Option("--perturb", help="Alter each question's KG: take out its gold triples, replace a gold tail, or add a conflicting triple."),
    ] = Perturbation.NONE,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, max=MAX_INT, help="Token budget per model call.")] = None,
    timeout: Timeout = None,
    retries: Retries = None,
    protocol: Protocol = ProtocolName.ARKG,
    abstain_unsupported: AbstainUnsupported = None,
    samples: Samples = 1,
    agreement: Agreement = 0.6,
    sample_temperature: SampleTemperature = 0.7,
    max_unreachable: Annotated[
        int,
        typer.Option(
            "--max-unreachable", min=0,
            max=MAX_INT, help="Stop when this many questions in a row could not reach the model server (0: never stop).",
        ),
    ] = DEFAULT_MAX_UNAVAILABLE,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the response cache.")] = False,
) -> None:
    """Run a strategy over a data set; each answer is saved as soon as it is known."""
    with user_errors():
        strategy = strategy or default_strategy(model, kg_best_strategy(model, db) if db is not None else None)
        dataset = _dataset_path(dataset_file, dataset)
        damaged = check_results_target(out, resume)
        if damaged:
            console.print(f"[yellow]Note:[/yellow] {escape(one_line(damaged))}")
        overrides = settings_overrides(strategy, {"mode": mode, "edges": edges}, parse_assignments(setting or []), protocol.value)
        try:
            plan = plan_evaluation(
                dataset, strategy, model,
                temperature=temperature, seed=seed, max_tokens=max_tokens, settings=overrides, db=db, kb=kb,
                neighbourhoods=neighbourhoods, perturbation=perturb,
                ids=_question_ids(ids), limit=limit, concurrency=concurrency, cache=not no_cache,
                timeout=timeout, retries=retries,
                # Every answer as given unless asked otherwise: the records keep its support, the report shows both.
                abstention=Abstention(
                    abstain_unsupported=bool(abstain_unsupported), samples=samples, agreement=agreement, temperature=sample_temperature
                ),
            )
        except KeyboardInterrupt:
            stderr.print("[yellow]Interrupted[/yellow] before any question ran; nothing was written.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        try:
            console.print("\n".join(map(one_line, plan.dataset.summary().splitlines())), markup=False, highlight=False)
            for notice in plan.notices:
                console.print(f"[yellow]Note:[/yellow] {escape(notice)}")
            _prefetch(plan)
            summary = _run(plan, out, runs=runs, resume=resume, max_unavailable=max_unreachable)
        finally:
            plan.close()
        _conclude(summary, out, max_unreachable, scored=plan.dataset.scored)


def _dataset_path(argument: Path | None, option: Path | None) -> Path:
    if argument is not None and option is not None:
        raise typer.BadParameter("give the data set once: as DATASET or as --dataset", param_hint="'DATASET'")
    if argument is None and option is None:
        raise typer.BadParameter("name the questions to evaluate: arkg eval DATASET ...", param_hint="'DATASET'")
    return argument or option


def _prefetch(plan: EvalPlan) -> None:
    """Fetch missing per-question snapshots first, with a count; Ctrl-C keeps those already fetched."""
    try:
        fetched = plan.prefetch(lambda done, total: stderr.print(f"fetched neighbourhood {done}/{total}", highlight=False))
    except KeyboardInterrupt:
        stderr.print("[yellow]Interrupted[/yellow] while fetching neighbourhoods; those fetched are kept. Run again to go on.")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if fetched:
        console.print(f"{fetched} neighbourhood snapshot(s) fetched into {escape(str(plan.setup.snapshots.directory))}")


def _question_ids(ids: list[str] | None) -> list[str]:
    if ids is None:
        return []
    parts = [part.strip() for entry in ids for part in entry.split(",") if part.strip()]
    if not parts:
        raise typer.BadParameter("no question id given", param_hint="'--ids'")
    return parts


def _run(plan: EvalPlan, out: Path, *, runs: int, resume: bool, max_unavailable: int) -> RunSummary:
    """Run with progress on stderr; Ctrl-C once stops at the next model call, twice quits at once."""
    saved = 0

    def stopping() -> None:
        plan.stop.set()
        stderr.print(
            "[yellow]Stopping[/yellow]: no new question starts; questions in progress stop at their next model "
            "call. Press Ctrl-C again to quit at once."
        )

    display = eval_progress(stderr, one_line(f"{plan.config.strategy} · {plan.config.model}"))

    def on_progress(summary: RunSummary) -> None:
        nonlocal saved
        saved = summary.done
        display(summary)

    try:
        with display, two_step_ctrl_c(stopping):
            return run_evaluation(
                plan.questions, plan.setup, plan.config, out,
                runs=runs, concurrency=plan.concurrency, resume=resume,
                on_progress=on_progress, stop=plan.stop, max_unavailable=max_unavailable,
            )
    except QuitNow:
        stderr.print(
            f"[yellow]Quit[/yellow]: {saved} answer(s) of this run are saved in {escape(str(out))}; questions in "
            "progress were dropped. Continue with the same command plus --resume."
        )
        sys.stdout.flush()
        sys.stderr.flush()
        # At once: worker threads may be inside a long model call that nothing can cut short.
        os._exit(EXIT_INTERRUPTED)


def _conclude(summary: RunSummary, out: Path, max_unavailable: int, *, scored: bool) -> None:
    """Say how the run ended; exit with the status that tells it (see EXIT_CODES)."""
    where = escape(str(out))
    dropped = f"; {summary.cut_short} question(s) in progress were dropped" if summary.cut_short else ""
    if summary.stopped is StopReason.INTERRUPTED:
        stderr.print(
            f"[yellow]Stopped[/yellow]: {summary.done} answer(s) of this run saved in {where}{dropped}. "
            "Continue with the same command plus --resume."
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.stopped is StopReason.SERVER_DOWN:
        stderr.print(
            f"[red]Stopped early[/red]: the model server looks down: {max_unavailable} questions in a row could "
            f"not reach it ({escape(one_line(summary.unavailable_error or ''))}). Finished answers are saved in "
            f"{where}{dropped}; fix the server and rerun the same command with --resume."
        )
        raise typer.Exit(EXIT_SERVER_DOWN)
    console.print(f"{summary.done} answered, {summary.skipped} already in {where}, {summary.failed} failed.")
    if scored:
        _print_tables([out])
    else:
        console.print(f"No gold answers in the data set: the predictions are in {where}, nothing was scored.")
    if summary.failed:
        stderr.print(
            f"[red]{summary.failed} question(s) ended in an error[/red] (the `error` field of their records in "
            f"{where}); rerun the same command with --resume to retry only those."
        )
        raise typer.Exit(EXIT_FAILED_QUESTIONS)


def report(
    results: Annotated[list[Path], typer.Argument(help="Results files written by `arkg eval`.")],
    markdown: Annotated[Path | None, typer.Option("--md", help="Write a Markdown report with plots (PNG) beside it.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Write an HTML report with plots (PNG) beside it.")] = None,
) -> None:
    """Table III-style metrics with 95% intervals and constant baselines, open-question metrics (Hits@1, exact
    match, F1), paired McNemar tests, accuracy by reasoning strategy; optionally a report file with plots."""
    with user_errors():
        outputs = [(path, as_html) for path, as_html in ((markdown, False), (html, True)) if path is not None]
        for path, _ in outputs:
            check_writable_file(path, "report file")
        systems = _print_tables(results)
        for path, as_html in outputs:
            written = write_report(systems, path, as_html)
            console.print("Wrote " + ", ".join(escape(str(file)) for file in written))


def _print_tables(results: list[Path]) -> list[SystemReport]:
    systems = build_report(results, on_unscored=_unscored)
    if not systems:
        return systems
    for table in report_tables(systems):
        print_table(console, table)
    for warning in warnings(systems):
        console.print(f"[yellow]Warning:[/yellow] {escape(one_line(warning))}")
    for note in notes(systems):
        console.print(f"[dim]- {escape(one_line(note))}[/dim]")
    return systems


def _unscored(path: Path) -> None:
    console.print(f"{escape(str(path))}: no gold answers (questions asked without them): predictions only, nothing to score.")


def register(app: typer.Typer) -> None:
    app.command("eval", epilog=EXIT_CODES)(evaluate)
    app.command("report")(report)
