"""The embedded property-graph store: SQLite, in a file or in memory.

Schema: entity and relation names are interned to integer ids, so an edge is four integers and an
optional JSON object of props.

    entities(id, name, outgoing, incoming)
                                  unique index on name; names are stored trimmed of surrounding white space;
                                  outgoing / incoming count the entity's edges (kept up to date by every write,
                                  indexed by their sum, so the best connected entities are listed without a scan)
    relations(id, name, edges)    unique name; `edges` counts the relation's edges (kept up to date by every write)
    edges(id, head, rel, tail, props)
        edges_key(head, rel, tail, props), unique: an edge is stored once. props is canonical JSON (sorted
        keys, '' for none), so edges that differ only in the order of their props are the same edge.
        Parallel edges (another relation, or other props, between the same pair) are all kept.
        edges_key also serves outgoing lookups, edges_in(tail, rel) incoming ones: every lookup is an
        index range, never a scan.
    entity_search                 FTS5 trigram index of folded entity names (search_entities); it keeps
                                  which names hold each trigram, not where (detail 'none'): half the
                                  work of a load's index, and a search checks its candidates' names
    entity_folded(folded, id)     folded names, to find names that differ only in case, accents or spacing
    sources                       the files loaded, by content digest (lets a repeated load be skipped)
    meta                          bookkeeping (how far entity_search and entity_folded are built: a load
                                  with defer_index leaves it to the first search or build_search_index)

Stores of older versions are upgraded when opened for writing (see _upgrade): version 1 had no edge
key and unsorted props, version 2 no entity edge counts, version 3 kept trigram positions.

Writers take SQLite's write lock for a whole transaction (BEGIN IMMEDIATE); a second writer, e.g.
another `arkg kg load` into the same file, waits for it (LOCK_TIMEOUT at most), so that two loads of
the same file at once load it once: the "already loaded" check runs inside the write transaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from types import TracebackType

from rapidfuzz import fuzz, process

from arkg.errors import ArkgError, EntityNotFound, LoadError
from arkg.graph.loaders import Record, detect_format, read_records
from arkg.graph.matching import fold, rank
from arkg.graph.model import Direction, EntityCount, KGStats, Match, PropValue, RelationCount, Triple
from arkg.graph.sqlite_writer import (
    BatchMaker,
    BatchWriter,
    EdgeKeys,
    FoldedNamesAside,
    batches_of,
    encode_props,
    gc_paused,
    made_ahead,
)

APPLICATION_ID = 0x61726B67  # "arkg": marks a SQLite file as an arkg store
SCHEMA_VERSION = 4
_READABLE_VERSIONS = (1, 2, 3, 4)  # an older store is read as it is, and upgraded when opened for writing
BATCH_SIZE = 20_000
# How long a writer waits for another connection's write transaction. A load of 10M triples holds
# the lock for about two minutes; a wait of a few seconds would fail loads that only had to queue.
LOCK_TIMEOUT = 600.0
_READ_BUSY_MS = 5_000  # a reader waits this long for a commit in progress (Python's default)
_POLL_BUSY_MS = 200  # a writer's wait for the lock, cut into steps so Ctrl-C and the timeout get through
# Helper threads SQLite may sort with when it builds an index: only for a sort larger than the page
# cache (a 1M-triple load sorts in memory, on the calling thread).
_SORT_THREADS = min(os.cpu_count() or 1, 4)

_ENTITY_SEARCH_TABLE = (
    "CREATE VIRTUAL TABLE entity_search USING fts5(name, tokenize = 'trigram', content = '', detail = 'none', columnsize = 0)"
)
_ENTITY_FOLDED_TABLE = (
    "CREATE TABLE entity_folded (folded TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (folded, id)) WITHOUT ROWID"
)
_TABLES = f"""
CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    outgoing INTEGER NOT NULL DEFAULT 0,
    incoming INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE relations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, edges INTEGER NOT NULL DEFAULT 0);
CREATE TABLE edges (
    id INTEGER PRIMARY KEY,
    head INTEGER NOT NULL,
    rel INTEGER NOT NULL,
    tail INTEGER NOT NULL,
    props TEXT NOT NULL DEFAULT ''
);
CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    format TEXT NOT NULL,
    triples INTEGER NOT NULL,
    loaded_at TEXT NOT NULL
);
CREATE INDEX sources_digest ON sources(digest);
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
{_ENTITY_SEARCH_TABLE};
{_ENTITY_FOLDED_TABLE};
"""

_LOOKUP_INDEXES = {
    "entities_name": "CREATE UNIQUE INDEX entities_name ON entities(name)",
    "edges_key": "CREATE UNIQUE INDEX edges_key ON edges(head, rel, tail, props)",
    "edges_in": "CREATE INDEX edges_in ON edges(tail, rel)",
    "entities_edges": "CREATE INDEX entities_edges ON entities(outgoing + incoming)",
}
# Dropped while bulk-loading into an empty store and built after: sorting the names once costs about
# 1.0 s per 1M names, inserting them into the index one by one 1.7 s. The edge indexes stay: kept row
# by row they cost about 1.1 s per 1M edges, as much as building them after the load (0.85 s) and
# finding the edges a file repeats, which the edge key leaves out as they come.
_BUILT_AFTER_BULK = ("entities_name", "entities_edges")
_ASIDE = "arkg_folded_aside"  # the schema name of a FoldedNamesAside's file, attached to copy its table

_ENTITY_ID = "(SELECT id FROM entities WHERE name = :entity)"
_RELATION_ID = "(SELECT id FROM relations WHERE name = :relation)"
_OUT, _IN = f"e.head = {_ENTITY_ID}", f"e.tail = {_ENTITY_ID}"


def _distinct_relations_sql(column: str) -> str:
    """Distinct relations of the entity's edges, one index seek per relation (a loose index scan).

    A plain DISTINCT reads every edge of a hub entity (4x slower for 20k edges of 1,000 relations).
    """
    return f"""
    WITH RECURSIVE entity(id) AS MATERIALIZED (SELECT id FROM entities WHERE name = :entity),
    found(rel) AS (
        SELECT (SELECT min(rel) FROM edges WHERE {column} = (SELECT id FROM entity))
        UNION ALL
        SELECT (SELECT min(rel) FROM edges WHERE {column} = (SELECT id FROM entity) AND rel > found.rel)
        FROM found WHERE found.rel IS NOT NULL
    )
    SELECT r.name FROM found JOIN relations r ON r.id = found.rel ORDER BY r.name"""


_RELATIONS_SQL = {Direction.OUT: _distinct_relations_sql("head"), Direction.IN: _distinct_relations_sql("tail")}
_WITH_RELATION = f"e.rel = {_RELATION_ID}"
_TRIPLES_SQL = {
    direction: (
        "SELECT h.name, t.name, e.props FROM edges e"
        " JOIN entities h ON h.id = e.head JOIN entities t ON t.id = e.tail"
        f" WHERE {where} ORDER BY e.id"
    )
    for direction, where in {
        Direction.OUT: f"{_OUT} AND {_WITH_RELATION}",
        Direction.IN: f"{_IN} AND {_WITH_RELATION}",
        # Each branch of the OR is one index range; a self-loop edge is still returned once.
        Direction.BOTH: f"({_OUT} AND {_WITH_RELATION} OR {_IN} AND {_WITH_RELATION})",
    }.items()
}
# Names containing a phrase, in a store of version 3 or older (whose index knows trigram positions).
_PHRASE_SEARCH_SQL = (
    "SELECT name FROM entities WHERE id IN (SELECT rowid FROM entity_search WHERE entity_search MATCH ? LIMIT ?)"
)
_RANKED_PHRASE_SEARCH_SQL = (
    "SELECT name FROM entities WHERE id IN"
    " (SELECT rowid FROM entity_search WHERE entity_search MATCH ? ORDER BY rank LIMIT ?)"
)

# Entities by edge count, most first, from the maintained counts (the entities_edges index gives the order).
_ENTITY_COUNTS_SQL = "SELECT name, outgoing, incoming FROM entities WHERE {where} ORDER BY outgoing + incoming DESC, name LIMIT :limit"
# The same in a store older than version 3 opened read-only, which keeps no counts: two index ranges an entity.
_ENTITY_COUNTS_V2_SQL = """
SELECT name, outgoing, incoming FROM (
    SELECT name, (SELECT count(*) FROM edges WHERE head = entities.id) AS outgoing,
        (SELECT count(*) FROM edges WHERE tail = entities.id) AS incoming
    FROM entities WHERE {where}
) ORDER BY outgoing + incoming DESC, name LIMIT :limit"""
# Counts the edges of some entities again (two index ranges each).
_RECOUNT_SQL = (
    "UPDATE entities SET outgoing = (SELECT count(*) FROM edges WHERE head = entities.id),"
    " incoming = (SELECT count(*) FROM edges WHERE tail = entities.id) WHERE id IN ({ids})"
)
# Counts every entity's edges, whose counts are 0: each GROUP BY reads one index in order.
_COUNT_ALL_SQL = (
    "UPDATE entities SET outgoing = counted.n FROM (SELECT head, count(*) AS n FROM edges GROUP BY head) AS counted"
    " WHERE entities.id = counted.head",
    "UPDATE entities SET incoming = counted.n FROM (SELECT tail, count(*) AS n FROM edges GROUP BY tail) AS counted"
    " WHERE entities.id = counted.tail",
)
_RELATION_COUNTS_SQL = "SELECT name, edges FROM relations ORDER BY edges DESC, name"
_RELATION_COUNTS_V1_SQL = (  # a version 1 store opened read-only keeps no relation counts
    "SELECT r.name, count(*) AS edges FROM edges e JOIN relations r ON r.id = e.rel GROUP BY r.id ORDER BY edges DESC, r.name"
)
# fold(name) in SQL: SQLite's lower() for names of printable ASCII without runs of spaces (most of
# them, at C speed), the Python function for the others. Both give exactly fold(name).
_FOLD_SQL = "CASE WHEN name GLOB '*[^ -~]*' OR instr(name, '  ') THEN arkg_fold(name) ELSE lower(trim(name)) END"
# Names holding every trigram of the text, then only those whose folded name contains the text. The
# index has no positions, so FTS5 cannot rank (bm25 is 0 for every name): the shortest names come
# first, as bm25 ranked them, and for a typo the names containing the most pieces of the query.
_FOLDED_NAME = _FOLD_SQL.replace("name", "e.name")
_INDEXED_NAMES = "entity_search CROSS JOIN entities e ON e.id = entity_search.rowid WHERE entity_search MATCH :match"
_SEARCH_SQL = f"SELECT e.name FROM {_INDEXED_NAMES} AND instr({_FOLDED_NAME}, :folded) LIMIT :limit"
_RANKED_SEARCH_SQL = (
    f"SELECT e.name FROM {_INDEXED_NAMES} AND instr({_FOLDED_NAME}, :folded) ORDER BY length(e.name), e.id LIMIT :limit"
)
_TYPO_SEARCH_SQL = (
    f"WITH found AS MATERIALIZED (SELECT e.name AS name, {_FOLDED_NAME} AS folded FROM {_INDEXED_NAMES})"
    " SELECT name FROM (SELECT name, {pieces} AS pieces FROM found) WHERE pieces > 0"
    " ORDER BY pieces DESC, length(name), name LIMIT :limit"
)
_NAMES_FOLDED_AS = "SELECT e.name FROM entity_folded f JOIN entities e ON e.id = f.id WHERE f.folded = ? ORDER BY e.name"
_DUPLICATE_EXAMPLES = 3
# Keeps the first of edges that are the same edge (a version 1 store could hold an edge twice).
_DELETE_REPEATED_EDGES = "DELETE FROM edges WHERE id NOT IN (SELECT min(id) FROM edges GROUP BY head, rel, tail, props)"

_TRIGRAM = 3  # the FTS5 trigram index cannot match anything shorter
# Read as spaces in a search: SQLite takes no lone surrogate (nor does any name hold one), and an FTS5
# query string ends at NUL ("unterminated string").
_UNSEARCHABLE = re.compile("[\x00\ud800-\udfff]")
_PHRASE_CANDIDATES = 200
_TYPO_CANDIDATES = 300
_CONFIDENT_SCORE = 90.0
# Up to this many entities a poorly matched query is compared with every name (milliseconds), which
# finds what trigram candidates miss, e.g. transposed letters in a short name ("Wasraw").
_SCAN_ALL_UP_TO = 50_000


class SQLiteGraph:
    """A KnowledgeGraph stored in SQLite.

    `SQLiteGraph()` is an empty in-memory store; `SQLiteGraph("kg.db")` opens that file, creating
    an empty store when it does not exist (pass `create=False` to require an existing store).
    A connection may be shared by threads that read. `read_only=True` opens an existing store so that
    nothing can change it (SQLite refuses every write).

    A write waits up to `lock_timeout` seconds while another connection writes to the same file,
    calling `on_lock_wait` once when it starts to wait (e.g. to tell the user why nothing happens).
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        create: bool = True,
        read_only: bool = False,
        lock_timeout: float = LOCK_TIMEOUT,
        on_lock_wait: Callable[[], None] | None = None,
    ) -> None:
        self.path = str(path)
        self.read_only = read_only
        self._lock_timeout = lock_timeout
        self._on_lock_wait = on_lock_wait
        self._folded_names: tuple[int, list[str], list[str]] | None = None
        self.upgraded: Upgrade | None = None
        """Set when opening upgraded a store of an older arkg (what the upgrade did)."""
        in_memory = self.path == ":memory:"
        if not in_memory:
            check_store_path(Path(path), create and not read_only)
        target, uri = (Path(path).resolve().as_uri() + "?mode=ro", True) if read_only else (self.path, False)
        try:
            self._conn = sqlite3.connect(
                target, isolation_level=None, check_same_thread=False, timeout=_READ_BUSY_MS / 1000, uri=uri
            )
        except sqlite3.Error as error:
            raise ArkgError(f"{self.path}: cannot open the KG store ({error})") from None
        try:
            self._identity = None if in_memory else _file_identity(self.path)
            self._prepare()
        except BaseException:
            self._conn.close()
            raise

    def _prepare(self) -> None:
        application_id = self._check_schema()
        self._conn.executescript(f"PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA threads = {_SORT_THREADS};")
        self._conn.create_function("arkg_fold", 1, fold, deterministic=True)
        if application_id != APPLICATION_ID:
            with self._write_transaction():
                # Checked again under the lock: another process may have created the tables meanwhile.
                if self._check_schema() != APPLICATION_ID:
                    for statement in (*_TABLES.split(";"), *_LOOKUP_INDEXES.values()):
                        if statement.strip():
                            self._conn.execute(statement)
                    self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif self._version() < SCHEMA_VERSION and not self.read_only:
            with self._write_transaction():
                if self._version() < SCHEMA_VERSION:  # again under the lock: another process may have upgraded it
                    self.upgraded = _upgrade(self._conn, self._version())
                    self.upgraded.duplicate_names = self._index_new_names()

    def _version(self) -> int:
        return self._scalar("PRAGMA user_version")

    def _check_schema(self) -> int:
        """The file's application id, after checking that it is an arkg store of this version, or empty."""
        try:
            application_id = self._conn.execute("PRAGMA application_id").fetchone()[0]
            has_tables = self._conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0] > 0
        except sqlite3.OperationalError as error:
            if _busy(error):
                raise ArkgError(
                    f"{self.path}: the KG store stayed locked by another process for over"
                    f" {_READ_BUSY_MS / 1000:.0f} s; try again when it has finished writing"
                ) from None
            raise ArkgError(f"{self.path}: cannot read the KG store ({error})") from None
        except sqlite3.DatabaseError:
            raise ArkgError(f"{self.path}: not an arkg KG store (not an SQLite database)") from None
        if application_id == APPLICATION_ID:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version not in _READABLE_VERSIONS:
                raise ArkgError(
                    f"{self.path}: KG store schema version {version}, this arkg reads versions"
                    f" {', '.join(map(str, _READABLE_VERSIONS))} (a newer arkg made it: upgrade arkg)"
                )
        elif has_tables or application_id != 0 or self.read_only:
            raise ArkgError(f"{self.path}: not an arkg KG store (an SQLite database with other tables)")
        return application_id

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        self._conn.close()

    def delete_if_empty(self) -> bool:
        """Close the store, and delete its file if it holds no triple and no loaded file.

        For a command whose first load failed: it leaves no empty store behind. Nothing is deleted
        while another connection reads or writes the file; one that waits to write to it finds the
        file gone and writes nothing (see _write_transaction). Returns whether the file was deleted.
        """
        deleted = False
        if self._identity is not None:
            try:
                self._conn.execute(f"PRAGMA busy_timeout = {_POLL_BUSY_MS}")
                self._conn.execute("BEGIN EXCLUSIVE")
            except sqlite3.OperationalError:
                self.close()
                return False
            try:
                unused = self._scalar("SELECT NOT EXISTS (SELECT 1 FROM edges) AND NOT EXISTS (SELECT 1 FROM sources)")
                if unused and _file_identity(self.path) == self._identity:
                    os.unlink(self.path)  # under the exclusive lock: no other connection is in the middle of a write
                    deleted = True
            finally:
                self._conn.execute("ROLLBACK")
        self.close()
        return deleted

    def __enter__(self) -> SQLiteGraph:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteGraph({self.path!r})"

    # -- writing -----------------------------------------------------------------------------

    def add_triples(self, triples: Iterable[Triple]) -> int:
        """Add the triples in one transaction (all or nothing); returns how many were new to the store."""
        with self._write_transaction():
            before = self._newest_edge()
            self._bulk_insert(((t.head, t.relation, t.tail, t.props) for t in triples), progress=None)
            return self._count_added(before)

    def load(
        self,
        path: str | Path,
        format: str | None = None,
        progress: Callable[[int], None] | None = None,
        *,
        skip_loaded: bool = False,
        replace: bool = False,
        defer_index: bool = False,
    ) -> LoadReport | None:
        """Load a file (format from its extension unless given) in one transaction, names indexed for search.

        With `defer_index` the names are left out of the search index (and the likely duplicates
        unreported): the first search, or build_search_index, indexes them. Such a load takes about
        two thirds of the time.

        An edge the store already holds is not added again, so loading a file twice, or the same
        triples from two formats, changes nothing. `replace` first takes everything out of the
        store, in the same transaction: readers see the old KG until the new one is committed, and
        an interrupted replace leaves the old KG.

        `progress` is called with the number of triples read so far, after each batch. On any
        error the transaction is rolled back, the store is exactly as before, and a LoadError
        names the file, the line or record, and the reason. Returns what was read and added, or
        None when `skip_loaded` is set and a file with the same content was loaded before. That
        check is made under the write lock, so two processes loading one file at once load it once.
        """
        path = Path(path)
        format = format or detect_format(path)
        digest = _file_digest(path)
        # The scratch file of a bulk load's folded names is let go once the transaction has ended.
        with ExitStack() as afterwards, self._writing_file(path):
            if skip_loaded and not replace and self._has_digest(digest):
                return None
            if replace:
                self._clear()
            before = self._newest_edge()
            indexed = None if defer_index else self._start_index()
            records = read_records(path, format)
            count, folded_alike = self._bulk_insert(records, progress, index_names=not defer_index, afterwards=afterwards)
            self._conn.execute(
                "INSERT INTO sources(path, digest, format, triples, loaded_at) VALUES (?, ?, ?, ?, ?)",
                (str(path.resolve()), digest, format, count, datetime.now(UTC).isoformat(timespec="seconds")),
            )
            added = self._count_added(before)
            duplicates = None if indexed is None else self._finish_index(indexed, folded_alike)
            return LoadReport(read=count, added=added, duplicate_names=duplicates)

    def remove(self, path: str | Path, format: str | None = None, progress: Callable[[int], None] | None = None) -> int:
        """Take out the edges that the file holds (same head, relation, tail and props), in one transaction.

        Entities and relations left without edges go too. Returns the number of edges taken out.
        Every file then counts as not loaded yet (`skip_loaded` no longer skips it): it may have
        lost edges, which loading it again puts back.
        """
        path = Path(path)
        format = format or detect_format(path)
        with self._writing_file(path):
            self._conn.execute("CREATE TEMP TABLE gone_keys(head, rel, tail, props)")
            count = 0
            lookup = EdgeKeys(self._conn)
            iterator = iter(read_records(path, format))
            while batch := list(islice(iterator, BATCH_SIZE)):
                self._conn.executemany("INSERT INTO gone_keys VALUES (?, ?, ?, ?)", lookup.existing(batch))
                count += len(batch)
                if progress is not None:
                    progress(count)
            self._conn.execute(
                "CREATE TEMP TABLE gone AS SELECT DISTINCT e.id, e.head, e.rel, e.tail FROM temp.gone_keys g"
                " JOIN edges e ON e.head = g.head AND e.rel = g.rel AND e.tail = g.tail AND e.props = g.props"
            )
            removed = self._take_out_gone_edges()
            self._conn.execute("DELETE FROM sources")
            self._conn.execute("DROP TABLE temp.gone_keys")
            return removed

    def merge(self, keep: str, gone: str) -> MergeReport:
        """Make `gone` the same entity as `keep`, in one transaction: its edges are re-pointed to `keep`,
        and `gone` is removed. An edge that becomes identical to one `keep` already has is dropped."""
        with self._write_transaction():
            keep_id, gone_id = self._entity_id(keep), self._entity_id(gone)
            if keep_id == gone_id:
                raise ArkgError(f"cannot merge {keep!r} into itself")
            touching = "SELECT count(*) FROM edges WHERE head = :gone OR tail = :gone"
            ids = {"keep": keep_id, "gone": gone_id}
            edges = self._conn.execute(touching, ids).fetchone()[0]
            # Head first, then tail, then head again: a self-loop of `gone` whose first re-pointing
            # collided is re-pointed at its tail first. What still touches `gone` then is a duplicate.
            for column in ("head", "tail", "head"):
                self._conn.execute(f"UPDATE OR IGNORE edges SET {column} = :keep WHERE {column} = :gone", ids)
            self._conn.execute(_RECOUNT_SQL.format(ids=":keep, :gone"), ids)
            self._conn.execute(
                "CREATE TEMP TABLE gone AS SELECT id, head, rel, tail FROM edges WHERE head = :gone OR tail = :gone", ids
            )
            collapsed = self._take_out_gone_edges()
            if self.has_entity(gone):  # no edge left it as an orphan: it had none once merged
                self._forget_entities([(gone_id, gone)])
            return MergeReport(moved=edges - collapsed, collapsed=collapsed)

    def _entity_id(self, name: str) -> int:
        row = self._conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise EntityNotFound(name, [match.name for match in self.search_entities(name, 5)])
        return row[0]

    def has_loaded(self, path: str | Path) -> bool:
        """True iff a file with exactly this content was loaded before (wherever it lay then)."""
        return self._has_digest(_file_digest(Path(path)))

    def _has_digest(self, digest: str) -> bool:
        return self._conn.execute("SELECT 1 FROM sources WHERE digest = ?", (digest,)).fetchone() is not None

    @contextmanager
    def _writing_file(self, path: Path) -> Iterator[None]:
        """A write transaction whose database errors are LoadErrors naming the file."""
        try:
            with self._write_transaction():
                yield
        except sqlite3.Error as error:
            raise LoadError(path, None, _database_reason(error, self.path)) from None
        except UnicodeEncodeError as error:  # a reader let text through that SQLite cannot store
            bad = error.object[error.start : error.end]
            raise LoadError(path, None, f"holds {bad!r}, which is not text (a lone UTF-16 surrogate)") from None

    def _bulk_insert(
        self,
        records: Iterable[Record],
        progress: Callable[[int], None] | None,
        index_names: bool = False,
        afterwards: ExitStack | None = None,
    ) -> tuple[int, list[str] | None]:
        """Insert inside the caller's transaction, keeping relation counts; returns the number of records,
        and the folded names that several new names have when they are known already.

        With `index_names` the new names go into the search index and temp.new_names as they come
        (see _start_index). Into an empty store the next batch is made while the last is written (see
        sqlite_writer); otherwise making a batch looks names up in the store, so the two take turns.
        Into an empty store, given `afterwards` (which must outlive the transaction), the new names'
        entity_folded rows are built aside (FoldedNamesAside) and copied in: temp.new_names stays empty.
        """
        bulk = self._scalar("SELECT NOT EXISTS (SELECT 1 FROM entities) AND NOT EXISTS (SELECT 1 FROM relations)")
        newest = self._newest_edge()
        if bulk:
            for index in _BUILT_AFTER_BULK:
                self._conn.execute(f"DROP INDEX {index}")
        aside = afterwards.enter_context(self._folded_aside()) if bulk and index_names and afterwards else None
        maker = BatchMaker(self._conn, bulk, fold_names=index_names)
        writer = BatchWriter(self._conn, index_names, aside)
        count = 0
        batches = batches_of(records, BATCH_SIZE)
        with gc_paused(), made_ahead(maker.make, batches) if bulk else nullcontext(map(maker.make, batches)) as made:
            for batch in made:
                writer.write(batch)
                count += batch.records
                if progress is not None:
                    progress(count)
        if aside is not None:
            aside.finish()
        if bulk:  # the counts' index after the counts
            self._conn.execute(_LOOKUP_INDEXES["entities_name"])
            for statement in _COUNT_ALL_SQL:
                self._conn.execute(statement)
            self._conn.execute(_LOOKUP_INDEXES["entities_edges"])
        else:
            ends = "SELECT head FROM edges WHERE id > :newest UNION SELECT tail FROM edges WHERE id > :newest"
            self._conn.execute(_RECOUNT_SQL.format(ids=ends), {"newest": newest})
        writer.count_relations()
        if aside is None:
            return count, None
        folded_alike = aside.folded_alike()
        self._conn.execute(f"ATTACH ? AS {_ASIDE}", (str(aside.path),))
        self._conn.execute(f"INSERT INTO main.entity_folded SELECT * FROM {_ASIDE}.entity_folded")
        return count, folded_alike

    @contextmanager
    def _folded_aside(self) -> Iterator[FoldedNamesAside]:
        """A FoldedNamesAside in a scratch file next to the store (or in the temp folder for a store in
        memory), detached and deleted when the block ends (after the transaction that read it)."""
        folder = None if self.path == ":memory:" else Path(self.path).resolve().parent
        handle, name = tempfile.mkstemp(prefix=".arkg-folded-", suffix=".tmp", dir=folder)
        os.close(handle)
        try:
            aside = FoldedNamesAside(Path(name), _ENTITY_FOLDED_TABLE)
            try:
                yield aside
            finally:
                aside.close()
                if any(row[1] == _ASIDE for row in self._conn.execute("PRAGMA database_list")):
                    self._conn.execute(f"DETACH {_ASIDE}")
        finally:
            os.unlink(name)

    def _newest_edge(self) -> int:
        return self._scalar("SELECT coalesce(max(id), 0) FROM edges")

    def _count_added(self, before: int) -> int:
        """Edges added since `before` was the newest: new rows always get ids above the largest one."""
        return self._conn.execute("SELECT count(*) FROM edges WHERE id > ?", (before,)).fetchone()[0]

    def _clear(self) -> None:
        """Take everything out (inside the caller's transaction)."""
        for table in ("edges", "entities", "relations", "sources", "entity_folded"):
            self._conn.execute(f"DELETE FROM {table}")
        self._conn.execute("INSERT INTO entity_search(entity_search) VALUES ('delete-all')")
        self._conn.execute("DELETE FROM meta WHERE key = 'search_indexed'")

    def _take_out_gone_edges(self) -> int:
        """Delete the edges listed in temp.gone (id, head, rel, tail) with the entities and relations
        left without edges, keeping relation counts; drops temp.gone and returns the number deleted."""
        conn = self._conn
        conn.execute(
            "UPDATE relations SET edges = relations.edges - gone.n FROM"
            " (SELECT rel, count(*) AS n FROM temp.gone GROUP BY rel) AS gone WHERE relations.id = gone.rel"
        )
        removed = conn.execute("DELETE FROM edges WHERE id IN (SELECT id FROM temp.gone)").rowcount
        ends = "SELECT head FROM temp.gone UNION SELECT tail FROM temp.gone"
        conn.execute(_RECOUNT_SQL.format(ids=ends))
        orphans = conn.execute(f"SELECT id, name FROM entities WHERE id IN ({ends}) AND outgoing + incoming = 0").fetchall()
        self._forget_entities(orphans)
        conn.execute("DELETE FROM relations WHERE edges = 0")
        conn.execute("DROP TABLE temp.gone")
        return removed

    def _forget_entities(self, entities: list[tuple[int, str]]) -> None:
        """Delete entities (without edges) from the tables and from the search index."""
        indexed = self._search_indexed()
        for entity_id, name in entities:
            if entity_id <= indexed:
                folded = fold(name)
                # A contentless FTS5 table forgets a row when told the exact text it indexed.
                self._conn.execute(
                    "INSERT INTO entity_search(entity_search, rowid, name) VALUES ('delete', ?, ?)", (entity_id, folded)
                )
                self._conn.execute("DELETE FROM entity_folded WHERE folded = ? AND id = ?", (folded, entity_id))
            self._conn.execute("DELETE FROM entities WHERE id = ?", (entity_id,))

    @contextmanager
    def _write_transaction(self) -> Iterator[None]:
        self._lock_for_writing()
        try:
            if self._identity is not None and _file_identity(self.path) != self._identity:
                raise ArkgError(
                    f"{self.path}: the KG store was deleted (an empty store whose first load failed) while this"
                    " process waited to write to it; run the command again"
                )
            yield
        except BaseException:
            if self._conn.in_transaction:  # SQLite may already have rolled back (disk full, I/O error)
                self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _lock_for_writing(self) -> None:
        """BEGIN IMMEDIATE, waiting up to the lock timeout while another connection writes."""
        self._conn.execute(f"PRAGMA busy_timeout = {_POLL_BUSY_MS}")
        try:
            deadline = None
            while True:
                try:
                    self._conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as error:
                    if not _busy(error):
                        raise ArkgError(_database_reason(error, self.path)) from None
                now = time.monotonic()
                if deadline is None:
                    deadline = now + self._lock_timeout
                    if self._on_lock_wait is not None:
                        self._on_lock_wait()
                elif now >= deadline:
                    raise ArkgError(
                        f"{self.path}: another process has been writing to this KG store for over"
                        f" {self._lock_timeout:.0f} s; try again when it has finished"
                    )
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {_READ_BUSY_MS}")

    # -- reading -----------------------------------------------------------------------------

    def is_head(self, entity: str) -> bool:
        sql = f"SELECT EXISTS (SELECT 1 FROM edges WHERE head = {_ENTITY_ID})"
        return bool(self._conn.execute(sql, {"entity": entity}).fetchone()[0])

    def has_entity(self, entity: str) -> bool:
        # Entities are only ever created with an edge (loads are atomic), so a name is enough.
        sql = "SELECT EXISTS (SELECT 1 FROM entities WHERE name = ?)"
        return bool(self._conn.execute(sql, (entity,)).fetchone()[0])

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        if direction == Direction.BOTH:
            return sorted(set(self.relations(entity, Direction.OUT)) | set(self.relations(entity, Direction.IN)))
        return [name for (name,) in self._conn.execute(_RELATIONS_SQL[direction], {"entity": entity})]

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        rows = self._conn.execute(_TRIPLES_SQL[direction], {"entity": entity, "relation": relation})
        return [Triple(head, relation, tail, _decode_props(props)) for head, tail, props in rows]

    def iter_triples(self) -> Iterator[Triple]:
        """Every edge, in insertion order."""
        rows = self._conn.execute(
            "SELECT h.name, r.name, t.name, e.props FROM edges e JOIN entities h ON h.id = e.head"
            " JOIN relations r ON r.id = e.rel JOIN entities t ON t.id = e.tail ORDER BY e.id"
        )
        for head, relation, tail, props in rows:
            yield Triple(head, relation, tail, _decode_props(props))

    def stats(self) -> KGStats:
        return KGStats(
            triples=self._scalar("SELECT count(*) FROM edges"),
            entities=self._scalar("SELECT count(*) FROM entities"),
            heads=self._scalar("SELECT count(DISTINCT head) FROM edges"),
            relations=self._scalar("SELECT count(*) FROM relations"),
        )

    def _scalar(self, sql: str) -> int:
        return self._conn.execute(sql).fetchone()[0]

    # -- inventory (GraphInventory) ------------------------------------------------------------

    def entity_counts(self, search: str | None = None, limit: int | None = None) -> list[EntityCount]:
        """Entities by number of edges, most first, then by name; `search` keeps the names containing it
        (ignoring case and accents; a text under 3 characters, which the trigram index cannot look up,
        keeps the names starting with it). A search reads only the matching names' index entries."""
        limit = -1 if limit is None else limit  # SQLite: a negative LIMIT is no limit
        where = "1"
        arguments: dict[str, object] = {}
        if search is not None:
            text = _UNSEARCHABLE.sub(" ", search)
            folded = fold(text)
            if not folded:
                return []
            if len(folded) >= _TRIGRAM:
                unindexed = self._unindexed_after()
                arguments = {"query": self._fts_containing(folded), "folded": folded, "indexed": unindexed or 0}
                where = "id IN (SELECT rowid FROM entity_search WHERE entity_search MATCH :query)"
                if not self._phrase_index():
                    where += f" AND instr({_FOLD_SQL}, :folded)"
                if unindexed is not None:  # a read-only store whose index is not built: the other names, read
                    where = f"({where} OR id > :indexed AND instr({_FOLD_SQL}, :folded))"
            else:
                arguments = {f"name{index}": name for index, name in enumerate(self._exact_or_prefixed(text, prefixes=True))}
                where = f"name IN ({', '.join(':' + key for key in arguments)})" if arguments else "0"
        sql = _ENTITY_COUNTS_SQL if self._version() >= 3 else _ENTITY_COUNTS_V2_SQL
        rows = self._conn.execute(sql.format(where=where), {**arguments, "limit": limit})
        return [EntityCount(name, outgoing, incoming) for name, outgoing, incoming in rows]

    def relation_counts(self) -> list[RelationCount]:
        sql = _RELATION_COUNTS_SQL if self._version() >= 2 else _RELATION_COUNTS_V1_SQL
        return [RelationCount(name, edges) for name, edges in self._conn.execute(sql)]

    # -- fuzzy search ------------------------------------------------------------------------

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        """The k entity names closest to `text` (case and accents barely matter), best first.

        Candidates: the exact name; names containing the folded query (trigram index); when none
        of those is a confident match, every name of a small graph, or in a large one the names
        sharing pieces of the query. Only these candidates are ranked with rapidfuzz.
        """
        text = _UNSEARCHABLE.sub(" ", text)
        folded = fold(text)
        if k <= 0 or not folded:
            return []
        candidates = self._exact_or_prefixed(text, prefixes=len(folded) < _TRIGRAM)
        if len(folded) >= _TRIGRAM:
            candidates.update(self._containing(folded))
        matches = rank(text, candidates, k)
        if matches and matches[0].score >= _CONFIDENT_SCORE:
            return matches
        newest = self._scalar("SELECT coalesce(max(id), 0) FROM entities")
        if newest <= _SCAN_ALL_UP_TO:
            candidates.update(self._all_names_close_to(folded, newest))
        elif len(folded) >= _TRIGRAM:
            candidates.update(self._containing_pieces(_pieces(folded)))
        return rank(text, candidates, k)

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        return rank(text, self.relations(entity, direction), k)

    def build_search_index(self, on_build: Callable[[int], None] | None = None) -> NameDuplicates:
        """Index the entity names added since the last build (a load does it unless deferred; a search
        does it on demand), in one transaction: other connections see all of it or none.

        `on_build` is called with the number of names to index before a build starts. Returns the
        new names that differ from another name only in case, accents or spacing. A read-only store
        is indexed through a connection of its own when the file may be written; when it may not,
        searches read the names the index lacks.
        """
        pending = self._newest_entity() - self._search_indexed()
        if pending <= 0 or (self.read_only and not self._index_elsewhere()):
            return NameDuplicates(0, [])
        if self.read_only:  # a reader does not queue behind a long write: meanwhile it reads the names
            wait = min(self._lock_timeout, _READ_BUSY_MS / 1000)
            try:
                with SQLiteGraph(self.path, create=False, lock_timeout=wait) as writable:
                    return writable.build_search_index(on_build)
            except ArkgError:
                return NameDuplicates(0, [])
        # This store's own, else the class-wide one (read off the class: a function there is no method).
        on_build = on_build or vars(self).get("on_search_index_build") or SQLiteGraph.on_search_index_build
        if on_build is not None:
            on_build(pending)
        with self._write_transaction():
            return self._index_new_names()

    on_search_index_build: Callable[[int], None] | None = None
    """Called (with the number of names) before a search builds the index, e.g. to say why it waits;
    set on the class for every store, or on one store."""

    def _index_elsewhere(self) -> bool:
        """Whether the file of a read-only store may be written (to build its search index)."""
        store = Path(self.path)
        return self.path != ":memory:" and os.access(store, os.W_OK) and os.access(store.parent, os.W_OK | os.X_OK)

    def _unindexed_after(self) -> int | None:
        """For a search: building the index as needed, None when every name is indexed, else the
        highest id indexed (a store that cannot be written, whose index was deferred)."""
        self.build_search_index()
        indexed = self._search_indexed()
        return indexed if self._newest_entity() > indexed else None

    def _index_new_names(self) -> NameDuplicates:
        """Fold the names added since the last build into entity_search and entity_folded (inside the
        caller's transaction), and find the likely duplicates among them."""
        return self._finish_index(self._start_index())

    def _start_index(self) -> int:
        """Start indexing names (inside the caller's transaction): the names not indexed yet go into
        the search index and temp.new_names, where a load adds its new ones (BatchWriter) before
        _finish_index. Returns the highest id indexed before."""
        indexed = self._search_indexed()
        conn = self._conn
        conn.execute("CREATE TEMP TABLE new_names (id INTEGER PRIMARY KEY, folded TEXT NOT NULL)")
        conn.execute(f"INSERT INTO temp.new_names SELECT id, {_FOLD_SQL} FROM entities WHERE id > ?", (indexed,))
        conn.execute("INSERT INTO entity_search(rowid, name) SELECT id, folded FROM temp.new_names")
        return indexed

    def _finish_index(self, indexed: int, folded_alike: list[str] | None = None) -> NameDuplicates:
        """Put temp.new_names into entity_folded, and find the likely duplicates among them (given as
        `folded_alike` when a bulk load built entity_folded aside)."""
        conn = self._conn
        newest = self._newest_entity()
        duplicates = NameDuplicates(0, [])
        if newest > indexed:
            conn.execute("INSERT INTO entity_folded(folded, id) SELECT folded, id FROM temp.new_names ORDER BY folded")
            if folded_alike is None:
                if indexed == 0:  # every name is new: one pass over the folded names, in order
                    sql = "SELECT folded FROM entity_folded GROUP BY folded HAVING count(*) > 1"
                else:  # one index probe per new name
                    sql = (
                        "SELECT DISTINCT n.folded FROM temp.new_names n WHERE EXISTS"
                        " (SELECT 1 FROM entity_folded o WHERE o.folded = n.folded AND o.id != n.id)"
                    )
                folded_alike = [folded for (folded,) in conn.execute(sql)]
            examples = [
                sorted((name for (name,) in conn.execute(_NAMES_FOLDED_AS, (folded,))), key=_tidiest_first)
                for folded in folded_alike[:_DUPLICATE_EXAMPLES]
            ]
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('search_indexed', ?)", (newest,))
            duplicates = NameDuplicates(len(folded_alike), examples)
        conn.execute("DROP TABLE temp.new_names")
        return duplicates

    def _search_indexed(self) -> int:
        return self._scalar("SELECT coalesce(max(value), 0) FROM meta WHERE key = 'search_indexed'")

    def _newest_entity(self) -> int:
        return self._scalar("SELECT coalesce(max(id), 0) FROM entities")

    def _exact_or_prefixed(self, text: str, prefixes: bool) -> set[str]:
        """The entity named exactly `text`, and, for short queries, names starting with it."""
        found = {name for (name,) in self._conn.execute("SELECT name FROM entities WHERE name = ?", (text,))}
        if prefixes:
            for prefix in {text, text.lower(), text.capitalize(), text.upper()}:
                rows = self._conn.execute(
                    "SELECT name FROM entities WHERE name >= ? AND name < ? ORDER BY name LIMIT 50",
                    (prefix, prefix + "\U0010ffff"),
                )
                found.update(name for (name,) in rows)
        return found

    def _all_names_close_to(self, folded: str, newest: int, limit: int = 50) -> list[str]:
        """The names of a small graph closest to the folded query (folded names cached per version)."""
        if self._folded_names is None or self._folded_names[0] != newest:
            names = [name for (name,) in self._conn.execute("SELECT name FROM entities")]
            self._folded_names = (newest, names, [fold(name) for name in names])
        _, names, folded_names = self._folded_names
        best = process.extract(folded, folded_names, scorer=fuzz.WRatio, limit=limit)
        return [names[index] for _, _, index in best]

    def _phrase_index(self) -> bool:
        """Whether the search index knows trigram positions (a store of version 3 or older)."""
        return self._version() < 4

    def _fts_containing(self, folded: str) -> str:
        """The FTS5 query for names containing the folded text (or, without positions, its trigrams)."""
        if self._phrase_index():
            return _fts_phrase(folded)
        return " AND ".join(map(_fts_phrase, dict.fromkeys(folded[i : i + _TRIGRAM] for i in range(len(folded) - 2))))

    def _containing(self, folded: str) -> list[str]:
        """Names containing the folded text: all of them when few, else the best ranked (bm25, or the
        shortest names).

        Ranking reads every match, so it is only paid for common substrings.
        """
        unindexed = self._unindexed_after()
        query = self._fts_containing(folded)
        if self._phrase_index():
            names = self._search(_PHRASE_SEARCH_SQL, query, _PHRASE_CANDIDATES)
            if len(names) >= _PHRASE_CANDIDATES:
                names = self._search(_RANKED_PHRASE_SEARCH_SQL, query, _PHRASE_CANDIDATES)
        else:
            arguments = {"match": query, "folded": folded, "limit": _PHRASE_CANDIDATES}
            names = [name for (name,) in self._conn.execute(_SEARCH_SQL, arguments)]
            if len(names) >= _PHRASE_CANDIDATES:
                names = [name for (name,) in self._conn.execute(_RANKED_SEARCH_SQL, arguments)]
        if unindexed is not None:
            names += self._unindexed_containing([folded], unindexed, _PHRASE_CANDIDATES)
        return names

    def _containing_pieces(self, pieces: list[str]) -> list[str]:
        """Names sharing pieces of a query, most pieces first (for a typo in a large graph)."""
        if not pieces:
            return []
        unindexed = self._unindexed_after()
        if self._phrase_index():
            names = self._search(_RANKED_PHRASE_SEARCH_SQL, " OR ".join(map(_fts_phrase, pieces)), _TYPO_CANDIDATES)
        else:
            match = " OR ".join(f"({self._fts_containing(piece)})" for piece in pieces)
            arguments = {"match": match, "limit": _TYPO_CANDIDATES, **{f"p{i}": piece for i, piece in enumerate(pieces)}}
            counted = " + ".join(f"(instr(folded, :p{i}) > 0)" for i in range(len(pieces)))
            names = [name for (name,) in self._conn.execute(_TYPO_SEARCH_SQL.format(pieces=counted), arguments)]
        if unindexed is not None:
            names += self._unindexed_containing(pieces, unindexed, _TYPO_CANDIDATES)
        return names

    def _unindexed_containing(self, pieces: list[str], indexed: int, limit: int) -> list[str]:
        """Names above the indexed ids whose folded form contains one of the pieces (a scan)."""
        found = " OR ".join(f"instr(folded, :p{i})" for i in range(len(pieces)))
        rows = self._conn.execute(
            f"SELECT name FROM (SELECT name, {_FOLD_SQL} AS folded FROM entities WHERE id > :indexed) WHERE {found}"
            " ORDER BY length(name), name LIMIT :limit",
            {"indexed": indexed, "limit": limit, **{f"p{i}": piece for i, piece in enumerate(pieces)}},
        )
        return [name for (name,) in rows]

    def _search(self, sql: str, fts_query: str, limit: int) -> list[str]:
        return [name for (name,) in self._conn.execute(sql, (fts_query, limit))]


@dataclass(frozen=True)
class NameDuplicates:
    """Names that differ from another only in case, accents or spacing: how many such groups, a few of them."""

    count: int
    examples: list[list[str]]


@dataclass(frozen=True)
class LoadReport:
    """What a load did: records read, edges new to the store, and likely duplicate names among the new ones."""

    read: int
    added: int
    duplicate_names: NameDuplicates | None  # None: the names were not indexed (defer_index)

    @property
    def present(self) -> int:
        """Records that the store already held (or that the file repeated)."""
        return self.read - self.added


@dataclass(frozen=True)
class MergeReport:
    moved: int  # edges re-pointed to the entity kept
    collapsed: int  # edges dropped because the entity kept already had them


@dataclass
class Upgrade:
    """What upgrading a store of an older version did."""

    repeated_edges: int  # edges stored more than once, now once
    duplicate_names: NameDuplicates = field(default_factory=lambda: NameDuplicates(0, []))


def _upgrade(conn: sqlite3.Connection, version: int) -> Upgrade:
    """Bring a store of an older version to this one (inside the caller's transaction).

    From version 1: props are re-encoded canonically, edges stored twice are kept once (the edge
    key), relations get their edge counts. Names are left as they are, even with surrounding spaces:
    `arkg kg merge` joins such twins. From version 2: entities get their edge counts. From every
    version: the search index is made anew without trigram positions, and the names are folded again
    (into entity_folded and the search index, by the caller).
    """
    repeated = 0
    if version < 2:
        conn.create_function("arkg_canonical_props", 1, _canonical_props, deterministic=True)
        conn.execute("UPDATE edges SET props = arkg_canonical_props(props)")
        repeated = conn.execute(_DELETE_REPEATED_EDGES).rowcount
        conn.execute("DROP INDEX IF EXISTS edges_out")
        conn.execute(_LOOKUP_INDEXES["edges_key"])
        conn.execute("ALTER TABLE relations ADD COLUMN edges INTEGER NOT NULL DEFAULT 0")
        conn.execute(
            "UPDATE relations SET edges = counted.n FROM"
            " (SELECT rel, count(*) AS n FROM edges GROUP BY rel) AS counted WHERE relations.id = counted.rel"
        )
        conn.execute(_ENTITY_FOLDED_TABLE)
    if version < 3:
        for column in ("outgoing", "incoming"):
            conn.execute(f"ALTER TABLE entities ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
        for statement in _COUNT_ALL_SQL:
            conn.execute(statement)
        conn.execute(_LOOKUP_INDEXES["entities_edges"])
    # The search index without trigram positions: built again from the names, by the caller.
    conn.execute("DROP TABLE entity_search")
    conn.execute(_ENTITY_SEARCH_TABLE)
    conn.execute("DELETE FROM entity_folded")
    conn.execute("DELETE FROM meta WHERE key = 'search_indexed'")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return Upgrade(repeated)


def _canonical_props(props: str | None) -> str:
    return encode_props(json.loads(props)) if props else ""


def _tidiest_first(name: str) -> tuple[bool, bool, str]:
    """Order for names folded alike: single-spaced first, then ones with capitals, then by name."""
    return name != " ".join(name.split()), name.islower(), name


def _decode_props(props: str | None) -> dict[str, PropValue]:
    return json.loads(props) if props else {}


def check_store_path(path: Path, create: bool = True) -> None:
    """An ArkgError that says what to do when `path` cannot be a store (or, with create=False, is none).

    For commands that write a store after long work: they check its path before they start.
    """
    if path.is_dir():
        raise ArkgError(f"{path} is a folder, not a KG store file; name a file, e.g. {path / 'kg.db'}")
    if path.is_file() and path.stat().st_size > 0:
        if not os.access(path, os.R_OK):
            raise ArkgError(f"{path}: no permission to read this KG store")
        return
    if not create:
        raise ArkgError(f"{path}: no such KG store; create one with `arkg kg load FILE --db {path}`")
    parent = path.parent
    if not parent.exists():
        raise ArkgError(f"{path}: the folder {parent} does not exist; create it first (mkdir -p {parent})")
    if not parent.is_dir():
        raise ArkgError(f"{path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ArkgError(f"{path}: no permission to create a file in {parent}")


def _file_identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def _busy(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds a lock."""
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _database_reason(error: sqlite3.Error, store: str) -> str:
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_READONLY:
        return f"the KG store {store} is read-only (no permission to write to it, or to its folder)"
    if code == sqlite3.SQLITE_FULL:
        return f"the disk holding {store} is full"
    return f"database error in {store}: {error}"


def _file_digest(path: Path) -> str:
    try:
        with path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except FileNotFoundError:
        raise LoadError(path, None, "no such file") from None
    except OSError as error:
        raise LoadError(path, None, f"cannot read the file: {error.strerror or error}") from None


def _fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _pieces(folded: str, count: int = 8) -> list[str]:
    """Overlapping pieces of the query, short enough that a typo spares most of them."""
    size = 4 if len(folded) < 10 else 5
    starts = range(0, max(len(folded) - size, 0) + 1, 2)
    pieces = [folded[start : start + size] for start in starts]
    step = max(len(pieces) // count, 1)
    return [piece for piece in pieces[::step] if len(piece.strip()) >= _TRIGRAM][:count]
