"""ARK routes: the gold (anchor, relation) steps of a chain, each with the facts to cite.

From a chain written by a source (CoLoTa, the sample questions) each distinct (head, relation) of
its facts is one step, in the order the source uses them, with the source's sentence as the
implication. From a program run on a KG (the geography questions, and every edited KG) each hop
is one step per entity it starts from, citing the edges that the answer rests on.
"""

from __future__ import annotations

from collections.abc import Iterable

from arkg.agents.kg_agent import KnowledgeMemory
from arkg.agents.teaching import RouteStep, fit
from arkg.agents.triple_keys import identity
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.programs import Names, VarRef
from arkg.synth.chains import Chain
from arkg.synth.wording import implication

HOP_TOOLS = {"get_tail_entity": Direction.OUT, "get_head_entity": Direction.IN, "get_entity_by_constraint": Direction.OUT}


def route_from_chain(chain: Chain) -> list[RouteStep]:
    steps: dict[tuple[str, str], tuple[list[Triple], list[str]]] = {}
    for step in chain.steps:
        for fact in step.facts:
            first = fact.triples[0]
            triples, texts = steps.setdefault((first.head, first.relation), ([], []))
            triples.extend(t for t in fact.triples if identity(t) not in {identity(u) for u in triples})
            if step.text and step.text not in texts:
                texts.append(step.text)
    return [
        RouteStep(
            head,
            relation,
            Direction.OUT,
            tuple(triples),
            fit(" ".join(texts)) if texts else implication(head, relation, Direction.OUT, triples),
        )
        for (head, relation), (triples, texts) in steps.items()
    ]


def route_from_program(kg: KnowledgeGraph, memory: KnowledgeMemory, rests_on: Iterable[Triple]) -> list[RouteStep]:
    """The steps of a finished program's hops, in program order: each reads the edges that ground
    its answer (`rests_on`, from `programs.rests_on`: all the neighbours whose populations are
    compared, not only the one that wins; every city a size threshold weighed, not only those above
    it), and the edges to the entities that later steps start from."""
    evidence = {identity(triple) for triple in rests_on}
    hops: dict[tuple[str, str, Direction], list[Triple]] = {}
    for step in memory.steps:
        direction = HOP_TOOLS.get(step.call.tool)
        if direction is not None:
            source, relation = step.call.args[:2]
            assert isinstance(relation, str)
            for anchor in _items(memory, source):
                hops.setdefault((anchor, relation, direction), kg.triples(anchor, relation, direction))
    needed: set[str] = set()
    route: list[RouteStep] = []
    for (anchor, relation, direction), edges in reversed(hops.items()):
        far = (lambda t: t.head) if direction == Direction.IN else (lambda t: t.tail)
        triples = tuple(t for t in edges if identity(t) in evidence or far(t) in needed)
        if triples:
            needed.add(anchor)
            route.append(RouteStep(anchor, relation, direction, triples, implication(anchor, relation, direction, triples)))
    return route[::-1]


def _items(memory: KnowledgeMemory, source: object) -> tuple[str, ...]:
    if isinstance(source, Names):
        return source.items
    if isinstance(source, VarRef):
        value = memory.value(source.name)
        return tuple(value.texts())
    return ()
