"""The typed record of one program step, as a trace stores and exports it (JSON via pydantic)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from arkg.agents.kg_agent.values import Boolean, Entities, Number, Relations, Value, ValueKind
from arkg.graph.model import Triple, merge_triples, triple_key


class StepRecord(BaseModel):
    """What one line did: the call, what it produced, and the KG triples it read.

    `triples` are the edges this step added to the provenance of its result (those it read from
    the graph), at most `limit` of them; `triple_count` counts them all. Earlier steps' triples are
    in their own records; `support_count` is the size of the result's whole provenance.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    variable: str
    call: str
    tool: str
    kind: ValueKind
    size: int
    sample: list[str]
    truncated: bool = False
    triples: list[Triple] = []
    triple_count: int = 0
    support_count: int = 0
    # For a tool computing over values (judge, count, argmax...: tools.COMPUTING), what each argument was
    # given, as text (at most `limit` items each): what the support check re-runs the computation on.
    arguments: dict[str, list[str]] = {}


def argument_texts(argument: object, limit: int) -> list[str]:
    """An argument as the items it holds, as text; a verdict of None holds none."""
    if isinstance(argument, Boolean) and argument.value is None:
        return []
    texts = argument.texts() if isinstance(argument, (Entities, Relations, Number, Boolean)) else [str(argument)]
    return texts[:limit]


def step_record(
    index: int,
    variable: str,
    call: str,
    tool: str,
    value: Value,
    inputs: list[Value],
    sample: int,
    limit: int,
    arguments: dict[str, object] | None = None,
) -> StepRecord:
    support = value.triples()
    known = {triple_key(triple) for triple in merge_triples(*(value.triples() for value in inputs))}
    new = [triple for triple in support if triple_key(triple) not in known]
    return StepRecord(
        index=index,
        variable=variable,
        call=call,
        tool=tool,
        kind=value.kind,
        size=value.size,
        sample=value.texts()[:sample],
        truncated=getattr(value, "truncated", False),
        triples=new[:limit],
        triple_count=len(new),
        support_count=len(support),
        arguments={name: argument_texts(argument, limit) for name, argument in (arguments or {}).items()},
    )
