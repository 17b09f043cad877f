"""`arkg kg ...`: load, inspect and fetch knowledge graphs."""

from __future__ import annotations

import codecs
import json
import re
import shlex
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

from arkg.cli.bounds import MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.on_demand import commands_on_demand
from arkg.errors import ArkgError, EntityNotFound
from arkg.graph import Direction, KnowledgeGraph, SQLiteGraph, Triple, open_graph
from arkg.graph.model import GraphInventory
from arkg.graph.sqlite_store import LoadReport, NameDuplicates
from arkg.graph.bolt import BoltWriter, is_bolt_spec, redact_spec
from arkg.graph.loaders import Record, detect_format, formats, read_json, register_format
from arkg.graph.open import SAMPLE
from arkg.paths import check_not_special
from arkg.text import one_line

# `fetch` lives in its own module, imported when it runs: it needs the SPARQL backend and the agents' options.
app = typer.Typer(
    cls=commands_on_demand({"fetch": "kg_fetch"}), help="Load and inspect knowledge graphs.", no_args_is_help=True
)

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
    from arkg.eval.colota import load_dataset  # imported here: arkg.eval takes a second, which other loads skip

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
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Swap the store's whole content for the file's, in one transaction (one file)."),
    ] = False,
    defer_index: Annotated[
        bool,
        typer.Option(
            "--defer-index",
            help="Leave names out of the search index (a third faster): the first search, or `arkg kg index`, builds it"
            " and reports likely duplicates.",
        ),
    ] = False,
) -> None:
    """Load triples into a store, one transaction per file; formats: docs/kg-formats.md.

    An edge the store already holds is not added again, so loading is idempotent. A file that fails
    leaves nothing behind; files loaded before it stay, and a store the command created is removed
    when nothing could be loaded into it. Files already loaded (same content) are skipped, so an
    interrupted command can simply be run again. While another process writes to the same store,
    the load waits for it. Names that differ only in case, accents or spacing are reported.
    """
    console = Console()
    started = time.perf_counter()
    done = _Done()
    with user_errors():
        if replace and len(files) != 1:
            raise ArkgError("--replace takes exactly one file: the store's content becomes that file's")
        if defer_index and is_bolt_spec(db):
            raise ArkgError("--defer-index is for arkg SQLite stores; a Bolt server indexes names as it loads them")
    if is_bolt_spec(db) and not replace:
        _load_bolt(files, db, format, console, started, done)
        return
    with user_errors():
        graph, created = _open_for_writing(db, console, "load --replace" if replace else "load", create=True)
        try:
            _load_all(graph, files, format, console, done, _ROLLED_BACK, replace=replace, defer_index=defer_index)
        except BaseException:
            if created and not done.files:
                graph.delete_if_empty()
            raise
        finally:
            graph.close()
    seconds = time.perf_counter() - started
    if not done.files:
        console.print(f"Nothing new to load into {_shown(db)}: every file was loaded before")
        return
    indexed = "search index deferred to the first search or `arkg kg index`" if defer_index else "names indexed for search"
    console.print(
        f"[green]Loaded {done.triples:,} triples[/green] from {done.files} file(s) into {_shown(db)}"
        f" in {seconds:.2f} s ({done.triples / seconds:,.0f} triples/s, {indexed}):"
        f" {done.added:,} added, {done.triples - done.added:,} already present"
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
    added: int = 0


def _open_for_writing(db: str, console: Console, command: str, create: bool = False) -> tuple[SQLiteGraph, bool]:
    """The SQLite store a command writes to, and whether this created its file; says when it was upgraded."""
    if is_bolt_spec(db):
        raise ArkgError(f"kg {command} is not supported by the Bolt backend; it works on arkg SQLite stores")
    if db == SAMPLE:
        raise ArkgError(f"`{SAMPLE}` names the bundled sample KG, which is read-only; for a file of that name write ./{SAMPLE}")
    check_not_special(Path(db), "KG store")
    created = create and not Path(db).exists()
    graph = SQLiteGraph(db, create=create, on_lock_wait=lambda: _waiting(console, db))
    if graph.upgraded is not None:
        console.print(
            f"Upgraded {_shown(db)} to this arkg's store format: {graph.upgraded.repeated_edges:,} edge(s) stored"
            " more than once are now stored once"
        )
        _report_duplicates(graph.upgraded.duplicate_names, db, console)
    return graph, created


def _load_all(
    graph: SQLiteGraph | BoltWriter,
    files: list[Path],
    format: str | None,
    console: Console,
    done: _Done,
    stopped: str,
    replace: bool = False,
    defer_index: bool = False,
) -> None:
    try:
        for path in files:
            result = _load_one(graph, path, format, console, replace, defer_index)
            if result is None:
                console.print(f"[yellow]skipped[/yellow] {_shown(path)}: already loaded")
                continue
            if isinstance(result, LoadReport):
                done.triples += result.read
                done.added += result.added
                if result.duplicate_names is not None:
                    _report_duplicates(result.duplicate_names, str(graph.path), console)
            else:  # the Bolt writer tells the records read only
                done.triples += result
                done.added += result
            done.files += 1
    except KeyboardInterrupt:
        Console(stderr=True).print(
            f"[yellow]Interrupted:[/yellow] {stopped}; {done.triples:,} triples loaded"
            " before it are kept. Run the same command again to continue.",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _load_one(
    graph: SQLiteGraph | BoltWriter,
    path: Path,
    format: str | None,
    console: Console,
    replace: bool = False,
    defer_index: bool = False,
) -> LoadReport | int | None:
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
        update = lambda done: progress.update(task, count=done)  # noqa: E731
        if isinstance(graph, BoltWriter):
            result = graph.load(path, format, progress=update, skip_loaded=True)
        else:
            result = graph.load(path, format, progress=update, skip_loaded=not replace, replace=replace, defer_index=defer_index)
    if result is not None:
        kind = " (the gold triples of a CoLoTa data set)" if format == COLOTA else ""
        if isinstance(result, LoadReport):
            what = "replaced the store's content: " if replace else ""
            console.print(
                f"{_shown(path)}: {result.read:,} triples{kind}; {what}{result.added:,} added,"
                f" {result.present:,} already present"
            )
        else:
            console.print(f"{_shown(path)}: {result:,} triples{kind}")
    return result


def _report_duplicates(duplicates: NameDuplicates, db: str, console: Console) -> None:
    """Say which names look like one entity written two ways, and how to merge them."""
    if not duplicates.count:
        return
    examples = "; ".join(" / ".join(repr(one_line(name)) for name in names) for names in duplicates.examples)
    keep, gone, *_ = duplicates.examples[0]
    command = shlex.join(["arkg", "kg", "merge", keep, gone, "--db", db])
    console.print(
        f"[yellow]Likely duplicates:[/yellow] {duplicates.count:,} set(s) of names differ only in case, accents"
        f" or spacing, e.g. {escape(examples)}. To make two one entity: {escape(one_line(command))}",
        soft_wrap=True,
    )


def _waiting(console: Console, db: str) -> None:
    console.print(
        f"[yellow]Waiting:[/yellow] another process is writing to {_shown(db)}; the load goes on when it has"
        " finished (Ctrl-C to stop)",
        soft_wrap=True,
    )


def _shown(path: Path | str) -> str:
    return escape(one_line(str(path)))


@app.command()
def index(db: Annotated[str, typer.Option("--db", help="The arkg SQLite store.")]) -> None:
    """Build the search index of the names a load left out (`kg load --defer-index`), and report likely duplicates.

    One transaction: searches meanwhile see the index as it was. Without it, the first search builds it.
    """
    console = Console()
    started = time.perf_counter()
    pending: list[int] = []
    with user_errors():
        graph, _ = _open_for_writing(db, console, "index")
        with closing(graph):
            duplicates = graph.build_search_index(on_build=pending.append)
    if not pending:
        console.print(f"The search index of {_shown(db)} is up to date")
        return
    console.print(f"Indexed {pending[0]:,} names of {_shown(db)} for search in {time.perf_counter() - started:.2f} s")
    _report_duplicates(duplicates, db, console)


@app.command()
def remove(
    files: Annotated[list[Path], typer.Argument(help="KG files whose edges to take out (any format `kg load` reads).")],
    db: Annotated[str, typer.Option("--db", help="The arkg SQLite store to remove from.")],
    format: Annotated[
        str | None, typer.Option("--format", "-f", help=f"Read every file as this format: {', '.join(formats())}.")
    ] = None,
) -> None:
    """Take out of the store the edges that the files hold (same head, relation, tail and props).

    One transaction per file; entities and relations left without edges go too.
    """
    console = Console()
    with user_errors():
        graph, _ = _open_for_writing(db, console, "remove")
        with closing(graph):
            for path in files:
                removed = graph.remove(path, format)
                console.print(f"{_shown(path)}: removed {removed:,} edge(s) from {_shown(db)}")


@app.command()
def merge(
    keep: Annotated[str, typer.Argument(help="The entity to keep (exact name).")],
    gone: Annotated[str, typer.Argument(help="The entity to merge into it and remove (exact name).")],
    db: Annotated[str, typer.Option("--db", help="The arkg SQLite store.")],
) -> None:
    """Make two entities one: GONE's edges are re-pointed to KEEP, then GONE is removed (one transaction).

    An edge that becomes identical to one KEEP already has is kept once.
    """
    console = Console()
    with user_errors():
        graph, _ = _open_for_writing(db, console, "merge")
        with closing(graph):
            report = graph.merge(keep, gone)
    console.print(
        f"Merged {escape(repr(one_line(gone)))} into {escape(repr(one_line(keep)))}: {report.moved:,} edge(s)"
        f" re-pointed, {report.collapsed:,} dropped as identical to edges it already had"
    )


@app.command()
def entities(
    search: Annotated[
        str | None, typer.Option("--search", "-s", help="Only names containing this text (case and accents ignored).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=MAX_INT, help="At most this many entities.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False,
    db: StoreOption = None,
) -> None:
    """List entities with their edge counts, most edges first (then by name)."""
    with user_errors(), closing(open_graph(db, read_only=True)) as graph:
        rows = _inventory(graph).entity_counts(search, limit)
    if as_json:
        records = [{"name": r.name, "edges": r.edges, "outgoing": r.outgoing, "incoming": r.incoming} for r in rows]
        typer.echo(json.dumps(records, ensure_ascii=False))
        return
    table = Table("entity", "edges", "outgoing", "incoming", title=Text(f"{len(rows):,} entities"))
    for row in rows:
        table.add_row(Text(one_line(row.name)), f"{row.edges:,}", f"{row.outgoing:,}", f"{row.incoming:,}")
    Console().print(table)


@app.command()
def relations(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False,
    db: StoreOption = None,
) -> None:
    """List every relation with its number of edges, most first (then by name)."""
    with user_errors(), closing(open_graph(db, read_only=True)) as graph:
        rows = _inventory(graph).relation_counts()
    if as_json:
        typer.echo(json.dumps([{"relation": r.name, "edges": r.edges} for r in rows], ensure_ascii=False))
        return
    table = Table("relation", "edges", title=Text(f"{len(rows):,} relations"))
    for row in rows:
        table.add_row(Text(one_line(row.name)), f"{row.edges:,}")
    Console().print(table)


def _inventory(graph: KnowledgeGraph) -> GraphInventory:
    if not isinstance(graph, GraphInventory):
        raise ArkgError(
            f"listing entities and relations is not supported by this backend ({type(graph).__name__});"
            " it works on arkg SQLite stores (`arkg kg load FILE --db kg.db`)"
        )
    return graph


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
    table.add_row("adapters", _adapters(db))
    Console().print(table)


def _adapters(db: str | None) -> Text:
    """What `arkg adapt` left for this KG: each adapted strategy's score before and after, and which
    strategy runs take by default; a record that cannot be used says why."""
    from arkg.errors import ModelError
    from arkg.llm.adapted import adapted_folder, read_adapted

    try:
        record = read_adapted(db)
    except ModelError as error:
        return Text(f"unusable: {one_line(str(error))}", style="yellow")
    if record is None:
        return Text("the shipped ones (`arkg adapt` tunes adapters for this KG)")
    lines = [f"tuned for this KG in {adapted_folder(db)}; default strategy {record.best_strategy}"]
    for name, outcome in record.strategies.items():
        use = "" if outcome.used else ", not used (below the shipped adapter)"
        lines.append(f"{name}: test questions {outcome.before} -> {outcome.after}{use}")
    return Text("\n".join(lines))


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


def register(app_: typer.Typer) -> None:
    """Add the `kg` command group to the main CLI."""
    app_.add_typer(app, name="kg")
