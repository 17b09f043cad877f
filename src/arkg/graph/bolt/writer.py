"""The Bolt backend's one write path: triples from files (or from memory) into a Bolt database.

Each triple becomes `(:LABEL {KEY: head})-[:RELATION {props}]->(:LABEL {KEY: tail})`, nodes merged by
name (LABEL: the spec's label, else Entity; KEY: its first name property, `name` by default). With the
spec's `relation=PROPERTY` a relationship has the type RELATED and its relation name in that property,
which keeps names that a relationship type cannot hold (a backtick, on FalkorDB).

Relation and property names become Cypher identifiers (quoted in backticks); every name and value
travels as a parameter. A file is read completely before anything is written, so a bad line writes
nothing. A Bolt server cannot be trusted to hold a large file in one transaction (FalkorDB has none),
so a load writes in steps and keeps its progress in an ArkgLoad node keyed by the file's digest, in
the same query as each step: a load that stopped takes up again at its next step, and a finished file
is not loaded twice. An ArkgLoad node has no name property, so it is no entity.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from arkg.errors import LoadError
from arkg.graph.bolt.connection import BoltConnection, BoltQueryError
from arkg.graph.bolt.spec import BoltSpec, parse_bolt_spec
from arkg.graph.loaders import Record, detect_format, read_records
from arkg.graph.model import PropValue, Triple

DEFAULT_LABEL = "Entity"
RELATED = "RELATED"
_BATCH_RECORDS = 1_000
_BATCH_BYTES = 200_000  # of parameter values per query: moderate requests, whatever the names' lengths
_INT64 = range(-(2**63), 2**63)
_PROGRESS = " WITH count(*) AS written MATCH (load:ArkgLoad {digest: $digest}) SET load.steps = $step"

Step = tuple[str, dict[str, Any], int | None]  # query, parameters, triples done once it has run (end of a batch)


class BoltWriter:
    """Writes triples into the database a Bolt spec names (the only writer of the Bolt backend)."""

    def __init__(self, spec: str | BoltSpec) -> None:
        self.spec = spec if isinstance(spec, BoltSpec) else parse_bolt_spec(spec)
        self.label = self.spec.mapping.label or DEFAULT_LABEL
        self.key = self.spec.mapping.name_keys[0]
        self.relation_key = self.spec.mapping.relation_key
        self._conn = BoltConnection(self.spec)

    def load(
        self,
        path: str | Path,
        format: str | None = None,
        progress: Callable[[int], None] | None = None,
        *,
        skip_loaded: bool = False,
    ) -> int | None:
        """Load a file (format from its extension unless given); returns its number of triples, or None
        when `skip_loaded` is set and a file with this content was loaded before.

        `progress` is called with the number of triples written so far. A LoadError names the file,
        the triple and the reason, before anything is written.
        """
        path = Path(path)
        format = format or detect_format(path)
        digest = _file_digest(path)
        count = self._check(path, format)
        self._ensure_index("RANGE", self._conn.dialect.name_index(self.label, self.key))
        found = self._conn.read(
            "MATCH (load:ArkgLoad {digest: $digest}) RETURN load.steps AS steps, load.complete AS complete LIMIT 1",
            {"digest": digest},
        )
        if found and found[0]["complete"] and skip_loaded:
            return None
        now = datetime.now(UTC).isoformat(timespec="seconds")
        if not found:
            self._conn.write(
                "CREATE (:ArkgLoad {digest: $digest, path: $path, format: $format, steps: 0, complete: false,"
                " started_at: $now})",
                {"digest": digest, "path": str(path.resolve()), "format": format, "now": now},
            )
        elif found[0]["complete"]:
            self._conn.write(
                "MATCH (load:ArkgLoad {digest: $digest}) SET load.steps = 0, load.complete = false", {"digest": digest}
            )
        resume_at = 0 if not found or found[0]["complete"] else int(found[0]["steps"] or 0)
        for number, (query, params, done) in enumerate(self._steps(read_records(path, format))):
            if number >= resume_at:
                self._conn.write(query + _PROGRESS, {**params, "digest": digest, "step": number + 1})
            if done is not None and progress is not None:
                progress(done)
        self._conn.write(
            "MATCH (load:ArkgLoad {digest: $digest}) SET load.complete = true, load.triples = $count, load.loaded_at = $now",
            {"digest": digest, "count": count, "now": now},
        )
        return count

    def add_triples(self, triples: Iterable[Triple]) -> int:
        """Write triples (checked first, all of them); returns how many. Not resumable: for small sets."""
        records = [(t.head, t.relation, t.tail, t.props) for t in triples]
        for number, record in enumerate(records, start=1):
            problem = self._problem(record)
            if problem:
                raise LoadError("(triples)", f"triple {number}", problem)
        self._ensure_index("RANGE", self._conn.dialect.name_index(self.label, self.key))
        for query, params, _ in self._steps(records):
            self._conn.write(query, params)
        return len(records)

    def build_search_index(self) -> bool:
        """Create a full-text index on the name (where the server has them); returns whether one exists."""
        return self._ensure_index("FULLTEXT", self._conn.dialect.fulltext_index(self.label, self.key))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> BoltWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BoltWriter({self.spec.display!r})"

    # -- helpers -----------------------------------------------------------------------------------

    def _check(self, path: Path, format: str) -> int:
        """Read the whole file; a LoadError for the first triple the server could not hold. Returns the count."""
        count = 0
        for count, record in enumerate(read_records(path, format), start=1):
            problem = self._problem(record)
            if problem:
                raise LoadError(path, f"triple {count}", problem)
        return count

    def _problem(self, record: Record) -> str | None:
        head, relation, tail, props = record
        dialect = self._conn.dialect
        texts = [("head", head), ("tail", tail), *((f"property {key!r}", v) for key, v in props.items() if isinstance(v, str))]
        for what, text in texts:
            if not dialect.sendable(text):
                return f"the {what} is text this server cannot store ({dialect.name}: {dialect.text_rule})"
        identifiers = [key for key, value in props.items() if value is not None]
        if self.relation_key is None:
            identifiers.append(relation)
        elif not dialect.sendable(relation):
            return f"the relation is text this server cannot store ({dialect.name}: {dialect.text_rule})"
        elif self.relation_key in props:
            return f"a property is named {self.relation_key!r}, the property that holds relation names here"
        for name in identifiers:
            if dialect.identifier(name) is None:
                return (
                    f"{name!r} cannot be a relationship type or property name on {dialect.name}"
                    " (write it with ?relation=PROPERTY, or rename it)"
                )
        for key, value in props.items():
            if isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
                return f"property {key!r} is {value}, beyond the 64-bit integers a graph database stores; write it as a string"
            if isinstance(value, float) and not math.isfinite(value):
                return f"property {key!r} is {value}, not a finite number"
        return None

    def _steps(self, records: Iterable[Record]) -> Iterator[Step]:
        """The write queries, in a fixed order (a resumed load counts on it): per batch, the names, then
        the edges grouped by relation and property names."""
        batch: list[Record] = []
        size = done = 0
        for record in records:
            cost = _cost(record)
            if batch and (len(batch) >= _BATCH_RECORDS or size + cost > _BATCH_BYTES):
                yield from self._batch(batch, done)
                batch, size = [], 0
            batch.append(record)
            size += cost
            done += 1
        if batch:
            yield from self._batch(batch, done)

    def _batch(self, batch: list[Record], done: int) -> Iterator[Step]:
        names = list(dict.fromkeys(name for head, _, tail, _ in batch for name in (head, tail)))
        node = f"(:{self.label} {{{self.key}: name}})"
        yield f"UNWIND $names AS name MERGE {node}", {"names": names}, None
        groups: dict[tuple[str, tuple[str, ...]], list[list[Any]]] = {}
        for head, relation, tail, props in batch:
            kept = {key: value for key, value in props.items() if value is not None}
            keys = tuple(kept)  # in the record's order, which the server keeps (and `kg show` shows)
            values: list[PropValue] = [kept[key] for key in keys]
            if self.relation_key is None:
                groups.setdefault((relation, keys), []).append([head, tail, *values])
            else:
                groups.setdefault((RELATED, keys), []).append([head, tail, relation, *values])
        for index, ((relation, keys), rows) in enumerate(groups.items()):
            yield self._edge_query(relation, keys), {"rows": rows}, done if index == len(groups) - 1 else None

    def _edge_query(self, relation: str, keys: tuple[str, ...]) -> str:
        identifier = self._conn.dialect.identifier
        first = 2 if self.relation_key is None else 3
        fields = [f"{identifier(key)}: row[{first + index}]" for index, key in enumerate(keys)]
        if self.relation_key is not None:
            fields.insert(0, f"{self.relation_key}: row[2]")
        props = " {" + ", ".join(fields) + "}" if fields else ""
        return (
            f"UNWIND $rows AS row MATCH (h:{self.label} {{{self.key}: row[0]}}) MATCH (t:{self.label} {{{self.key}: row[1]}})"
            f" CREATE (h)-[:{identifier(relation)}{props}]->(t)"
        )

    def _ensure_index(self, kind: str, statements: list[str]) -> bool:
        """Run the first of the statements the server takes, unless it lists such an index already."""
        dialect = self._conn.dialect
        try:
            rows = self._conn.read(dialect.indexes)
        except BoltQueryError:
            rows = []
        if dialect.has_index(rows, self.label, self.key, kind):
            return True
        for statement in statements:
            try:
                self._conn.write(statement)
                return True
            except BoltQueryError:
                continue
        return False


def _cost(record: Record) -> int:
    """About the size of the record's parameter values (escaping at most doubles a string)."""
    head, relation, tail, props = record
    return sum(2 * len(str(value).encode()) + 8 for value in (head, relation, tail, *props.values()))


def _file_digest(path: Path) -> str:
    try:
        with path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except FileNotFoundError:
        raise LoadError(path, None, "no such file") from None
    except OSError as error:
        raise LoadError(path, None, f"cannot read the file: {error.strerror or error}") from None
