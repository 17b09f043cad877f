"""The run skeleton every strategy shares: model calls, seeds, budget, events, bounded attempts, the Result.

    kit = RunKit(model, options)
    value, call = kit.complete(messages, output, purpose="anchor", step=1)   # seed = base seed + call number

A strategy subclasses `Agent` (its `start` builds one `StrategyRun` per query) and `StrategyRun`,
writing only its own steps and routes:

    class _Run(StrategyRun[KapingTrace]):
        def execute(self) -> Result:
            self.record(FactsRetrieved(...))                           # into the trace, and to the callback
            answered = self.attempts(settings.c_max, self.answer)      # retried with the rejection's feedback
            return self.result(answer, explanation, stop_reason="done", retrieved=shown)

A call that would go over the budget raises RunStopped before reaching the model; so does a call
after the caller asked to cancel. `StrategyRun.run` turns a budget stop into the strategy's own
"no answer" result (`stopped`), so every strategy records it the same way; a cancellation propagates.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.strategy import Answer, Query, Result, answer_support, as_query
from arkg.agents.support import Support
from arkg.agents.unknown_names import MissingName, missing_names
from arkg.agents.trace import Event, ModelCall, Trace, TripleRecord, total_usage
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.llm.base import ChatModel, Message, OutputSpec, Sampling, Usage

EventCallback = Callable[[Any], None]
TraceT = TypeVar("TraceT", bound=Trace)
Feedback = TypeVar("Feedback")

BUDGET_SPENT = "the run budget was spent"


class StopReason(str, Enum):
    """Why a run ended: the base of every strategy's own reasons (`class ArkStop(StopReason): ...`).

    An enum with members cannot be extended, so this one has none; the one reason every strategy
    shares is the budget's, BUDGET_SPENT, which each strategy's enum lists as its BUDGET."""


class Budget(BaseModel):
    """Limits on one query's model use; None means no limit. Cached calls count like real ones, so a
    rerun from the response cache stops exactly where the first run did."""

    model_config = ConfigDict(frozen=True)

    max_calls: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)

    def exceeded(self, usage: Usage) -> str | None:
        """Why one more call is not allowed after `usage`, or None."""
        calls = usage.total_calls
        if self.max_calls is not None and calls >= self.max_calls:
            return f"{calls} model calls made (max_calls={self.max_calls})"
        if self.max_tokens is not None and usage.total_tokens >= self.max_tokens:
            return f"{usage.total_tokens} tokens spent (max_tokens={self.max_tokens})"
        return None


class RunStopped(Exception):
    """A query was stopped before its next model call: budget spent, or cancelled by the caller.

    Not an ArkgError: it is no failure of the query, and callers that record failures must not
    mistake a cancellation for one."""

    def __init__(self, reason: str, cancelled: bool = False) -> None:
        self.reason = reason
        self.cancelled = cancelled
        super().__init__(reason)


@dataclass(frozen=True)
class RunOptions:
    """How to run one query: sampling of every call (seed + call number per call), budget, callbacks."""

    sampling: Sampling = Sampling(max_tokens=256)
    budget: Budget = Budget()
    on_event: EventCallback | None = None
    # Set by the caller to stop the query at its next model call (e.g. on Ctrl-C).
    cancel: threading.Event | None = None
    # Answer None, naming them, when the question gives names the KG does not have (False: explore
    # anyway, as on benchmarks whose per-question graphs hold only some of the names).
    stop_on_missing_names: bool = True


@dataclass
class RunKit:
    model: ChatModel
    options: RunOptions = field(default_factory=RunOptions)
    calls: list[ModelCall] = field(default_factory=list)

    def complete(
        self,
        messages: Sequence[Message],
        output: OutputSpec,
        purpose: str | Enum,
        step: int = 0,
        attempt: int = 1,
    ) -> tuple[Any, ModelCall]:
        """One model call on `messages`; the reply's value and its ModelCall (also kept in `calls`)."""
        cancel = self.options.cancel
        if cancel is not None and cancel.is_set():
            raise RunStopped("cancelled", cancelled=True)
        if (reason := self.options.budget.exceeded(self.usage)) is not None:
            raise RunStopped(f"{BUDGET_SPENT}: {reason}")
        completion = self.model.complete(messages, output, self.sampling())
        call = ModelCall(
            purpose=purpose.value if isinstance(purpose, Enum) else purpose,
            step=step,
            attempt=attempt,
            shown=messages[-1].content if messages else "",
            raw=completion.raw,
            reasoning=completion.reasoning,
            usage=completion.usage,
        )
        self.calls.append(call)
        return completion.value, call

    def sampling(self) -> Sampling:
        # A fresh seed per call: with temperature > 0 a retry must not replay the failed sample.
        sampling = self.options.sampling
        if sampling.seed is None:
            return sampling
        return sampling.model_copy(update={"seed": sampling.seed + len(self.calls)})

    def emit(self, event: Any) -> None:
        if self.options.on_event is not None:
            self.options.on_event(event)

    @property
    def usage(self) -> Usage:
        return total_usage(self.calls)


class StrategyRun(ABC, Generic[TraceT]):
    """One query of one strategy: its trace, the kit, and what every strategy does the same way.

    A subclass writes `execute` (its steps and routes, ending in `self.result(...)`) and `stopped`
    (the result when the budget ends the run early), and sets `kg` when it reads one: the support
    check then reads it (which names are entities, which edges a relation has)."""

    kg: KnowledgeGraph | None = None

    def __init__(self, query: Query, kit: RunKit, trace: TraceT) -> None:
        self.query = query
        self.kit = kit
        self.trace = trace

    @abstractmethod
    def execute(self) -> Result: ...

    @abstractmethod
    def stopped(self, detail: str) -> Result:
        """The result when the run budget ended the run; `detail` says which limit was reached."""

    def run(self) -> Result:
        if self.kg is not None and self.kit.options.stop_on_missing_names:
            missing = missing_names(self.kg, self.query.text, self.query.entities)
            if missing:
                return self.missing(missing)
        try:
            return self.execute()
        except RunStopped as stop:
            if stop.cancelled:
                raise
            return self.stopped(stop.reason)

    def missing(self, names: list[MissingName]) -> Result:
        """The result for a question naming what the KG does not have: None, and which names, before any call."""
        explained = "; ".join(name.explain() for name in names)
        self.trace.stop_reason = f"unknown entity: {explained}"
        return Result(
            strategy=self.trace.strategy,
            question=self.query.text,
            claim=self.query.is_claim,
            answer=None,
            explanation=explained,
            stop_reason=self.trace.stop_reason,
            trace=self.trace,
            usage=self.trace.usage,
            support=Support(supported=False, reasons=[explained], missing=[name.name for name in names]),
        )

    def record(self, event: Event) -> None:
        """Append the event to the trace and hand it to the caller's callback."""
        self.trace.events.append(event)
        self.kit.emit(event)

    def attempts(self, c_max: int, attempt: Callable[[int, Feedback | None], tuple[Event, Feedback | None]]) -> bool:
        """Up to c_max attempts of one decision (the C_max loop). Each gets its number and the feedback on
        the previous attempt (None at first), and returns its event and the feedback for the next one
        (None when its reply was valid, which ends the decision). Whether an attempt was valid."""
        feedback: Feedback | None = None
        for number in range(1, c_max + 1):
            event, feedback = attempt(number, feedback)
            self.record(event)
            if feedback is None:
                return True
        return False

    def result(
        self,
        answer: Answer,
        explanation: str = "",
        *,
        stop_reason: str | Enum,
        retrieved: Sequence[TripleRecord | Triple] = (),
        commonsense: Sequence[str] = (),
    ) -> Result:
        """The Result of the run: the answer, the trace's cited triples, whether they support the answer,
        and the usage the trace recorded."""
        trace = self.trace
        trace.stop_reason = stop_reason.value if isinstance(stop_reason, Enum) else stop_reason
        cited = [_triple_dict(triple) for triple in trace.cited_triples]
        return Result(
            strategy=trace.strategy,
            question=self.query.text,
            claim=self.query.is_claim,
            answer=answer,
            explanation=explanation,
            cited_triples=cited,
            retrieved_triples=[_triple_dict(triple) for triple in retrieved],
            commonsense=list(commonsense),
            stop_reason=trace.stop_reason,
            trace=trace,
            usage=trace.usage,
            support=answer_support(answer, self.query.text, cited, trace, self.kg),
        )


class Agent(ABC):
    """A strategy object (the Strategy protocol): one per model, KG and settings, serving many queries."""

    name: str
    model: ChatModel

    def ask(self, query: str | Query, options: RunOptions | None = None) -> Result:
        return self.start(as_query(query), RunKit(self.model, options or RunOptions())).run()

    @abstractmethod
    def start(self, query: Query, kit: RunKit) -> StrategyRun[Any]:
        """The run of one query (an ArkgError here, before any call, when the strategy cannot take it)."""


def _triple_dict(triple: TripleRecord | Triple) -> dict[str, Any]:
    return (triple.as_triple() if isinstance(triple, TripleRecord) else triple).as_dict()
