"""BoltGraph: the KnowledgeGraph protocol over a Bolt server (Neo4j, Memgraph, FalkorDB), read-only.

Every query is one of the fixed texts of mapping.Queries; entity names, relation names and search
words travel only as parameters, each lookup is bounded by the spec's row limit and timeout, and text
the server cannot carry (a lone surrogate; for FalkorDB also NUL) names nothing, so it is not found
rather than sent.
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Any

from arkg.graph.bolt.connection import BoltConnection, BoltQueryError
from arkg.graph.bolt.mapping import Queries, as_text, attributes, edge_props
from arkg.graph.bolt.spec import FULLTEXT_AUTO, FULLTEXT_OFF, BoltSpec, parse_bolt_spec
from arkg.graph.matching import fold, rank
from arkg.graph.model import Direction, KGStats, Match, Triple

# Read as spaces in a search: no name holds a lone surrogate, and FalkorDB cuts text at NUL.
_UNSEARCHABLE = re.compile("[\x00\ud800-\udfff]")
_SEARCH_CHARS = 200  # of a search text, this much is sent (ranking uses all of it)
_WORD = re.compile(r"\w+")


class BoltGraph:
    """A knowledge graph held by a Bolt server, read through a mapping (see mapping.py).

    `spec` is a Bolt URL (see spec.py) or a parsed one. Searching uses a full-text index on a name
    property when the server has one (and `fulltext` is not off), else a scan for names containing
    pieces of the query's words; at most `search_limit` candidates are fetched, then ranked with rapidfuzz.
    """

    def __init__(self, spec: str | BoltSpec, *, search_limit: int = 200) -> None:
        self.spec = spec if isinstance(spec, BoltSpec) else parse_bolt_spec(spec)
        self.search_limit = search_limit
        self._conn = BoltConnection(self.spec)
        try:
            self.queries = Queries(self.spec.mapping, self._name_keys_in_use(), self._conn.dialect.fulltext_procedure)
            self.fulltext_sources = self._fulltext_sources()
        except BaseException:
            self._conn.close()
            raise

    @property
    def dialect(self) -> str:
        return self._conn.dialect.name

    # -- the KnowledgeGraph protocol ---------------------------------------------------------------

    def is_head(self, entity: str) -> bool:
        if not self._sendable(entity):
            return False
        return bool(self._read(self.queries.has_out_edge, entity=entity)) or bool(self._attributes(entity))

    def has_entity(self, entity: str) -> bool:
        return self._sendable(entity) and bool(self._read(self.queries.nodes, entity=entity, limit=1))

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        if not self._sendable(entity):
            return []
        found = {
            as_text(row["relation"])
            for one in _directions(direction)
            for row in self._read(self.queries.relations[one], entity=entity, limit=self.spec.limit)
        }
        if direction != Direction.IN:
            found.update(key for key, _ in self._attributes(entity))
        return sorted(found)

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        if not self._sendable(entity, relation):
            return []
        found: dict[Any, Triple] = {}
        for one in _directions(direction):
            rows = self._read(self.queries.triples[one], entity=entity, relation=relation, limit=self.spec.limit)
            for row in rows:  # keyed by edge id: a self-loop touches the entity both ways, but is one edge
                props = edge_props(row["props"] or {}, self.spec.mapping.relation_key)
                found.setdefault(row["id"], Triple(as_text(row["head"]), relation, as_text(row["tail"]), props))
        result = list(found.values())
        if direction != Direction.IN:
            result += [Triple(entity, key, value) for key, value in self._attributes(entity) if key == relation]
        return result[: self.spec.limit]

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        """The k entity names closest to `text`: the exact name, then candidates from the full-text
        index (or from names containing pieces of its words), ranked with rapidfuzz."""
        cleaned = _UNSEARCHABLE.sub(" ", text)
        if k <= 0 or not fold(cleaned):
            return []
        candidates = {text} if self.has_entity(text) else set()
        sent = cleaned[:_SEARCH_CHARS]
        fulltext = self._conn.dialect.fulltext_query(sent) if self.fulltext_sources else None
        if fulltext is not None:
            for source in self.fulltext_sources:
                rows = self._read(self.queries.search_fulltext, source=source, query=fulltext, limit=self.search_limit)
                candidates.update(as_text(row["name"]) for row in rows)
        elif fragments := _fragments(sent):
            rows = self._read(self.queries.search_contains, fragments=fragments, limit=self.search_limit)
            candidates.update(as_text(row["name"]) for row in rows)
        return rank(cleaned, candidates, k)

    def search_relations(self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT) -> list[Match]:
        return rank(text, self.relations(entity, direction), k)

    def stats(self) -> KGStats:
        """Counts over the whole graph (each is a scan: meant for `arkg kg info`, not for every question)."""
        (counts,) = self._read(self.queries.counts)
        relations = {as_text(row["relation"]) for row in self._read(self.queries.relation_names)}
        if self.spec.mapping.attributes:
            relations.update(row["key"] for row in self._read(self.queries.attribute_keys))
        return KGStats(
            triples=int(counts["edges"] or 0) + int(counts["attributes"] or 0),
            entities=int(counts["entities"] or 0),
            heads=int(counts["heads"] or 0),
            relations=len(relations),
        )

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> BoltGraph:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BoltGraph({self.spec.display!r})"

    # -- helpers -----------------------------------------------------------------------------------

    def _read(self, cypher: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._conn.read(cypher, params)

    def _sendable(self, *texts: str) -> bool:
        return all(isinstance(text, str) and self._conn.dialect.sendable(text) for text in texts)

    def _attributes(self, entity: str) -> list[tuple[str, str]]:
        """The attribute triples (property, value) of the nodes named `entity`."""
        if not self.spec.mapping.attributes:
            return []
        rows = self._read(self.queries.nodes, entity=entity, limit=self.spec.limit)
        return [pair for row in rows for pair in attributes(row["props"] or {}, row["name_key"])]

    def _name_keys_in_use(self) -> tuple[str, ...]:
        """The mapping's name properties that the graph has at all (fewer keys: simpler, indexable lookups).

        A server without db.propertyKeys() is assumed to have them all.
        """
        keys = self.spec.mapping.name_keys
        try:
            rows = self._read("CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS keys")
        except BoltQueryError:
            return keys
        present = set(rows[0]["keys"]) if rows else set()
        return tuple(key for key in keys if key in present) or keys[:1]

    def _fulltext_sources(self) -> list[str]:
        """The full-text indexes (FalkorDB: labels) to search names with; none when off or absent."""
        if self.spec.fulltext == FULLTEXT_OFF:
            return []
        try:
            rows = self._read(self._conn.dialect.indexes)
        except BoltQueryError:  # e.g. Memgraph: no full-text indexes of this kind
            return []
        found = self._conn.dialect.fulltext_sources(rows, self.queries.name_keys, self.spec.mapping.label)
        if self.spec.fulltext != FULLTEXT_AUTO:
            return [source for source in found if source == self.spec.fulltext]
        return found


def _directions(direction: Direction) -> tuple[Direction, ...]:
    return (Direction.OUT, Direction.IN) if direction is Direction.BOTH else (direction,)


def _fragments(text: str, most: int = 4, size: int = 4) -> list[str]:
    """Lower-case pieces of the text's longest words, as typed and accent-folded, to look for in names:
    each word's start, and for longer words its end too, so that one typo still leaves a piece intact.
    Words of one or two letters only when there is nothing longer (they occur in too many names).
    """
    pieces = set()
    for form in (text.strip().lower(), fold(text)):
        words = sorted(set(_WORD.findall(form)), key=lambda word: (-len(word), word))
        for word in [word for word in words if len(word) >= 3][:most] or words[:most]:
            pieces.add(word[:size])
            if len(word) > size:
                pieces.add(word[-size:])
    return sorted(pieces)
