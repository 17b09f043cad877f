"""The built-in tools' argument suggestions for constrained decoding, most likely first.

Each function takes the tool and the OptionContext and yields argument dicts; the parameter
names come from the tool, so a suggestion can serve any tool of the same shape.
"""

from __future__ import annotations

import itertools

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from arkg.graph.literals import COMPARISONS, comparable, is_text
from arkg.agents.kg_agent.values import Entities, Number, ValueKind, single_value
from arkg.graph.model import Direction
from arkg.programs import Arg

if TYPE_CHECKING:
    from arkg.agents.kg_agent.options import OptionContext
    from arkg.agents.kg_agent.toolbox import Tool

Suggestions = Iterator[dict[str, Arg]]
_ORDER_FIRST = (">", "<", ">=", "<=", "=", "!=")  # comparisons, the usual ones in questions first


def _names_of(tool: Tool) -> list[str]:
    return [param.name for param in tool.params]


def suggest_variables(*kinds: ValueKind) -> Callable[[Tool, OptionContext], Suggestions]:
    """The tool's first parameter bound to each variable of these kinds (empty ones too), newest first."""

    def suggest(tool: Tool, context: OptionContext) -> Suggestions:
        first = tool.params[0].name
        for ref in context.variables_of(*kinds, nonempty=False):
            yield {first: ref}

    return suggest


def suggest_pairs(tool: Tool, context: OptionContext) -> Suggestions:
    """Each pair of entity sets, earlier set first, then each the other way round. Intersect and union
    are symmetric, but a model writes its operands in the question's order, which the order of the
    sets (entity linking's, for topic entities) need not follow."""
    a, b = _names_of(tool)[:2]
    pairs = list(itertools.combinations(list(context.entity_sets), 2))
    for left, right in [*pairs, *((right, left) for left, right in pairs)]:
        yield {a: left, b: right}


def suggest_entity_by_type(tool: Tool, context: OptionContext) -> Suggestions:
    type_relations = set(context.tools.type_relations)
    first = tool.params[0].name
    for name in context.names:
        if type_relations & set(context.kg.relations(name, Direction.IN)):
            yield {first: name}


def suggest_candidate_entity(tool: Tool, context: OptionContext) -> Suggestions:
    first = tool.params[0].name
    for phrase in context.capitalised_phrases:
        yield {first: phrase}


def suggest_disambiguate(tool: Tool, context: OptionContext) -> Suggestions:
    name, candidates = _names_of(tool)[:2]
    sets = [ref for ref in context.variables_of(ValueKind.ENTITIES) if context.memory.value(ref.name).size > 1]
    for ref in sets:
        for phrase in context.capitalised_phrases:
            yield {name: phrase, candidates: ref}


def suggest_retrieve_relation(tool: Tool, context: OptionContext) -> Suggestions:
    query, relations, k = _names_of(tool)[:3]
    for ref in context.variables_of(ValueKind.RELATIONS):
        yield {query: context.memory.question, relations: ref, k: 5}


def suggest_constraint(tool: Tool, context: OptionContext) -> Suggestions:
    """Over entity variables: argmax / argmin on each offered relation (for sets of several), then
    comparisons with the question's numbers, then equality with names seen, then the same on props."""
    entities, relation, op, value, prop = _names_of(tool)[:5]
    sets = context.variables_of(ValueKind.ENTITIES)
    offered = [(ref, name) for ref in sets for name in context.relations(ref, Direction.OUT)]
    for ref, name in offered:
        if context.memory.value(ref.name).size > 1:
            for ordering in ("argmax", "argmin"):
                yield {entities: ref, relation: name, op: ordering}
    for ref, name in offered:
        for number in context.numbers:
            for comparison in _ORDER_FIRST:
                yield {entities: ref, relation: name, op: comparison, value: number}
    for ref, name in offered:
        for seen in context.names:
            for comparison in ("=", "!="):
                yield {entities: ref, relation: name, op: comparison, value: seen}
    for ref, name in offered:
        for key in context.props.get(name, ()):
            for ordering in ("argmax", "argmin"):
                yield {entities: ref, relation: name, op: ordering, prop: key}
            for number in context.numbers:
                for comparison in _ORDER_FIRST:
                    yield {entities: ref, relation: name, op: comparison, value: number, prop: key}


def suggest_judge(tool: Tool, context: OptionContext) -> Suggestions:
    """Compare variables with each other, then entity variables with names seen, then single values
    with the question's numbers: only where the verdict turns on the values, not on their sorts (no
    ordering of two names, no text equal to a number, no set of numbers holding a name), and not on
    where the name came from (a variable against one of its own items, unless the question names it)."""
    a, op, b = _names_of(tool)[:3]
    kinds = (ValueKind.ENTITIES, ValueKind.NUMBER, ValueKind.BOOLEAN)
    refs = context.variables_of(*kinds)
    values = {ref: context.memory.value(ref.name) for ref in refs}
    single = {ref: single_value(values[ref]) for ref in refs}
    scalar = [ref for ref in refs if single[ref] is not None]
    sorts = {ref: _sorts(values[ref]) for ref in refs if isinstance(values[ref], Entities)}
    for left in refs:
        for right in refs:
            if left == right:
                continue
            if left in scalar and right in scalar:
                for comparison in _ORDER_FIRST:
                    if comparable(single[left], comparison, single[right]):
                        yield {a: left, op: comparison, b: right}
            if left in sorts and right in sorts and sorts[left] & sorts[right]:
                yield {a: left, op: "overlaps", b: right}
                yield {a: left, op: "contains", b: right}
    asked = {*context.memory.topic_entities, *context.mentions}
    for left in refs:
        if left in sorts:
            own = set(values[left].items)  # type: ignore[union-attr]
            for seen in context.names:
                if seen in own and seen not in asked:
                    continue  # a name read off this very variable: the verdict is known before the judge
                if is_text(seen) in sorts[left]:
                    yield {a: left, op: "contains", b: seen}
                if left in scalar and comparable(single[left], "=", seen):
                    yield {a: left, op: "=", b: seen}
    for left in scalar:
        if isinstance(values[left], (Entities, Number)):
            for number in context.numbers:
                for comparison in COMPARISONS:
                    if comparable(single[left], comparison, number):
                        yield {a: left, op: comparison, b: number}


def _sorts(value: Entities) -> set[bool]:
    """Which sorts an entity set holds, as `is_text` of its items."""
    return {is_text(item) for item in value.items}
