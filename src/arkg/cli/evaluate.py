"""`arkg eval` and `arkg report`: evaluation runs and their reports."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from arkg.agents.ark_settings import EdgeSet, SelectionMode
from arkg.cli.errors import user_errors
from arkg.cli.tables import print_table
from arkg.eval.report import SystemReport, build_report
from arkg.eval.report_render import notes, results_table, strategy_table, write_report
from arkg.eval.results import check_results_target
from arkg.eval.runner import StopReason, run_evaluation
from arkg.eval.setup import plan_evaluation
from arkg.text import one_line

console = Console(soft_wrap=True)


class StrategyName(str, Enum):
    ARK = "ark"
    COT = "cot"
    COT_FEWSHOT = "cot-fewshot"


def evaluate(
    dataset: Annotated[Path, typer.Option("--dataset", help="A CoLoTa-format JSON file (e.g. CR-LT-QA.json).")],
    strategy: Annotated[StrategyName, typer.Option("--strategy", help="ark, or a chain-of-thought baseline without the KG.")],
    out: Annotated[Path, typer.Option("--out", help="Results file (JSON lines), appended to as questions finish.")],
    model: Annotated[str, typer.Option("--model", help="Model spec, e.g. llamacpp (bundled), openai:MODEL@URL.")] = "llamacpp",
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per question; run r samples with seed S+r.")] = 1,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")] = 0.0,
    seed: Annotated[int, typer.Option("--seed", help="Base seed S.")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Questions in parallel (HTTP backends).")] = 1,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
    ids: Annotated[list[str] | None, typer.Option("--ids", help="Only these question ids (repeat, or comma-separate).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue OUT, skipping questions already answered.")] = False,
    mode: Annotated[SelectionMode, typer.Option("--mode", help="ARK: free-text picks (paper) or constrained decoding.")] = SelectionMode.CONSTRAINED,
    edges: Annotated[EdgeSet, typer.Option("--edges", help="ARK: explore outgoing edges only, or both directions.")] = EdgeSet.OUT,
    db: Annotated[str | None, typer.Option("--db", help="ARK: this KG (SQLite store, or wikidata:URL / rdf:URL) instead of the data set's gold triples.")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Token budget per model call.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the response cache.")] = False,
) -> None:
    """Run a strategy over a CoLoTa data set; each answer is saved as soon as it is known."""
    with user_errors():
        check_results_target(out, resume)
        plan = plan_evaluation(
            dataset, strategy.value, model,
            temperature=temperature, seed=seed, max_tokens=max_tokens, mode=mode, edges=edges, db=db,
            ids=[part for entry in ids or [] for part in entry.split(",") if part.strip()],
            limit=limit, concurrency=concurrency, cache=not no_cache,
        )
        try:
            console.print("\n".join(map(one_line, plan.dataset.summary().splitlines())), markup=False, highlight=False)
            for notice in plan.notices:
                console.print(f"[yellow]Note:[/yellow] {escape(notice)}")
            summary = run_evaluation(
                plan.questions, plan.factory, plan.config, out,
                runs=runs, concurrency=plan.concurrency, resume=resume,
            )
        finally:
            plan.close()
        if summary.stopped is StopReason.INTERRUPTED:
            console.print(f"[yellow]Interrupted[/yellow]: {summary.done} answer(s) saved in {escape(str(out))}; "
                          "continue with the same command plus --resume.")
            raise typer.Exit(130)
        console.print(f"{summary.done} answered, {summary.skipped} already in {escape(str(out))}, {summary.failed} failed.")
        _print_tables([out])


def report(
    results: Annotated[list[Path], typer.Argument(help="Results files written by `arkg eval`.")],
    markdown: Annotated[Path | None, typer.Option("--md", help="Write a Markdown report with plots (PNG) beside it.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Write an HTML report with plots (PNG) beside it.")] = None,
) -> None:
    """Table III-style metrics, accuracy by reasoning strategy, and optionally a report file with plots."""
    with user_errors():
        systems = _print_tables(results)
        for path, as_html in ((markdown, False), (html, True)):
            if path is not None:
                written = write_report(systems, path, as_html)
                console.print("Wrote " + ", ".join(escape(str(file)) for file in written))


def _print_tables(results: list[Path]) -> list[SystemReport]:
    systems = build_report(results)
    for table in (results_table(systems), strategy_table(systems)):
        print_table(console, table)
    for note in notes(systems):
        console.print(f"[dim]- {escape(one_line(note))}[/dim]")
    return systems


def register(app: typer.Typer) -> None:
    app.command("eval")(evaluate)
    app.command("report")(report)
