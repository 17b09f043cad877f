"""`arkg kg ...`: load, inspect and fetch knowledge graphs."""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.errors import ArkgError, EntityNotFound
from arkg.eval.colota import load_dataset
from arkg.graph import Direction, KnowledgeGraph, SQLiteGraph, Triple, open_graph
from arkg.graph.bolt import BoltWriter, is_bolt_spec, redact_spec
from arkg.graph.loaders import Record, detect_format, formats, read_json, register_format
from arkg.graph.open import SAMPLE
from arkg.paths import check_not_special
from arkg.text import one_line

app = typer.Typer(help="Load and inspect knowledge graphs.", no_args_is_help=True)

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="The KG: an arkg SQLite file, a SPARQL endpoint as wikidata:URL or rdf:URL, a Bolt server as"
        " bolt://HOST:PORT (Neo4j, Memgraph, FalkorDB; docs/bolt.md), or `sample`. Default: the bundled sample KG.",
    ),
]

COLOTA = "colota"
_COLOTA_START = re.compile(rb"\[\s*\{")


def _read_colota(path: Path) -> Iterator[Record]:
    """The gold triples of a CoLoTa data set (all entries, without repeats), as arkg.eval reads them."""
    read_json(path, item="entry")  # the checks every JSON loader makes (duplicate keys, nesting, ...)
    for triple in load_dataset(path).triples:
        yield triple.head, triple.relation, triple.tail, triple.props


def _is_colota(path: Path) -> bool:
    """A .json file whose first entry, within its first 64 KiB, is an object with a "KG Triples" field."""
    if path.suffix.lower() != ".json":
        return False
    try:
        with path.open("rb") as stream:
            start = stream.read(65_536).removeprefix(codecs.BOM_UTF8).lstrip()
    except OSError:
        return False
    return _COLOTA_START.match(start) is not None and b'"KG Triples"' in start


register_format(COLOTA, _read_colota, _is_colota)


@app.command()
def load(
    files: Annotated[
        list[Path],
        typer.Argument(help="KG files: .json (ARK-V1 graph, or a CoLoTa data set: its gold triples), .jsonl, .csv, .tsv, .nt, .ttl."),
    ],
    db: Annotated[
        str,
        typer.Option(
            "--db", help="The SQLite store to load into (created when missing), or a Bolt server: bolt://HOST:PORT."
        ),
    ],
    format: Annotated[
        str | None, typer.Option("--format", "-f", help=f"Read every file as this format: {', '.join(formats())}.")
    ] = None,
) -> None:
    """Load triples into a store, one transaction per file.

    A file that fails leaves nothing behind; files loaded before it stay, and a store the command
    created is removed when nothing could be loaded into it. Files already loaded (same content) are
    skipped, so an interrupted command can simply be run again. While another process writes to the
    same store, the load waits for it.
    """
    console = Console()
    started = time.perf_counter()
    done = _Done()
    if is_bolt_spec(db):
        _load_bolt(files, db, format, console, started, done)
        return
    with user_errors():
        if db == SAMPLE:
            raise ArkgError(f"`{SAMPLE}` names the bundled sample KG, which is read-only; for a file of that name write ./{SAMPLE}")
        check_not_special(Path(db), "KG store")
        created = not Path(db).exists()
        graph = SQLiteGraph(db, on_lock_wait=lambda: _waiting(console, db))
        try:
            _load_all(graph, files, format, console, done, _ROLLED_BACK)
            load_seconds = time.perf_counter() - started
            with console.status("Indexing entity names for search"):
                graph.build_search_index()
        except BaseException:
            if created and not done.files:
                graph.delete_if_empty()
            raise
        finally:
            graph.close()
    index_seconds = time.perf_counter() - started - load_seconds
    if not done.files:
        console.print(f"Nothing new to load into {_shown(db)}: every file was loaded before")
        return
    console.print(
        f"[green]Loaded {done.triples:,} triples[/green] from {done.files} file(s) into {_shown(db)}"
        f" in {load_seconds:.2f} s ({done.triples / load_seconds:,.0f} triples/s),"
        f" then indexed names for search in {index_seconds:.2f} s"
    )


def _load_bolt(files: list[Path], db: str, format: str | None, console: Console, started: float, done: _Done) -> None:
    """`kg load` into a Bolt server: the Bolt backend's write path (see arkg.graph.bolt.writer)."""
    shown = escape(redact_spec(db))
    with user_errors(), BoltWriter(db) as writer:
        _load_all(writer, files, format, console, done, _RESUMES)
        load_seconds = time.perf_counter() - started
        with console.status("Indexing entity names for search"):
            indexed = writer.build_search_index()
    if not done.files:
        console.print(f"Nothing new to load into {shown}: every file was loaded before")
        return
    index = "indexed names for search" if indexed else "no full-text index here: searches scan the names"
    console.print(
        f"[green]Loaded {done.triples:,} triples[/green] from {done.files} file(s) into {shown}"
        f" in {load_seconds:.2f} s; {index}"
    )


_ROLLED_BACK = "the file being loaded was rolled back"
_RESUMES = "the file being loaded is partly written (the same command takes it up where it stopped)"


@dataclass
class _Done:
    """What a `kg load` has committed so far."""

    files: int = 0
    triples: int = 0


def _load_all(
    graph: SQLiteGraph | BoltWriter, files: list[Path], format: str | None, console: Console, done: _Done, stopped: str
) -> None:
    try:
        for path in files:
            count = _load_one(graph, path, format, console)
            if count is None:
                console.print(f"[yellow]skipped[/yellow] {_shown(path)}: already loaded")
                continue
            done.triples += count
            done.files += 1
    except KeyboardInterrupt:
        Console(stderr=True).print(
            f"[yellow]Interrupted:[/yellow] {stopped}; {done.triples:,} triples loaded"
            " before it are kept. Run the same command again to continue.",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _load_one(graph: SQLiteGraph | BoltWriter, path: Path, format: str | None, console: Console) -> int | None:
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]:,} triples"),
        TimeElapsedColumn(),
    )
    format = format or detect_format(path)
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(_shown(path), total=None, count=0)
        count = graph.load(path, format, progress=lambda done: progress.update(task, count=done), skip_loaded=True)
    if count is not None:
        kind = " (the gold triples of a CoLoTa data set)" if format == COLOTA else ""
        console.print(f"{_shown(path)}: {count:,} triples{kind}")
    return count


def _waiting(console: Console, db: str) -> None:
    console.print(
        f"[yellow]Waiting:[/yellow] another process is writing to {_shown(db)}; the load goes on when it has"
        " finished (Ctrl-C to stop)",
        soft_wrap=True,
    )


def _shown(path: Path | str) -> str:
    return escape(one_line(str(path)))


@app.command()
def info(db: StoreOption = None) -> None:
    """Count the store's triples, entities, head entities and relations."""
    with user_errors(), closing(open_graph(db)) as graph:
        stats = graph.stats()
    table = Table(title=Text(one_line(redact_spec(db or SAMPLE))), show_header=False)
    for label, value in (
        ("triples", stats.triples),
        ("entities", stats.entities),
        ("head entities", stats.heads),
        ("relations", stats.relations),
    ):
        table.add_row(label, f"{value:,}")
    Console().print(table)


@app.command()
def show(entity: Annotated[str, typer.Argument(help="The entity's exact name.")], db: StoreOption = None) -> None:
    """List an entity's outgoing and incoming edges with their props."""
    with user_errors(), closing(open_graph(db)) as graph:
        if not graph.has_entity(entity):
            raise EntityNotFound(entity, [match.name for match in graph.search_entities(entity, 5)])
        outgoing = _edges(graph, entity, Direction.OUT)
        incoming = _edges(graph, entity, Direction.IN)
    # KG text is data: one_line shows its control characters (terminal escape sequences) as escapes.
    out_table = Table("relation", "tail", "props", title=Text(f"{one_line(entity)} → ({len(outgoing)} outgoing)"))
    for triple in outgoing:
        out_table.add_row(Text(one_line(triple.relation)), Text(one_line(triple.tail)), _props_text(triple))
    in_table = Table("head", "relation", "props", title=Text(f"→ {one_line(entity)} ({len(incoming)} incoming)"))
    for triple in incoming:
        in_table.add_row(Text(one_line(triple.head)), Text(one_line(triple.relation)), _props_text(triple))
    Console().print(out_table, in_table)


def _edges(graph: KnowledgeGraph, entity: str, direction: Direction) -> list[Triple]:
    relations = graph.relations(entity, direction)
    return [triple for relation in relations for triple in graph.triples(entity, relation, direction)]


def _props_text(triple: Triple) -> Text:
    return Text("\n".join(f"{one_line(key)}: {one_line(str(value))}" for key, value in triple.props.items()))


# `fetch` lives in its own module because it needs the SPARQL backend.
from arkg.cli import kg_fetch  # noqa: E402

kg_fetch.register(app)
