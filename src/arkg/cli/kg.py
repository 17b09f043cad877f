"""`arkg kg ...`: load, inspect and fetch knowledge graphs."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from arkg.cli.errors import user_errors
from arkg.errors import EntityNotFound
from arkg.graph import Direction, KnowledgeGraph, SQLiteGraph, Triple, open_graph
from arkg.graph.loaders import READERS

app = typer.Typer(help="Load and inspect knowledge graphs.", no_args_is_help=True)

StoreOption = Annotated[str, typer.Option("--db", help="The KG: an arkg SQLite file, or a SPARQL endpoint as wikidata:URL or rdf:URL.")]


@app.command()
def load(
    files: Annotated[
        list[Path], typer.Argument(help="KG files: .json (ARK-V1/CoLoTa), .jsonl, .csv, .tsv, .nt, .ttl.")
    ],
    db: Annotated[Path, typer.Option("--db", help="The SQLite store to load into (created when missing).")],
    format: Annotated[
        str | None, typer.Option("--format", "-f", help=f"Read every file as this format: {', '.join(READERS)}.")
    ] = None,
) -> None:
    """Load triples into a store, one transaction per file.

    A file that fails leaves nothing behind; files loaded before it stay. Files already loaded
    (same content) are skipped, so an interrupted command can simply be run again.
    """
    console = Console()
    started = time.perf_counter()
    loaded = loaded_files = 0
    with user_errors(), SQLiteGraph(db) as graph:
        try:
            for path in files:
                if graph.has_loaded(path):
                    console.print(f"[yellow]skipped[/yellow] {escape(str(path))}: already loaded")
                    continue
                loaded += _load_one(graph, path, format, console)
                loaded_files += 1
        except KeyboardInterrupt:
            Console(stderr=True).print(
                f"[yellow]Interrupted:[/yellow] the file being loaded was rolled back; {loaded:,} triples loaded"
                " before it are kept. Run the same command again to continue.",
                soft_wrap=True,
            )
            raise typer.Exit(130) from None
        load_seconds = time.perf_counter() - started
        with console.status("Indexing entity names for search"):
            graph.build_search_index()
    index_seconds = time.perf_counter() - started - load_seconds
    console.print(
        f"[green]Loaded {loaded:,} triples[/green] from {loaded_files} file(s) into {escape(str(db))}"
        f" in {load_seconds:.2f} s ({loaded / load_seconds:,.0f} triples/s),"
        f" then indexed names for search in {index_seconds:.2f} s"
    )


def _load_one(graph: SQLiteGraph, path: Path, format: str | None, console: Console) -> int:
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]:,} triples"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(escape(str(path)), total=None, count=0)
        count = graph.load(path, format, progress=lambda done: progress.update(task, count=done))
    console.print(f"{escape(str(path))}: {count:,} triples")
    return count


@app.command()
def info(db: StoreOption) -> None:
    """Count the store's triples, entities, head entities and relations."""
    with user_errors(), closing(open_graph(db)) as graph:
        stats = graph.stats()
    table = Table(title=escape(db), show_header=False)
    for label, value in (
        ("triples", stats.triples),
        ("entities", stats.entities),
        ("head entities", stats.heads),
        ("relations", stats.relations),
    ):
        table.add_row(label, f"{value:,}")
    Console().print(table)


@app.command()
def show(entity: Annotated[str, typer.Argument(help="The entity's exact name.")], db: StoreOption) -> None:
    """List an entity's outgoing and incoming edges with their props."""
    with user_errors(), closing(open_graph(db)) as graph:
        if not graph.has_entity(entity):
            raise EntityNotFound(entity, [match.name for match in graph.search_entities(entity, 5)])
        outgoing = _edges(graph, entity, Direction.OUT)
        incoming = _edges(graph, entity, Direction.IN)
    out_table = Table("relation", "tail", "props", title=Text(f"{entity} → ({len(outgoing)} outgoing)"))
    for triple in outgoing:
        out_table.add_row(Text(triple.relation), Text(triple.tail), _props_text(triple))
    in_table = Table("head", "relation", "props", title=Text(f"→ {entity} ({len(incoming)} incoming)"))
    for triple in incoming:
        in_table.add_row(Text(triple.head), Text(triple.relation), _props_text(triple))
    Console().print(out_table, in_table)


def _edges(graph: KnowledgeGraph, entity: str, direction: Direction) -> list[Triple]:
    relations = graph.relations(entity, direction)
    return [triple for relation in relations for triple in graph.triples(entity, relation, direction)]


def _props_text(triple: Triple) -> Text:
    return Text("\n".join(f"{key}: {value}" for key, value in triple.props.items()))


# `fetch` lives in its own module because it needs the SPARQL backend.
from arkg.cli import kg_fetch  # noqa: E402

kg_fetch.register(app)
