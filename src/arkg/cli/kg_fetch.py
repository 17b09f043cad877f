"""`arkg kg fetch`: snapshot a SPARQL endpoint's neighbourhood into the embedded store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arkg.cli.bounds import MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.options import positive_seconds
from arkg.errors import ArkgError
from arkg.graph.sparql import SCHEMAS, SparqlClient, SparqlGraph, fetch_snapshot
from arkg.graph.sqlite_store import SQLiteGraph, check_store_path
from arkg.paths import check_not_special

_err = Console(stderr=True)


def fetch(
    endpoint: Annotated[str, typer.Option(help="SPARQL endpoint URL, e.g. https://query.wikidata.org/sparql")],
    entities: Annotated[
        list[str],
        typer.Option("--entities", "-e", help="Entity to start from: an id (Q42) or a label; repeat for more."),
    ],
    db: Annotated[Path, typer.Option(help="SQLite store to write (an existing store is replaced; any other file only with --force).")],
    schema: Annotated[str, typer.Option(help=f"How the endpoint lays out its graph: {' | '.join(SCHEMAS)}.")] = "wikidata",
    hops: Annotated[int, typer.Option(min=1, max=MAX_INT, help="How many hops around the entities to copy.")] = 1,
    lang: Annotated[
        list[str] | None, typer.Option(help="Label language; repeat for a fallback chain (--lang en --lang de).")
    ] = None,
    timeout: Annotated[float, typer.Option(callback=positive_seconds, help="Seconds to wait for each query.")] = 60.0,
    force: Annotated[bool, typer.Option("--force", help="Replace --db even if it is not an arkg store.")] = False,
) -> None:
    """Copy the N-hop neighbourhood (out and in edges, with props) of some entities into a SQLite store,
    so later runs can use exactly the same graph offline."""
    try:
        with user_errors():
            # Before the queries, which can take minutes.
            check_store_path(db)
            check_not_special(db, "KG store")
            if not force:
                _check_replaceable(db)
            graph = SparqlGraph(SparqlClient(endpoint, timeout=timeout), schema, languages=lang or ["en"])
            columns = (TextColumn("hop {task.fields[hop]}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            with Progress(*columns, console=_err, transient=True) as progress:
                task = progress.add_task("fetch", hop=1, total=None)

                def advance(hop: int, done: int, total: int) -> None:
                    progress.update(task, hop=hop, completed=done, total=total)

                snapshot = fetch_snapshot(graph, entities, hops, db, progress=advance)
    except KeyboardInterrupt:
        _err.print(f"[yellow]Interrupted:[/yellow] {escape(str(db))} was left as it was.", soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    stats = snapshot.stats
    typer.echo(
        f"{snapshot.path}: {stats.triples} triples, {stats.entities} entities, {stats.relations} relations "
        f"({hops} hop{'s' if hops > 1 else ''} around {snapshot.seeds} node{'s' if snapshot.seeds > 1 else ''}, "
        f"{graph.client.requests} queries)"
    )


def _check_replaceable(db: Path) -> None:
    """Refuse to replace a file that is not an arkg store (a text file, another program's database), as
    `kg load` refuses to write into one: it is opened the same way. An empty file holds nothing to lose."""
    if not db.is_file() or db.stat().st_size == 0:
        return
    try:
        SQLiteGraph(db, create=False, read_only=True).close()
    except ArkgError as error:
        raise ArkgError(f"{error}; `kg fetch` would replace it: pass --force to do so, or choose another --db") from None


def register(app: typer.Typer) -> None:
    app.command("fetch")(fetch)
