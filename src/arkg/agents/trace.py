"""Trace records every strategy shares: one model call, one triple as shown, and their cost.

Each strategy's own trace (ARK's ArkTrace, R³'s, ...) is a list of typed events; the events that
asked the model carry a ModelCall, the events that showed facts carry TripleRecords.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from arkg.graph.model import PropValue, Triple
from arkg.llm.base import Usage


class ModelCall(BaseModel):
    purpose: str  # what the call decided, in the strategy's words ("anchor", "axiom", ...)
    step: int = 0
    attempt: int = 1
    # The message that asked for this decision, exactly as the model read it: what an auditor
    # checks the reply (e.g. its cited keys) against.
    shown: str = ""
    raw: str
    # A reasoning model's thinking before its reply, kept apart from `raw` (None when there was none).
    reasoning: str | None = None
    usage: Usage


class TripleRecord(BaseModel):
    """A KG triple as shown to the model, under its key (T1, T2, ...)."""

    key: str
    head: str
    relation: str
    tail: str
    props: dict[str, PropValue] = {}
    incoming: bool = False  # reached from its tail

    def as_triple(self) -> Triple:
        return Triple(self.head, self.relation, self.tail, dict(self.props))


def total_usage(calls: Iterable[ModelCall]) -> Usage:
    return sum((call.usage for call in calls), Usage())
