"""How the SQLite store turns records into rows: names interned to ids, edges appended once each.

Everything here runs inside the store's write transaction (see sqlite_store). A load is split in two
halves that can run side by side on two cores:

- BatchMaker, pure Python: interns the names of a batch of records to ids, folds the new names for
  the search index, and encodes the batch's rows as JSON text. Per-record Python work is what limits a
  bulk load, so a batch is handled with C-speed builtins (dict.fromkeys, map, zip, Counter updates)
  and one comprehension.
- BatchWriter, SQLite: one statement per table and batch, over json_each of that text. sqlite3
  releases the GIL while a statement runs, so the next batch is made meanwhile (`made_ahead`); a
  statement per row (executemany) would take the GIL back for every row.

Into an empty store the folded-name table is built by a third thread on a connection of its own
(FoldedNamesAside), so that its sort overlaps the store's own index builds after the last batch.
"""

from __future__ import annotations

import gc
import json
import queue
import sqlite3
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, filterfalse, islice
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec

from arkg.graph.loaders import Record
from arkg.graph.matching import fold_all

_HEAD, _RELATION, _TAIL, _PROPS = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
_NAMES_PER_QUERY = 500  # names looked up by one `name IN (...)` query
_JSON_NUL = "\\u0000"  # SQLite's JSON functions end a string at U+0000: such a batch goes row by row
_EDGE_COLUMNS = (
    "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),"
    " json_extract(value, '$[3]') FROM json_each(?)"
)
_as_json = msgspec.json.Encoder().encode
_DONE, _STOP = object(), object()  # what a helper thread's queue ends with: all was given, or the load failed

# Canonical JSON (sorted keys): the same props in any order are the same text, so the same edge.
_encode_props_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode
_encode_props_fast = msgspec.json.Encoder(order="sorted").encode


def encode_props(props: dict[str, Any]) -> str:
    """Props as canonical JSON text. msgspec writes exactly what the json module writes, ten times
    faster, for every value but floats, which it formats otherwise (1e16, not 1e+16)."""
    if float in set(map(type, props.values())):
        return _encode_props_json(props)
    return _encode_props_fast(props).decode()


@dataclass(slots=True)
class Batch:
    """A batch of records as rows: the new names with the id of the first, the edges as JSON text."""

    records: int
    first_entity: int
    entities: list[str]
    first_relation: int
    relations: list[str]
    edges: list[tuple[int, int, int, str]]
    edges_json: str
    relation_ids: list[int]
    folded: list[str] | None  # the new entity names folded for the search index, when it is built as the load goes


class BatchMaker:
    """Interns names and encodes edges, batch by batch (the Python half of a load).

    With `bulk` (an empty store, whose caller builds the name indexes after the load), nothing is
    looked up in the store, so a helper thread may make batches while the writer writes.
    """

    def __init__(self, conn: sqlite3.Connection, bulk: bool, fold_names: bool) -> None:
        self._entities = Interner(conn, "entities", look_up_existing=not bulk)
        self._relations = Interner(conn, "relations", look_up_existing=not bulk)
        self._fold_names = fold_names

    def make(self, records: list[Record]) -> Batch:
        first_entity, entities = self._entities.intern(chain(map(_HEAD, records), map(_TAIL, records)))
        first_relation, relations = self._relations.intern(map(_RELATION, records))
        entity, relation = self._entities.ids.__getitem__, self._relations.ids.__getitem__
        relation_ids = list(map(relation, map(_RELATION, records)))
        props = [encode_props(given) if given else "" for given in map(_PROPS, records)]
        edges = list(zip(map(entity, map(_HEAD, records)), relation_ids, map(entity, map(_TAIL, records)), props))
        edges_json = _as_json(edges).decode()
        return Batch(
            len(records),
            first_entity,
            entities,
            first_relation,
            relations,
            edges if _JSON_NUL in edges_json else [],
            edges_json,
            relation_ids,
            fold_all(entities) if self._fold_names else None,
        )


class BatchWriter:
    """Writes batches' rows (the SQLite half of a load), counting the edges added per relation, and
    with `index_names` the new names into the search index and into temp.new_names (see SQLiteGraph),
    or into `aside`'s table when given."""

    def __init__(self, conn: sqlite3.Connection, index_names: bool, aside: FoldedNamesAside | None = None) -> None:
        self._conn = conn
        self._index_names = index_names
        self._aside = aside
        self._newest = conn.execute("SELECT coalesce(max(id), 0) FROM edges").fetchone()[0]
        self._added: Counter[int] = Counter()  # relation id -> edges added

    def write(self, batch: Batch) -> None:
        conn = self._conn
        insert_names(conn, "entities", batch.first_entity, batch.entities)
        insert_names(conn, "relations", batch.first_relation, batch.relations)
        # The edge key's unique index leaves out an edge the store, or an earlier line, already has.
        if batch.edges:  # text holding U+0000
            sql = "INSERT OR IGNORE INTO edges(head, rel, tail, props) VALUES (?, ?, ?, ?)"
            added = conn.executemany(sql, batch.edges).rowcount
        else:
            sql = f"INSERT OR IGNORE INTO edges(head, rel, tail, props) {_EDGE_COLUMNS}"
            added = conn.execute(sql, (batch.edges_json,)).rowcount
        if added == len(batch.relation_ids):
            self._added.update(batch.relation_ids)
        elif added:  # the store held some of them: count the rows this batch added (new ids are above the newest)
            rows = conn.execute("SELECT rel, count(*) FROM edges WHERE id > ? GROUP BY rel", (self._newest,))
            self._added.update(dict(rows))
        self._newest += added
        if self._index_names and batch.folded:
            if self._aside is None:
                index_folded(conn, batch.first_entity, batch.folded)
            else:
                listed = _as_json(batch.folded).decode()
                self._aside.add(batch.first_entity, batch.folded, listed)
                insert_rows(conn, "entity_search(rowid, name)", batch.first_entity, batch.folded, listed)

    def count_relations(self) -> None:
        """Add the edges written to the relations' edge counts."""
        self._conn.executemany(
            "UPDATE relations SET edges = edges + ? WHERE id = ?", [(n, rel) for rel, n in self._added.items() if n]
        )
        self._added.clear()


def insert_names(conn: sqlite3.Connection, table: str, first: int, names: list[str]) -> None:
    """Insert the names with ids from `first` on."""
    if names:
        insert_rows(conn, f"{table}(id, name)", first, names)


def insert_rows(conn: sqlite3.Connection, into: str, first: int, texts: list[str], listed: str | None = None) -> None:
    """Insert rows (id, text), ids from `first` on, into `into` (a table and its two columns): one
    statement over a JSON array (`listed`, the texts as JSON if already made; twice as fast as a
    statement per row, and it runs without the GIL), but row by row for texts with U+0000."""
    listed = _as_json(texts).decode() if listed is None else listed
    if _JSON_NUL in listed:
        conn.executemany(f"INSERT INTO {into} VALUES (?, ?)", enumerate(texts, first))
    else:
        conn.execute(f"INSERT INTO {into} SELECT ? + key, value FROM json_each(?)", (first, listed))


def index_folded(conn: sqlite3.Connection, first: int, folded: list[str]) -> None:
    """Put folded names (ids from `first` on) into temp.new_names and the search index."""
    insert_rows(conn, "temp.new_names(id, folded)", first, folded)
    conn.execute("INSERT INTO entity_search(rowid, name) SELECT id, folded FROM temp.new_names WHERE id >= ?", (first,))


class FoldedNamesAside:
    """The folded-name table of a bulk load into an empty store, built on a thread and a connection of
    its own, in a scratch database file.

    Sorting a million folded names into entity_folded takes a core about 1.3 s, which the store's
    connection would spend after the last batch, while the core that made the batches idles. Here
    the names are staged as the batches are written, and sorted into the scratch file's entity_folded
    once the last is (`finish`), while the store's connection builds its indexes; the store then
    copies the ordered table in, which SQLite does by moving the records as they are (its transfer
    optimization). The scratch file is throwaway: written without journal or syncs.
    """

    def __init__(self, path: Path, table: str) -> None:
        self.path = path
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.executescript(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -131072; PRAGMA temp_store = MEMORY;"
        )
        self._conn.execute(table)
        self._conn.execute("CREATE TABLE staged (id INTEGER PRIMARY KEY, folded TEXT NOT NULL)")
        self._conn.execute("BEGIN")
        self._work: queue.Queue[Any] = queue.Queue()
        self._outcome: list[str] | BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="arkg-load-folded", daemon=True)
        self._thread.start()

    def add(self, first: int, folded: list[str], listed: str) -> None:
        """Stage folded names, ids from `first` on (`listed`: the same as JSON)."""
        if isinstance(self._outcome, BaseException):  # e.g. the disk is full: the load stops now, not at the end
            raise self._outcome
        self._work.put((first, folded, listed))

    def finish(self) -> None:
        """No more names: build the table."""
        self._work.put(_DONE)

    def folded_alike(self) -> list[str]:
        """Wait for the table (after `finish`); returns the folded names that more than one name has, in order."""
        self._thread.join()
        if isinstance(self._outcome, BaseException):
            raise self._outcome
        return self._outcome or []

    def close(self) -> None:
        """Stop (the staged names are dropped when the load failed) and close the connection."""
        self._work.put(_STOP)
        self._thread.join()
        self._conn.close()

    def _run(self) -> None:
        conn = self._conn
        try:
            while (item := self._work.get()) is not _DONE:
                if item is _STOP:
                    return
                insert_rows(conn, "staged(id, folded)", *item)
            conn.execute("INSERT INTO entity_folded(folded, id) SELECT folded, id FROM staged ORDER BY folded")
            sql = "SELECT folded FROM entity_folded GROUP BY folded HAVING count(*) > 1"
            self._outcome = [folded for (folded,) in conn.execute(sql)]
            conn.execute("COMMIT")
        except BaseException as error:  # raised in the thread that loads, by add or folded_alike
            self._outcome = error


class EdgeKeys:
    """The stored form of records (ids, canonical props), for edges whose names the store has."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._entities = Interner(conn, "entities", look_up_existing=True)
        self._relations = Interner(conn, "relations", look_up_existing=True)

    def existing(self, records: list[Record]) -> list[tuple[int, int, int, str]]:
        self._entities.look_up(chain(map(_HEAD, records), map(_TAIL, records)))
        self._relations.look_up(map(_RELATION, records))
        entity, relation = self._entities.ids.get, self._relations.ids.get
        keys = [
            (entity(head), relation(rel), entity(tail), encode_props(props) if props else "")
            for head, rel, tail, props in records
        ]
        return [key for key in keys if key[0] and key[1] and key[2]]


class Interner:
    """name -> id for one table, remembering the names of this load in memory (`ids`).

    Names are trimmed of surrounding white space (so " Ada " is "Ada"), once per distinct name as
    written, so that the per-record work stays a dictionary lookup.
    """

    def __init__(self, conn: sqlite3.Connection, table: str, look_up_existing: bool) -> None:
        self._conn = conn
        self._table = table
        self._look_up_existing = look_up_existing
        # Above every id the search index has seen too: an id freed by a removal is not given again,
        # so a new name never takes the place of a forgotten one in the index.
        self._next_id = conn.execute(
            f"SELECT max(coalesce(max(id), 0), (SELECT coalesce(max(value), 0) FROM meta WHERE key = 'search_indexed'))"
            f" + 1 FROM {table}"
        ).fetchone()[0]
        self.ids: dict[str, int] = {}

    def intern(self, names: Iterable[str]) -> tuple[int, list[str]]:
        """Give every name an id: the one it had, else a new one. Returns the new names (trimmed, for
        the caller to insert) and the id of the first; the others follow it."""
        new, trimmed, unknown = self._learn(names)
        first = self._next_id
        if unknown:
            self._next_id += len(unknown)
            self.ids.update(zip(unknown, range(first, self._next_id)))
        self._alias(new, trimmed)
        return first, unknown

    def look_up(self, names: Iterable[str]) -> None:
        """Learn the ids of the names that the store holds; the others stay without."""
        new, trimmed, _ = self._learn(names)
        self._alias(new, trimmed)

    def _learn(self, names: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
        """The names not seen before in this load, the same trimmed, and the trimmed ones (once each)
        that the store does not hold; the ids of the others are learnt."""
        ids = self.ids
        new = list(filterfalse(ids.__contains__, dict.fromkeys(names)))
        trimmed = list(map(str.strip, new))
        # Usually no name needs trimming, and the new names are the unknown ones.
        unknown = new if trimmed == new else list(filterfalse(ids.__contains__, dict.fromkeys(trimmed)))
        if self._look_up_existing and unknown:
            ids.update(self._stored_ids(unknown))
            unknown = [name for name in unknown if name not in ids]
        return new, trimmed, unknown

    def _alias(self, new: list[str], trimmed: list[str]) -> None:
        """Names written with surrounding white space take the id of their trimmed name."""
        if trimmed != new:
            ids = self.ids
            ids.update((name, ids[bare]) for name, bare in zip(new, trimmed, strict=True) if name != bare and bare in ids)

    def _stored_ids(self, names: list[str]) -> Iterator[tuple[str, int]]:
        for start in range(0, len(names), _NAMES_PER_QUERY):
            chunk = names[start : start + _NAMES_PER_QUERY]
            sql = f"SELECT name, id FROM {self._table} WHERE name IN ({', '.join('?' * len(chunk))})"
            yield from self._conn.execute(sql, chunk)


def batches_of(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    iterator = iter(records)
    while batch := list(islice(iterator, size)):
        yield batch


_SWITCH_INTERVAL = 0.0005  # s; see made_ahead


@contextmanager
def made_ahead(make: Callable[[list[Record]], Batch], batches: Iterator[list[Record]]) -> Iterator[Iterator[Batch]]:
    """The batches, each made on a helper thread while the caller writes the one before.

    Reading, parsing and interning hold the GIL; the caller's SQLite statements release it. A thread
    that wants the GIL back waits for the holder's switch interval (5 ms by default), so the interval
    is shortened meanwhile: the writer gets its turn between its statements at once. An error of the
    helper (e.g. a LoadError naming a bad line) is raised in the caller; leaving the block early stops
    the helper.
    """
    ready: queue.Queue[Any] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for records in batches:
                if not put(make(records)):
                    return
            put(_DONE)
        except BaseException as error:  # handed to the caller, who raises it
            put(error)

    def results() -> Iterator[Batch]:
        while (item := ready.get()) is not _DONE:
            if isinstance(item, BaseException):
                raise item
            yield item

    interval = sys.getswitchinterval()
    helper = threading.Thread(target=work, name="arkg-load-batches", daemon=True)
    sys.setswitchinterval(min(interval, _SWITCH_INTERVAL))
    helper.start()
    try:
        yield results()
    finally:
        stop.set()
        helper.join()
        sys.setswitchinterval(interval)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (process-wide) for the block.

    A bulk load allocates millions of short-lived records that reference counting frees; the
    collector's passes triggered by those allocations find nothing and cost ~11% of a 1M load.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
