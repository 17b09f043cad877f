"""The built-in tools (the paper's Table 8): extraction, logic and semantic tools.

Each implementation takes the ToolContext and its arguments resolved by parameter type, and
returns a Value whose items keep the triples they come from. Provenance rules:
- following an edge: the new item's support is the support of the item it was reached from, plus the edge;
- a constraint (= < ...): a kept entity adds the edges whose value satisfied it;
- argmax / argmin: a kept entity adds the value edges of every candidate compared (they justify it);
- intersect / union: an item's supports from both sides; count and judge: everything they looked at.

The semantic tools compare meaning with WordLlama embeddings where the `dense` extra is installed and
fall back to string matching without it; their descriptions say which (`semantic_method`).
"""

from __future__ import annotations

from collections.abc import Sequence

from arkg.graph.literals import COMPARISONS, Scalar, compare, order_keys, same
from arkg.agents.kg_agent.context import ToolContext
from arkg.agents.kg_agent.ranking import closest_name, rank_by_spelling, rank_labels, semantic_method
from arkg.agents.kg_agent.suggest import (
    suggest_candidate_entity,
    suggest_constraint,
    suggest_disambiguate,
    suggest_entity_by_type,
    suggest_judge,
    suggest_pairs,
    suggest_retrieve_relation,
    suggest_variables,
)
from arkg.agents.kg_agent.toolbox import Param, ParamType, Tool, Toolbox
from arkg.agents.kg_agent.values import (
    Boolean,
    Entities,
    Number,
    RelationItem,
    Relations,
    Value,
    ValueKind,
    single_value,
)
from arkg.graph.model import Direction, Triple, merge_triples
from arkg.programs import ToolError
from arkg.text import clip, one_line

ORDERINGS = ("argmax", "argmin")
JUDGEMENTS = COMPARISONS + ("contains", "overlaps")
# Tools that compute over the values they are given, not only read edges: their step records keep the
# arguments, so that the computation can be re-run.
COMPUTING = frozenset({"count", "judge", "get_entity_by_constraint"})
_SHOWN = 10  # relations or entities listed in an error message


def _names(entities: Entities) -> str:
    shown = ", ".join(clip(one_line(name), 60) for name in entities.items[:3])
    more = f" and {entities.size - 3} more" if entities.size > 3 else ""
    return f"{shown}{more}"


# -- extraction ------------------------------------------------------------------------------


def get_relation(context: ToolContext, entities: Entities) -> Relations:
    pairs = [
        (RelationItem(relation, direction), (entity,))
        for direction in (Direction.OUT, Direction.IN)
        for entity in entities.items
        for relation in context.kg.relations(entity, direction)
    ]
    pairs.sort(key=lambda pair: (pair[0].direction == Direction.IN, pair[0].name))
    return Relations.collect(pairs)


def follow(context: ToolContext, entities: Entities, relation: str, direction: Direction) -> Entities:
    """The entities at the other end of the `relation` edges leaving (OUT) or arriving at (IN) `entities`."""
    pairs = []
    for entity in entities.items:
        for triple in context.kg.triples(entity, relation, direction):
            other = triple.tail if direction == Direction.OUT else triple.head
            pairs.append((other, (*entities.support_of(entity), triple)))
    if entities.size and not pairs:
        raise _unknown_relation(context, entities, relation, direction)
    return Entities.collect(pairs)


def _unknown_relation(context: ToolContext, entities: Entities, relation: str, direction: Direction) -> ToolError:
    def relations(towards: Direction) -> list[str]:
        found = (name for entity in entities.items[:20] for name in context.kg.relations(entity, towards))
        return rank_by_spelling(found, relation)

    where = "leaves" if direction == Direction.OUT else "arrives at"
    offered = relations(direction)
    message = f"no edge {clip(one_line(relation), 80)!r} {where} {_names(entities)}"
    other = Direction.IN if direction == Direction.OUT else Direction.OUT
    bare = relation.removesuffix(" (incoming)")
    if bare in relations(other) or bare in offered:
        tool = "get_head_entity" if bare in relations(Direction.IN) else "get_tail_entity"
        return ToolError(f"{message}; to follow {bare!r} {'into' if tool == 'get_head_entity' else 'out of'} them use {tool}")
    listed = ", ".join(one_line(name) for name in offered[:_SHOWN]) or "none"
    return ToolError(f"{message}; relations that do: {listed}")


def get_tail_entity(context: ToolContext, entities: Entities, relation: str) -> Entities:
    return follow(context, entities, relation, Direction.OUT)


def get_head_entity(context: ToolContext, entities: Entities, relation: str) -> Entities:
    return follow(context, entities, relation, Direction.IN)


def get_entity_by_type(context: ToolContext, type: str) -> Entities:
    settings = context.settings
    pairs = [
        (triple.head, (triple,))
        for relation in settings.type_relations
        for triple in context.kg.triples(type, relation, Direction.IN)
    ]
    if not pairs:
        relations = " / ".join(repr(relation) for relation in settings.type_relations)
        raise ToolError(f"no entity has type {clip(one_line(type), 80)!r} (an edge {relations} to it)")
    found = Entities.collect(pairs)
    if found.size <= settings.type_cap:
        return found
    kept = found.items[: settings.type_cap]
    return Entities(kept, {name: found.support[name] for name in kept}, truncated=True)


def get_entity_by_constraint(
    context: ToolContext,
    entities: Entities,
    relation: str,
    op: str,
    value: Value | str | int | float | None = None,
    prop: str | None = None,
) -> Entities:
    if op in COMPARISONS and value is None:
        raise ToolError(f"get_entity_by_constraint with op {op!r} needs a value to compare with")
    target = single_value(value) if isinstance(value, (Entities, Relations, Number, Boolean)) else value
    if op in COMPARISONS and target is None:
        raise ToolError(f"the value to compare with must hold exactly one value (op {op!r})")
    edges = [(entity, triple) for entity in entities.items for triple in context.kg.triples(entity, relation, Direction.OUT)]
    if entities.size and not edges:
        raise _unknown_relation(context, entities, relation, Direction.OUT)
    if prop is not None:
        edges = [(entity, triple) for entity, triple in edges if triple.props.get(prop) is not None]
        if entities.size and not edges:
            raise ToolError(f"no {clip(one_line(relation), 80)!r} edge of {_names(entities)} has the prop {clip(one_line(prop), 80)!r}")
    quantities = [triple.tail if prop is None else triple.props[prop] for _, triple in edges]
    if op in ORDERINGS:
        return _best(entities, edges, quantities, largest=op == "argmax")
    pairs = [
        (entity, (*entities.support_of(entity), triple))
        for (entity, triple), quantity in zip(edges, quantities)
        if compare(quantity, op, target) is True  # type: ignore[arg-type]
    ]
    return Entities.collect(pairs)


def _best(entities: Entities, edges: list[tuple[str, Triple]], quantities: list[object], largest: bool) -> Entities:
    keys = order_keys(quantities)  # type: ignore[arg-type]
    best: dict[str, tuple] = {}
    compared: list[Triple] = []
    for (entity, triple), key in zip(edges, keys):
        if key is None:
            continue
        compared.append(triple)
        if entity not in best or (key > best[entity] if largest else key < best[entity]):
            best[entity] = key
    if not best:
        return Entities()
    winner = max(best.values()) if largest else min(best.values())
    return Entities.collect(
        (entity, (*entities.support_of(entity), *compared)) for entity in entities.items if best.get(entity) == winner
    )


def get_candidate_entity(context: ToolContext, name: str) -> Entities:
    return Entities.collect((match.name, ()) for match in context.kg.search_entities(name, context.settings.candidates))


# -- logic -----------------------------------------------------------------------------------


def count(context: ToolContext, entities: Entities) -> Number:
    return Number(entities.size, entities.triples())


def intersect(context: ToolContext, a: Entities, b: Entities) -> Entities:
    kept = set(b.items)
    return Entities.collect((name, (*a.support_of(name), *b.support_of(name))) for name in a.items if name in kept)


def union(context: ToolContext, a: Entities, b: Entities) -> Entities:
    return Entities.collect([*((name, a.support_of(name)) for name in a.items), *((name, b.support_of(name)) for name in b.items)])


def _items(value: Value | str | int | float) -> list[str | int | float | bool]:
    if isinstance(value, Entities):
        return list(value.items)
    if isinstance(value, (Number, Boolean)):
        return [] if value.value is None else [value.value]
    return [value]  # type: ignore[list-item]


def judge(context: ToolContext, a: Value, op: str, b: Value | str | int | float) -> Boolean:
    support = merge_triples(a.triples(), b.triples() if isinstance(b, (Entities, Number, Boolean)) else ())
    return Boolean(judgement(_items(a), op, _items(b)), support)


def judgement(held: Sequence[Scalar], op: str, wanted: Sequence[Scalar]) -> bool | None:
    """The verdict of judge over the items of its two operands: a comparison needs one item on each side
    (None otherwise); `contains` every wanted item among those held, `overlaps` any."""
    if op in COMPARISONS:
        if len(held) != 1 or len(wanted) != 1:
            return None
        return compare(held[0], op, wanted[0])
    if not held or not wanted:
        return None
    if op == "contains":
        return all(any(same(x, y) for x in held) for y in wanted)
    return any(same(x, y) for x in held for y in wanted)


def end(context: ToolContext, v: Value) -> Value:
    return v


# -- semantic --------------------------------------------------------------------------------


def retrieve_relation(context: ToolContext, query: str, relations: Relations, k: int) -> Relations:
    if k < 1:
        raise ToolError(f"retrieve_relation keeps k relations; k must be at least 1, not {k}")
    ranked = rank_labels((item.name for item in relations.items), query)
    position = {name: index for index, name in enumerate(ranked)}
    kept = sorted(relations.items, key=lambda item: position[item.name])[:k]
    return Relations.collect((item, relations.seen_on[item]) for item in kept)


def disambiguate_entity(context: ToolContext, name: str, candidates: Entities) -> Entities:
    if not candidates.size:
        return Entities()
    best = candidates.items[closest_name(name, candidates.items)]
    return Entities.collect([(best, candidates.support_of(best))])


# -- the toolbox -----------------------------------------------------------------------------

_ENTITIES = Param("entities", ParamType.ENTITIES)
_PAIR = (Param("a", ParamType.ENTITIES), Param("b", ParamType.ENTITIES))


def default_toolbox() -> Toolbox:
    """A new Toolbox with the built-in tools; register more on it."""
    scalar = (ValueKind.ENTITIES, ValueKind.NUMBER, ValueKind.BOOLEAN)
    return Toolbox(
        [
            Tool(
                "get_relation", (_ENTITIES,), ValueKind.RELATIONS,
                "relations on edges leaving (out) and arriving at (incoming) any of the entities.", get_relation,
            ),
            Tool(
                "get_tail_entity",
                (_ENTITIES, Param("relation", ParamType.RELATION, relation_of="entities")),
                ValueKind.ENTITIES,
                "tails t of edges (e, relation, t) with e in entities.",
                get_tail_entity,
            ),
            Tool(
                "get_head_entity",
                (_ENTITIES, Param("relation", ParamType.RELATION, relation_of="entities", direction=Direction.IN)),
                ValueKind.ENTITIES,
                "heads h of edges (h, relation, e) with e in entities (follows an incoming relation).",
                get_head_entity,
            ),
            Tool(
                "get_entity_by_type",
                (Param("type", ParamType.TEXT),),
                ValueKind.ENTITIES,
                "entities e with an edge (e, instance of / type / is a, type).",
                get_entity_by_type,
                suggest=suggest_entity_by_type,
            ),
            Tool(
                "get_entity_by_constraint",
                (
                    _ENTITIES,
                    Param("relation", ParamType.RELATION, relation_of="entities"),
                    Param("op", ParamType.OPERATOR, choices=COMPARISONS + ORDERINGS),
                    Param("value", ParamType.OPERAND, required=False),
                    Param("prop", ParamType.TEXT, required=False, keyword_only=True),
                ),
                ValueKind.ENTITIES,
                "the entities with an edge (e, relation, t) whose t (or the edge's prop) satisfies `op value`;"
                " op is = != < <= > >=, or argmax / argmin (no value: keep those with the largest / smallest).",
                get_entity_by_constraint,
                suggest=suggest_constraint,
            ),
            Tool(
                "get_candidate_entity",
                (Param("name", ParamType.TEXT),),
                ValueKind.ENTITIES,
                "entities of the graph whose names match `name`, best first.",
                get_candidate_entity,
                suggest=suggest_candidate_entity,
            ),
            Tool(
                "count", (_ENTITIES,), ValueKind.NUMBER, "the number of entities.", count,
                group="logic", suggest=suggest_variables(ValueKind.ENTITIES),
            ),
            Tool(
                "intersect", _PAIR, ValueKind.ENTITIES, "the entities in both a and b.", intersect,
                group="logic", suggest=suggest_pairs,
            ),
            Tool("union", _PAIR, ValueKind.ENTITIES, "the entities in a or b.", union, group="logic", suggest=suggest_pairs),
            Tool(
                "judge",
                (
                    Param("a", ParamType.VARIABLE, kinds=scalar),
                    Param("op", ParamType.OPERATOR, choices=JUDGEMENTS),
                    Param("b", ParamType.OPERAND),
                ),
                ValueKind.BOOLEAN,
                "True / False / None: compare the single value of a with b (= != < <= > >=), or whether a"
                " contains b, or a overlaps b; None when a or b is empty or ambiguous.",
                judge,
                group="logic",
                suggest=suggest_judge,
            ),
            Tool(
                "end", (Param("v", ParamType.VARIABLE, kinds=scalar),), "answer", "stop: v is the answer.", end,
                group="logic", suggest=suggest_variables(*scalar), ends=True,
            ),
            Tool(
                "retrieve_relation",
                (Param("query", ParamType.TEXT), Param("relations", ParamType.RELATIONS), Param("k", ParamType.INTEGER)),
                ValueKind.RELATIONS,
                f"the k relations most similar in meaning to the query text (by {semantic_method()}).",
                retrieve_relation,
                group="semantic",
                suggest=suggest_retrieve_relation,
            ),
            Tool(
                "disambiguate_entity",
                (Param("name", ParamType.TEXT), Param("candidates", ParamType.ENTITIES)),
                ValueKind.ENTITIES,
                f"the one candidate whose name is closest to `name` (by {semantic_method()}).",
                disambiguate_entity,
                group="semantic",
                suggest=suggest_disambiguate,
            ),
        ]
    )
