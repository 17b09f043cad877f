"""How a property graph reads as arkg's triples, and the fixed Cypher texts that read it.

- An entity is a node with a name: the first of `name_keys` (default name, title, id) the node has.
  Nodes without any of them are not entities; nor are edges that touch one.
- An edge between two entities is a triple; its relation is the relationship type (or, with
  `relation_key`, that relationship property, falling back to the type); its properties are the props.
- With `attributes`, each other property of an entity is a triple too: (name, property, value), one per
  element of a list. Values are not nodes: such a triple is found from its head only (outgoing).
- With `label`, only nodes with that label are looked at, which lets the database use an index on the
  name property; without it every lookup considers every node.

Every query text is built once from the mapping; names from users and models only ever travel as
parameters. Label and property names come from the mapping (the user's own spec) and must be plain
identifiers, so that no quoting is needed in any Cypher dialect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arkg.graph.model import Direction, PropValue

DEFAULT_NAME_KEYS = ("name", "title", "id")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_identifier(value: str, what: str) -> str:
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError(f"{what} must be a plain identifier (letters, digits, _), not {value!r}")
    return value


@dataclass(frozen=True)
class Mapping:
    """Which nodes to read (`label`), what names them, where an edge's relation is, and whether node
    properties are triples (see the module docstring)."""

    label: str | None = None
    name_keys: tuple[str, ...] = DEFAULT_NAME_KEYS
    relation_key: str | None = None
    attributes: bool = True

    def __post_init__(self) -> None:
        if self.label is not None:
            check_identifier(self.label, "label")
        if not self.name_keys:
            raise ValueError("name needs at least one property")
        for key in self.name_keys:
            check_identifier(key, "a name property")
        if self.relation_key is not None:
            check_identifier(self.relation_key, "relation")


class Queries:
    """The Cypher texts of one mapping; `name_keys` are those of the mapping the graph has, and
    `fulltext_procedure` is the dialect's procedure that queries a full-text index of nodes."""

    def __init__(self, mapping: Mapping, name_keys: tuple[str, ...], fulltext_procedure: str) -> None:
        self.mapping = mapping
        self.name_keys = name_keys
        node, other = _node(mapping, "m"), f"{self.name('m')} IS NOT NULL"
        # The entity's nodes first, behind WITH: FalkorDB would otherwise start an incoming-edge pattern
        # from the other end, scanning every node (a filter on m looks more selective to it).
        start = f"MATCH {_node(mapping, 'n')} WHERE {self.named('n', '$entity')}"
        self.nodes = f"{start} RETURN properties(n) AS props, {self.name_key('n')} AS name_key LIMIT $limit"
        edges = {Direction.OUT: f"(n)-[r]->{node}", Direction.IN: f"{node}-[r]->(n)"}
        ends = {Direction.OUT: ("n", "m"), Direction.IN: ("m", "n")}
        self.has_out_edge = f"{start} WITH n MATCH {edges[Direction.OUT]} WHERE {other} RETURN 1 AS found LIMIT 1"
        self.relations = {
            direction: f"{start} WITH n MATCH {edge} WHERE {other}"
            f" RETURN DISTINCT {self.relation('r')} AS relation LIMIT $limit"
            for direction, edge in edges.items()
        }
        self.triples = {
            direction: f"{start} WITH n MATCH {edge} WHERE {self.relation('r')} = $relation AND {other}"
            f" RETURN id(r) AS id, {self.name(ends[direction][0])} AS head, properties(r) AS props,"
            f" {self.name(ends[direction][1])} AS tail ORDER BY id(r) LIMIT $limit"
            for direction, edge in edges.items()
        }
        # Names holding most of the fragments first: the scan reads every name anyway, and the first
        # names holding any fragment are mostly noise when a fragment is common.
        self.search_contains = (
            f"MATCH {_node(mapping, 'n')} WITH {self.name('n')} AS name WHERE name IS NOT NULL"
            " WITH name, size([fragment IN $fragments WHERE toLower(toString(name)) CONTAINS fragment]) AS hits"
            " WHERE hits > 0 RETURN DISTINCT name, hits ORDER BY hits DESC LIMIT $limit"
        )
        with_label = f" AND n:{mapping.label}" if mapping.label else ""
        self.search_fulltext = (
            f"CALL {fulltext_procedure}($source, $query) YIELD node, score WITH node AS n, score"
            f" WHERE {self.name('n')} IS NOT NULL{with_label}"
            f" RETURN {self.name('n')} AS name ORDER BY score DESC LIMIT $limit"
        )
        values = (
            "reduce(total = 0, key IN keys(n) | total + CASE WHEN key = name_key THEN 0 ELSE size([] + n[key]) END)"
            if mapping.attributes
            else "0"
        )
        self.counts = (
            f"MATCH {_node(mapping, 'n')} WHERE {self.name('n')} IS NOT NULL"
            f" OPTIONAL MATCH (n)-[r]->{_node(mapping, 'm')} WHERE {other}"
            f" WITH n, count(r) AS out, {self.name_key('n')} AS name_key"
            f" WITH n, out, {values} AS values"
            f" RETURN count(DISTINCT {self.name('n')}) AS entities, sum(out) AS edges, sum(values) AS attributes,"
            f" count(DISTINCT CASE WHEN out > 0 OR values > 0 THEN {self.name('n')} END) AS heads"
        )
        self.relation_names = (
            f"MATCH {_node(mapping, 'n')}-[r]->{_node(mapping, 'm')}"
            f" WHERE {self.name('n')} IS NOT NULL AND {other} RETURN DISTINCT {self.relation('r')} AS relation"
        )
        self.attribute_keys = (
            f"MATCH {_node(mapping, 'n')} WHERE {self.name('n')} IS NOT NULL WITH n, {self.name_key('n')} AS name_key"
            " UNWIND [key IN keys(n) WHERE key <> name_key AND size([] + n[key]) > 0] AS key RETURN DISTINCT key"
        )

    def name(self, var: str) -> str:
        """The entity name of node `var` (null when it has none)."""
        if len(self.name_keys) == 1:
            return f"{var}.{self.name_keys[0]}"
        return "coalesce(" + ", ".join(f"{var}.{key}" for key in self.name_keys) + ")"

    def named(self, var: str, param: str) -> str:
        """Node `var` is named `param`. With one name property this is one equality an index answers."""
        clauses, absent = [], []
        for key in self.name_keys:
            clauses.append(" AND ".join([*absent, f"{var}.{key} = {param}"]))
            absent.append(f"{var}.{key} IS NULL")
        return clauses[0] if len(clauses) == 1 else "(" + " OR ".join(f"({clause})" for clause in clauses) + ")"

    def name_key(self, var: str) -> str:
        """Which property names node `var`, as a string (the name keys are identifiers: no escaping)."""
        if len(self.name_keys) == 1:
            return f"'{self.name_keys[0]}'"
        cases = " ".join(f"WHEN {var}.{key} IS NOT NULL THEN '{key}'" for key in self.name_keys)
        return f"CASE {cases} END"

    def relation(self, var: str) -> str:
        if self.mapping.relation_key is None:
            return f"type({var})"
        return f"coalesce({var}.{self.mapping.relation_key}, type({var}))"


def _node(mapping: Mapping, var: str) -> str:
    return f"({var}:{mapping.label})" if mapping.label else f"({var})"


def attributes(props: dict[str, Any], name_key: str | None) -> list[tuple[str, str]]:
    """A node's attribute triples as (property, value text): every property but the naming one."""
    found = []
    for key, value in props.items():
        if key == name_key or value is None:
            continue
        for item in value if isinstance(value, list) else [value]:
            found.append((key, as_text(item)))
    return found


def edge_props(props: dict[str, Any], relation_key: str | None) -> dict[str, PropValue]:
    """A relationship's properties as triple props (the relation property itself excluded), in key order
    as every arkg store gives them (servers return properties in an order of their own)."""
    return {key: as_prop(props[key]) for key in sorted(props) if key != relation_key and props[key] is not None}


def as_text(value: Any) -> str:
    """A property value as a name: text as is, booleans as true/false, dates and times in ISO 8601."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else str(value)


def as_prop(value: Any) -> PropValue:
    """A property value as a triple prop: scalars as they are, a list's items joined by "; "."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return "; ".join(as_text(item) for item in value)
    return as_text(value)
