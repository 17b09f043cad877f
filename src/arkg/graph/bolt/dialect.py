"""What differs between Bolt servers: how parameters travel, full-text search, index statements.

`CypherDialect` is Neo4j's (Memgraph speaks it too, without full-text search): parameters travel as
Bolt parameters. `FalkorDialect` is FalkorDB's (4.x). Its Bolt endpoint turns Bolt parameters into
FalkorDB's own parameter header, `CYPHER name='value' ... QUERY`, without escaping quotes, through a
4 KiB stack buffer (a longer header crashes the server) and with floats rounded to six decimals. So
arkg writes that header itself: each value as a Cypher literal, strings escaped, and sends no Bolt
parameters. The query body stays the fixed text with its $placeholders; FalkorDB binds the header's
values to them. Text FalkorDB cannot carry (NUL ends a C string) is never sent: a name holding it is
simply not found. Its Bolt endpoint has no transactions either (each query runs at once, and read
mode is not enforced) and serves only its graph named `falkordb`.

Which one a server needs is measured, not guessed from its version string (FalkorDB says it is Neo4j):
the connection sends a probe parameter whose value tells a server that keeps parameters apart from
one that splices them into the query text (see PROBE).
"""

from __future__ import annotations

import math
import re
from typing import Any

from arkg.graph.matching import fold

# A string the probe sends: a backslash and a quote. A server that keeps parameters apart returns it
# unchanged; one that splices them into query text after arkg escaped it returns the bare quote.
PROBE = "\\'"
_WORD = re.compile(r"[^\W_]+")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MOST_WORDS = 6


class CypherDialect:
    """Neo4j (and servers that take parameters the same way, such as Memgraph)."""

    name = "cypher"
    text_rule = "no lone UTF-16 surrogate"
    transactions = True
    fulltext_procedure = "db.index.fulltext.queryNodes"
    indexes = (
        "SHOW FULLTEXT INDEXES YIELD name, entityType, labelsOrTypes, properties, state"
        " RETURN name, entityType, labelsOrTypes, properties, state"
    )

    def prepare(self, query: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The query text and Bolt parameters to send."""
        return query, params

    def sendable(self, text: str) -> bool:
        """Whether the text can travel as a parameter: any text UTF-8 can encode."""
        return _encodable(text)

    def fulltext_sources(self, rows: list[dict[str, Any]], name_keys: tuple[str, ...], label: str | None) -> list[str]:
        """Online node full-text indexes that cover a name property (and the label, if any)."""
        return [
            row["name"]
            for row in rows
            if row.get("entityType") == "NODE"
            and row.get("state") == "ONLINE"
            and set(row.get("properties") or ()) & set(name_keys)
            and (label is None or label in (row.get("labelsOrTypes") or ()))
        ]

    def identifier(self, name: str) -> str | None:
        """`name` quoted as a label, type or property name (a backtick doubled), or None if it cannot be one."""
        if "\x00" in name or not _encodable(name):
            return None
        return "`" + name.replace("`", "``") + "`"

    def fulltext_query(self, text: str) -> str | None:
        """A Lucene query for the words of `text`: each word's start as a prefix, or the word within two edits."""
        parts = []
        for word in _words(text):
            parts.append(f"{word[:4]}*")
            if len(word) >= 4:
                parts.append(f"{word}~")
        return " ".join(parts) or None

    def has_index(self, rows: list[dict[str, Any]], label: str, key: str, kind: str) -> bool:
        """False: its index statements say IF NOT EXISTS."""
        return False

    def name_index(self, label: str, key: str) -> list[str]:
        """Statements that create a lookup index on the name, to try in order (Neo4j's, then Memgraph's)."""
        return [
            f"CREATE INDEX arkg_{label}_{key} IF NOT EXISTS FOR (n:{label}) ON (n.{key})",
            f"CREATE INDEX ON :{label}({key})",
        ]

    def fulltext_index(self, label: str, key: str) -> list[str]:
        return [f"CREATE FULLTEXT INDEX arkg_{label}_{key}_text IF NOT EXISTS FOR (n:{label}) ON EACH [n.{key}]"]


class FalkorDialect:
    """FalkorDB 4.x: parameters in its own CYPHER header, written by arkg (see the module docstring)."""

    name = "falkordb"
    text_rule = "no NUL character"
    transactions = False  # over Bolt: each query runs at once
    graph = "falkordb"  # the only graph its Bolt endpoint serves
    fulltext_procedure = "db.idx.fulltext.queryNodes"
    indexes = "CALL db.indexes() YIELD label, properties, types, entitytype RETURN label, properties, types, entitytype"

    def prepare(self, query: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The query behind FalkorDB's parameter header, and no Bolt parameters."""
        if not params:
            return query, {}
        header = " ".join(f"{_parameter_name(name)}={_literal(value)}" for name, value in params.items())
        return f"CYPHER {header} {query}", {}

    def sendable(self, text: str) -> bool:
        """Text it can carry: no NUL (its parser reads C strings, which end there)."""
        return _encodable(text) and "\x00" not in text

    def identifier(self, name: str) -> str | None:
        """`name` in backticks, or None: FalkorDB reads no escaped backtick inside one."""
        if "`" in name or "\x00" in name or not _encodable(name):
            return None
        return f"`{name}`"

    def fulltext_sources(self, rows: list[dict[str, Any]], name_keys: tuple[str, ...], label: str | None) -> list[str]:
        """Labels whose full-text index covers a name property (FalkorDB indexes by label)."""
        return sorted(
            {
                row["label"]
                for row in rows
                if row.get("entitytype") == "NODE"
                and any("FULLTEXT" in (row.get("types") or {}).get(key, ()) for key in name_keys)
                and (label is None or row["label"] == label)
            }
        )

    def fulltext_query(self, text: str) -> str | None:
        """A RediSearch query: each word, or (for 4 letters or more) a word within one edit of it.
        Prefix and two-edit terms found no more names on a 100k-name graph and took 2-6 times as long."""
        parts = []
        for word in _words(text):
            parts.append(word)
            if len(word) >= 4:
                parts.append(f"%{word}%")
        return " | ".join(parts) or None

    def has_index(self, rows: list[dict[str, Any]], label: str, key: str, kind: str) -> bool:
        """Whether `indexes` lists an index of that kind (RANGE, FULLTEXT) on the label's property."""
        return any(row.get("label") == label and kind in (row.get("types") or {}).get(key, ()) for row in rows)

    def name_index(self, label: str, key: str) -> list[str]:
        return [f"CREATE INDEX FOR (n:{label}) ON (n.{key})"]

    def fulltext_index(self, label: str, key: str) -> list[str]:
        return [f"CALL db.idx.fulltext.createNodeIndex('{label}', '{key}')"]


Dialect = CypherDialect | FalkorDialect


def _words(text: str) -> list[str]:
    """The query's longest words, as typed (lower-cased) and accent-folded: only letters and digits,
    nothing a search syntax reads."""
    words = sorted(set(_WORD.findall(text.lower())) | set(_WORD.findall(fold(text))), key=lambda word: (-len(word), word))
    return [word for word in words if len(word) >= 2][:_MOST_WORDS] or words[:1]


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no name holds one
        return False
    return True


def _parameter_name(name: str) -> str:
    if not _PARAMETER.fullmatch(name):
        raise ValueError(f"not a parameter name: {name!r}")
    return name


def _literal(value: Any) -> str:
    """A Cypher literal of a parameter value: strings quoted with their quotes and backslashes escaped
    (FalkorDB reads a backslash as an escape), floats written exactly, lists item by item."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    raise ValueError(f"cannot send {type(value).__name__} {value!r} as a parameter")
