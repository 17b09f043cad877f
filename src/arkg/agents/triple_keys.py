"""Short stable keys for triples shown to a model: T1, T2, ... (same triple, same key, whole run).

Short keys of one letter and digits survive small models' copying; the reference implementation's
hash keys with symbols were often mangled.
"""

from __future__ import annotations

from arkg.graph.model import PropValue, Triple
from arkg.text import one_line

TripleIdentity = tuple[str, str, str, tuple[tuple[str, PropValue], ...]]


def identity(triple: Triple) -> TripleIdentity:
    return (triple.head, triple.relation, triple.tail, tuple(sorted(triple.props.items())))


class TripleKeys:
    """Hands out keys in order of first sight; asking again for a triple returns its first key."""

    def __init__(self) -> None:
        self._keys: dict[TripleIdentity, str] = {}

    def key(self, triple: Triple) -> str:
        return self._keys.setdefault(identity(triple), f"T{len(self._keys) + 1}")


def triple_text(triple: Triple) -> str:
    """`(head, relation, tail)` plus its props as `[name: value; ...]`, as shown to the model.

    Always one line: KG text cannot break the layout of a fact list (see arkg.text.one_line), so a
    line that starts with a key is always a fact the agent retrieved.
    """
    text = f"({one_line(triple.head)}, {one_line(triple.relation)}, {one_line(triple.tail)})"
    if triple.props:
        text += " [" + "; ".join(f"{one_line(name)}: {one_line(str(value))}" for name, value in triple.props.items()) + "]"
    return text


def fact_line(key: str, triple: Triple) -> str:
    """One line of a fact list: `T3: (head, relation, tail) [props]`."""
    return f"{key}: {triple_text(triple)}"
