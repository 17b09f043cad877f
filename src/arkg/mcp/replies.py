"""The JSON shapes the MCP tools return (they make each tool's output schema)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from arkg.agents.strategy import Answer, Basis
from arkg.agents.support import Support
from arkg.llm.base import Usage
from arkg.server.api import LimitsView


class AskReply(BaseModel):
    """One answered question: the answer, what it rests on, and where its whole trace is."""

    question: str
    strategy: str
    answer: Answer = Field(description="true / false / null for a yes/no question or a claim (null: not settled); text otherwise.")
    basis: Basis = Field(
        description=(
            "What the answer rests on: KG facts that support it (kg), every edge of the asked relation read for a"
            " False (kg (closed world)), stated commonsense, both (kg+commonsense), cited facts that do not make it"
            " right (unsupported), neither, no answer, or a name the KG does not have (unknown entity)."
        )
    )
    explanation: str
    cited_triples: list[dict[str, Any]] = Field(description="The KG triples the answer cites: head, relation, tail, props.")
    commonsense: list[str] = Field(description="Commonsense rules the answer rests on (empty where none was stated).")
    stop_reason: str
    support: Support | None = Field(
        None,
        description="Whether the cited facts support the answer, why not (one line each), what the KG lists for a"
        " closed-world False, and the names the question gives that the KG does not have.",
    )
    usage: Usage
    trace_id: str = Field(
        description="The run's id: its whole trace is the resource arkg://traces/{trace_id} while the server keeps it "
        "(and the file {trace_id}.json when the server saves traces)."
    )

    @classmethod
    def of(cls, result: dict[str, Any], trace_id: str) -> AskReply:
        """From a Result dumped as JSON (what a finished run holds)."""
        return cls(**{name: result.get(name) for name in cls.model_fields if name != "trace_id"}, trace_id=trace_id)


class KgStats(BaseModel):
    triples: int
    entities: int
    heads: int = Field(description="Entities with at least one outgoing edge.")
    relations: int


class KgInfo(BaseModel):
    kg: str
    stats: KgStats
    model: str
    strategy: str = Field(description="The strategy `ask` uses when it names none.")
    strategies: dict[str, str] = Field(description="Each strategy's one-line summary; arkg://strategies/{name} has its settings.")
    limits: LimitsView = Field(description="This server's limits (a run's budget may be asked lower, never higher).")
    queued: int = Field(description="Questions waiting behind the running one.")
