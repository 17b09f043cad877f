"""How the SQLite store turns records into rows: names interned to ids, edges appended once each.

Everything here runs inside the store's write transaction (see sqlite_store). Per-record Python work
is what limits a bulk load, so each batch is handled with C-speed builtins (dict.fromkeys, map,
set and Counter updates) and one comprehension; names are looked up and inserted per batch.
"""

from __future__ import annotations

import gc
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from operator import itemgetter

from arkg.graph.loaders import Record

_HEAD, _RELATION, _TAIL = itemgetter(0), itemgetter(1), itemgetter(2)
_NAMES_PER_QUERY = 500  # names looked up by one `name IN (...)` query
_INSERT_EDGE = "INSERT OR IGNORE INTO edges(head, rel, tail, props) VALUES (?, ?, ?, ?)"
# Canonical JSON (sorted keys): the same props in any order are the same text, so the same edge.
encode_props = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


class EdgeWriter:
    """Interns names and appends the edges that the store does not hold yet, batch by batch, counting
    the edges added per relation.

    With `bulk` (an empty store, whose caller builds the name and edge indexes after the load),
    nothing is looked up: edges are appended as they come, and those whose hash an earlier edge had,
    which may repeat it, are noted for `drop_repeats` to check once the indexes exist.
    """

    def __init__(self, conn: sqlite3.Connection, bulk: bool) -> None:
        self._conn = conn
        self._entities = Interner(conn, "entities", look_up_existing=not bulk)
        self._relations = Interner(conn, "relations", look_up_existing=True)
        self._hashes: set[int] | None = set() if bulk else None
        self._maybe_repeats: list[int] = []
        self._newest = conn.execute("SELECT coalesce(max(id), 0) FROM edges").fetchone()[0]
        self._added: Counter[int] = Counter()  # relation id -> edges added

    def write(self, records: list[Record]) -> None:
        self._entities.intern(chain(map(_HEAD, records), map(_TAIL, records)))
        self._relations.intern(map(_RELATION, records))
        entity, relation = self._entities.ids, self._relations.ids
        edges = [
            (entity[head], relation[rel], entity[tail], encode_props(props) if props else "")
            for head, rel, tail, props in records
        ]
        if self._hashes is not None:
            self._note_maybe_repeats(edges, self._hashes)
        added = self._conn.executemany(_INSERT_EDGE, edges).rowcount
        if added == len(edges):
            self._added.update(map(_RELATION, edges))
        elif added:  # the store held some of them: count the rows this batch added (new ids are above the newest)
            rows = self._conn.execute("SELECT rel, count(*) FROM edges WHERE id > ? GROUP BY rel", (self._newest,))
            self._added.update(dict(rows))
        self._newest += added

    def _note_maybe_repeats(self, edges: list[tuple[int, int, int, str]], seen: set[int]) -> None:
        """Note the ids that the edges will get when their hash was seen before (rarely: a file that repeats an edge)."""
        hashes = list(map(hash, edges))
        fresh = set(hashes)
        if len(fresh) == len(hashes) and seen.isdisjoint(fresh):
            seen |= fresh
            return
        for edge_id, value in enumerate(hashes, self._newest + 1):
            if value in seen:
                self._maybe_repeats.append(edge_id)
            seen.add(value)

    def drop_repeats(self) -> None:
        """Delete the noted edges that repeat an earlier one (a bulk load, once the edges_in index exists)."""
        if not self._maybe_repeats:
            return
        gone = self._conn.execute(
            "DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?)) AND EXISTS (SELECT 1 FROM edges AS earlier"
            " WHERE earlier.tail = edges.tail AND earlier.rel = edges.rel AND earlier.head = edges.head"
            " AND earlier.props = edges.props AND earlier.id < edges.id) RETURNING rel",
            (json.dumps(self._maybe_repeats),),
        )
        self._added.subtract(rel for (rel,) in gone.fetchall())
        self._maybe_repeats.clear()

    def count_relations(self) -> None:
        """Add the edges written to the relations' edge counts."""
        self._conn.executemany(
            "UPDATE relations SET edges = edges + ? WHERE id = ?", [(n, rel) for rel, n in self._added.items() if n]
        )
        self._added.clear()


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

    def intern(self, names: Iterable[str]) -> None:
        """Give every name an id: the one it had, else a new one (its row inserted)."""
        new, trimmed, unknown = self._learn(names)
        if unknown:
            first = self._next_id
            self._next_id += len(unknown)
            self.ids.update(zip(unknown, range(first, self._next_id)))
            self._insert(first, unknown)
        self._alias(new, trimmed)

    def _insert(self, first: int, names: list[str]) -> None:
        """Insert the names with ids from `first` on.

        One statement over a JSON array inserts twice as fast as a statement per name, but SQLite's
        JSON functions end a string at U+0000: a batch with one takes the slow way.
        """
        listed = json.dumps(names, ensure_ascii=False)
        if "\\u0000" in listed:
            self._conn.executemany(f"INSERT INTO {self._table}(id, name) VALUES (?, ?)", enumerate(names, first))
        else:
            self._conn.execute(f"INSERT INTO {self._table}(id, name) SELECT ? + key, value FROM json_each(?)", (first, listed))

    def look_up(self, names: Iterable[str]) -> None:
        """Learn the ids of the names that the store holds; the others stay without."""
        new, trimmed, _ = self._learn(names)
        self._alias(new, trimmed)

    def _learn(self, names: Iterable[str]) -> tuple[list[str], list[str], list[str]]:
        """The names not seen before in this load, the same trimmed, and the trimmed ones (once each)
        that the store does not hold; the ids of the others are learnt."""
        ids = self.ids
        new = [name for name in dict.fromkeys(names) if name not in ids]
        trimmed = list(map(str.strip, new))
        # Usually no name needs trimming, and the new names are the unknown ones.
        unknown = new if trimmed == new else [name for name in dict.fromkeys(trimmed) if name not in ids]
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
