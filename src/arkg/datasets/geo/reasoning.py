"""What the question templates compute their gold answers and evidence with: an in-memory index
of the KG's triples and entity sets that carry, per item, the triples that ground it.

These follow the provenance rules of the KG-Agent tools (arkg.agents.kg_agent.tools), computed
here directly from the triples, so that replaying a gold program with the executor on the built
store checks both sides.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Protocol

from arkg.graph.literals import as_number
from arkg.graph.model import Triple, merge_triples
from arkg.programs import Call, Names, VarRef

# An entity set: each item with the triples that ground it (insertion-ordered).
Support = dict[str, tuple[Triple, ...]]
READS_KG = frozenset({"get_tail_entity", "get_head_entity", "get_entity_by_constraint", "get_entity_by_type"})


class GraphIndex:
    def __init__(self, triples: Iterable[Triple]) -> None:
        self.out: dict[tuple[str, str], list[Triple]] = defaultdict(list)
        self.into: dict[tuple[str, str], list[Triple]] = defaultdict(list)
        for triple in triples:
            self.out[(triple.head, triple.relation)].append(triple)
            self.into[(triple.tail, triple.relation)].append(triple)

    def tails(self, entity: str, relation: str) -> list[str]:
        return [triple.tail for triple in self.out.get((entity, relation), ())]

    def heads(self, entity: str, relation: str) -> list[str]:
        return [triple.head for triple in self.into.get((entity, relation), ())]

    def one(self, entity: str, relation: str) -> str | None:
        """The single tail of (entity, relation), or None when there is none or several."""
        tails = self.tails(entity, relation)
        return tails[0] if len(tails) == 1 else None

    def number(self, entity: str, relation: str) -> float | None:
        value = self.one(entity, relation)
        return None if value is None else as_number(value)

    def of_type(self, type: str) -> list[str]:
        return self.heads(type, "instance of")


def given(*names: str) -> Support:
    return {name: () for name in names}


def follow(index: GraphIndex, items: Support, relation: str, incoming: bool = False) -> Support:
    found: dict[str, list[Triple]] = {}
    for name, support in items.items():
        edges = index.into.get((name, relation), ()) if incoming else index.out.get((name, relation), ())
        for triple in edges:
            found.setdefault(triple.head if incoming else triple.tail, []).extend((*support, triple))
    return {name: merge_triples(triples) for name, triples in found.items()}


def best(index: GraphIndex, items: Support, relation: str, largest: bool = True) -> Support | None:
    """argmax / argmin: the one item with the largest / smallest value, grounded by its own support
    and every value compared (items without a value are not compared); None when fewer than two
    values compare or the best is tied."""
    values = {name: index.number(name, relation) for name in items}
    valued = {name: value for name, value in values.items() if value is not None}
    if len(valued) < 2:
        return None
    target = max(valued.values()) if largest else min(valued.values())
    winners = [name for name, value in valued.items() if value == target]
    if len(winners) != 1:
        return None
    compared = [index.out[(name, relation)][0] for name in valued]
    return {winners[0]: merge_triples(items[winners[0]], compared)}


def above(index: GraphIndex, items: Support, relation: str, threshold: float) -> Support:
    kept = {}
    for name, support in items.items():
        edges = [t for t in index.out.get((name, relation), ()) if (as_number(t.tail) or 0) > threshold]
        if edges:
            kept[name] = merge_triples(support, edges)
    return kept


class Hop(Protocol):
    """One hop of a question: a relation followed out of (or, `incoming`, into) what came before."""

    @property
    def relation(self) -> str: ...

    @property
    def incoming(self) -> bool: ...


def walk(index: GraphIndex, subject: str, hops: Sequence[Hop]) -> Support | None:
    """What the hops reach from `subject`, each grounded; None when a hop reaches no single entity
    (a noun phrase such as "the director of X" names one)."""
    items = given(subject)
    for hop in hops:
        items = follow(index, items, hop.relation, hop.incoming)
        if len(items) != 1:
            return None
    return items


def evidence(*sets: Support) -> list[Triple]:
    return list(merge_triples(*(triples for items in sets for triples in items.values())))


class Program:
    """Writes a gold program line by line, in the KG-Agent program language (canonical text)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []

    def __call__(self, tool: str, *args: object, **kwargs: object) -> VarRef:
        variable = f"v{len(self.calls) + 1}"
        converted = tuple(Names(arg) if isinstance(arg, tuple) else arg for arg in args)
        self.calls.append(Call(variable, tool, converted, tuple(kwargs.items())))  # type: ignore[arg-type]
        return VarRef(variable)

    def follow(self, start: object, hops: Sequence[Hop]) -> object:
        """The lines that follow the hops from `start` (names or a variable); the last variable."""
        current = start
        for hop in hops:
            current = self("get_head_entity" if hop.incoming else "get_tail_entity", current, hop.relation)
        return current

    def lines(self) -> list[str]:
        return [call.text() for call in self.calls]

    def hops(self) -> int:
        """The longest chain of graph-reading calls through the program's variables."""
        depth: dict[str, int] = {}
        for call in self.calls:
            before = max((depth[name] for name in call.variables()), default=0)
            depth[call.variable] = before + (call.tool in READS_KG)
        return max(depth.values(), default=0)
