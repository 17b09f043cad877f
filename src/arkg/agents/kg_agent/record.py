"""The typed record of one program step, as a trace stores and exports it (JSON via pydantic)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from arkg.agents.kg_agent.values import Value, ValueKind
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


def step_record(
    index: int, variable: str, call: str, tool: str, value: Value, inputs: list[Value], sample: int, limit: int
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
    )
