"""The typed trace every strategy's trace extends, and the records its events share.

A trace is the run's strategy, settings, events, cited triples, stop reason and usage. Each strategy
narrows it to its own settings and event union (`ArkTrace(Trace[ArkSettings, ArkEvent])`); the union
is discriminated by `kind`, which is unique within one strategy. A saved trace is read back by its
strategy's name through the registry (`arkg.agents.strategy.read_trace`), never by guessing a type.
Events that asked the model carry a ModelCall; events that showed facts carry TripleRecords.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, SerializeAsAny, computed_field

from arkg.agents.support import Computation
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


class Event(BaseModel):
    """One thing a run did, recorded in order and handed to the live callback as it happens."""

    kind: str

    @property
    def calls(self) -> list[ModelCall]:
        """The model calls this event made (none for a retrieval or a bookkeeping event)."""
        return []


class ModelEvent(Event):
    """An event that asked the model; its call is None only where the run ended before asking."""

    call: ModelCall | None = None

    @property
    def calls(self) -> list[ModelCall]:
        return [self.call] if self.call is not None else []


SettingsT = TypeVar("SettingsT", bound=BaseModel)
EventT = TypeVar("EventT", bound=Event)


class Trace(BaseModel, Generic[SettingsT, EventT]):
    """One run of a strategy: what it was asked, with which settings, what it did, cited, spent and why it stopped."""

    strategy: str = ""
    question: str
    yes_no: bool = True
    claim: bool = False
    model: str = ""
    settings: SerializeAsAny[SettingsT] | None = None
    events: list[SerializeAsAny[EventT]] = []
    cited_triples: list[TripleRecord] = []
    stop_reason: str = ""

    @classmethod
    def begin(cls, strategy: str, query: Any, model: str, settings: Any, **fields: Any) -> Self:
        """The empty trace of a run of `strategy` on `query` (an arkg.agents.strategy.Query)."""
        return cls(
            strategy=strategy, question=query.text, yes_no=query.yes_no, claim=query.is_claim, model=model, settings=settings, **fields
        )

    @property
    def calls(self) -> list[ModelCall]:
        """Every model call of the run, in order."""
        return [call for event in self.events for call in event.calls]

    @computed_field
    @property
    def usage(self) -> Usage:
        return total_usage(self.calls)

    def shown_triples(self) -> list[Triple] | None:
        """The triples the model was shown, for a strategy whose prompts list them in another form than
        fact lines; None: they stand as fact lines in the prompts (ModelCall.shown), checked there."""
        return None

    def unverified_citations(self) -> list[str]:
        """Citations the trace cannot verify (e.g. each against the prompt of the step that cited it);
        a strategy that can check more than the generic grounding overrides this."""
        return []

    def linked_entities(self) -> list[str]:
        """The KG entities the run linked from the question: what the support check takes as the
        question's own, however the question spells them. None for a strategy that links nothing."""
        return []

    def computations(self) -> list[Computation]:
        """The operations the run computed over values (counts, comparisons), which an answer may rest
        on beside its cited facts. None for a strategy that computes nothing."""
        return []


def total_usage(calls: Iterable[ModelCall]) -> Usage:
    return sum((call.usage for call in calls), Usage())
