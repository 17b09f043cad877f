"""`arkg questions`: verified questions with gold programs from any KG arkg reads."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.llm.spec import open_model
from arkg.synth.kg_questions import write_kg_questions

PHASES = {"sampling": "Sampling entities", "questions": "Making questions", "paraphrasing": "Rewording"}


def questions(
    db: Annotated[str, typer.Option("--db", help="The KG: a SQLite store, `sample`, wikidata:URL / rdf:URL, or bolt://HOST:PORT.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The JSON Lines question file to write.")],
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_INT, help="At most this many questions (the KG is sampled in proportion).")] = 1000,
    split: Annotated[float | None, typer.Option("--split", help="Hold out this share of anchor entities (such as 0.2) as `test`; the rest is `train`.")] = None,
    seed: Annotated[int, typer.Option(**ANY_INT, help="Random seed: the same KG and seed give the same questions.")] = 0,
    paraphrase_model: Annotated[
        str | None,
        typer.Option("--paraphrase-model", help="A model spec (as --model takes) that rewrites each wording; a rewrite that drops, changes or adds a name, or names the answer, is rejected."),
    ] = None,
) -> None:
    """Questions with gold answers, programs and evidence from any KG, each replayed on it; `arkg eval` reads the file."""
    console = Console()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with user_errors(), Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, object] = {}

        model = open_model(paraphrase_model) if paraphrase_model is not None else None

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(PHASES.get(phase, "Making questions"), total=total)
            bar.update(tasks[phase], completed=done)  # type: ignore[arg-type]

        try:
            report = write_kg_questions(db, out, limit=limit, seed=seed, test_share=split, progress=progress, paraphrase_model=model)
        except KeyboardInterrupt:
            Console(stderr=True).print("[yellow]Interrupted:[/yellow] nothing was written.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    by_template: dict[str, int] = {}
    for question in report.made.questions:
        by_template[question.template] = by_template.get(question.template, 0) + 1
    console.print(", ".join(f"{name} {count}" for name, count in by_template.items()), highlight=False)
    sides = f" ({report.test:,} test, {report.written - report.test:,} train; {report.dropped:,} dropped for naming a test anchor)" if split is not None else ""
    if report.paraphrased is not None and model is not None:
        rejected = ", ".join(f"{count} {reason}" for reason, count in report.paraphrased.rejected.most_common())
        console.print(f"Reworded {report.paraphrased.rewritten:,} by {escape(model.name)}; kept the template's wording for the rest ({escape(rejected) or 'none'})", highlight=False)
    console.print(f"[green]Wrote {report.written:,} questions[/green]{sides} to {escape(str(out))}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `arkg questions` to the main CLI."""
    app.command("questions")(questions)
