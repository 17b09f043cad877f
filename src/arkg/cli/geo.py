"""`arkg geo ...`: build the geography KG and generate questions over it (needs the `geo` extra)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.tables import print_table
from arkg.datasets.geo import build_geo_kg, generate_questions, write_questions
from arkg.datasets.geo.build import DEFAULT_MIN_CITY_POPULATION
from arkg.datasets.geo.questions import DEFAULT_PER_TEMPLATE
from arkg.datasets.geo.summary import summary_table
from arkg.datasets.geo.questions import TEMPLATES
from arkg.errors import ArkgError
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.paths import check_writable_file

app = typer.Typer(help="A geography KG from real data, and questions with gold programs over it.", no_args_is_help=True)


@app.command()
def build(
    db: Annotated[Path, typer.Argument(help="The SQLite store to write (must not exist unless --force).")],
    min_city_population: Annotated[int, typer.Option(**ANY_INT, help="Keep cities with at least this many people (capitals always).")] = DEFAULT_MIN_CITY_POPULATION,
    people: Annotated[int, typer.Option(min=0, max=MAX_INT, help="Add this many fictional people born in its cities (for questions about people).")] = 0,
    people_seed: Annotated[int, typer.Option(**ANY_INT, help="Seed of the fictional people.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,
) -> None:
    """Build the geography KG; an interrupted or failed build leaves no file."""
    console = Console()
    columns = (TextColumn("Writing triples"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with user_errors(), Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("build", total=None)
        try:
            result = build_geo_kg(
                db,
                min_city_population=min_city_population,
                people=people,
                people_seed=people_seed,
                overwrite=force,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
        except KeyboardInterrupt:
            Console(stderr=True).print("[yellow]Interrupted:[/yellow] nothing was written.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    stats = result.stats
    console.print(
        f"[green]Built[/green] {escape(str(db))}: {stats.triples:,} triples, {stats.entities:,} entities,"
        f" {stats.relations} relations in {result.seconds:.1f} s"
    )


@app.command()
def questions(
    db: Annotated[Path, typer.Option("--db", help="The geography KG built by `arkg geo build`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The JSON Lines file to write.")],
    seed: Annotated[int, typer.Option(**ANY_INT, help="Random seed: the same seed gives the same questions.")] = 0,
    per_template: Annotated[int, typer.Option(**ANY_INT, help="At most this many questions per template.")] = DEFAULT_PER_TEMPLATE,
) -> None:
    """Generate questions with gold programs, answers and evidence over the geography KG."""
    console = Console()
    with user_errors():
        check_writable_file(out, "questions file")
        with closing(SQLiteGraph(db, create=False)) as graph:
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
            with Progress(*columns, console=console, transient=True) as bar:
                task = bar.add_task("Templates", total=len(TEMPLATES))
                made = generate_questions(
                    graph.iter_triples(), seed=seed, per_template=per_template, progress=lambda name, count: bar.advance(task)
                )
        if not made:
            raise ArkgError(
                f"{db}: no template found a question in this KG; `arkg geo questions` needs the geography KG"
                " that `arkg geo build` writes"
            )
        count = write_questions(made, out)
    print_table(console, summary_table(made))
    console.print(f"[green]Wrote {count:,} questions[/green] from {len(TEMPLATES)} templates to {escape(str(out))}")


def register(app_: typer.Typer) -> None:
    """Add the `geo` command group to the main CLI."""
    app_.add_typer(app, name="geo")
