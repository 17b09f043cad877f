"""KAPING (Baek et al., 2023), strategy `kaping`: retrieve, then answer in one call.

Link the entities of the question, take their 1-hop triples, keep the k most similar to the
question, show them under keys T1..Tk and ask for the answer with the keys it rests on. No
exploration: the reference point for "does exploring beat retrieving". Every cited key is checked
against the facts shown; a reply citing others gets feedback and another attempt (at most c_max).

Small models tend to cite every key they were shown. An open answer cites those of the model's keys
that lie on a chain from an entity of the question to each name it gives: machine-side, no further
call. A yes/no answer, or one that no chain of cited facts reaches, cites what the model cited, and
the support check says what is missing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from arkg.agents.answers import CitedOpen, CitedYesNo, cited_reply_for, read_answer
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.prompts import load_prompt
from arkg.agents.retrieval import RankerName, link_entities, neighbourhood, rank_facts
from arkg.agents.run import BUDGET_SPENT, Agent, RunKit, StopReason as BaseStopReason, StrategyRun
from arkg.agents.support import facts_on_chains
from arkg.agents.strategy import Answer, Query, Result
from arkg.agents.trace import Event, ModelCall, ModelEvent, Trace, TripleRecord
from arkg.agents.triple_keys import TripleKeys, fact_line
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Message

NAME = "kaping"
PROMPT = "kaping"


class KapingSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    k: int = Field(10, ge=1, description="facts shown: the k most similar to the question")
    max_entities: int = Field(5, ge=1, description="entities linked from the question")
    per_entity: int = Field(2000, ge=1, description="triples read per entity at most (hubs)")
    edges: EdgeSet = EdgeSet.OUT
    ranker: RankerName = RankerName.LEXICAL
    mode: SelectionMode = SelectionMode.CONSTRAINED
    c_max: int = Field(3, ge=1, description="answer attempts when a reply cites keys not shown (free mode)")


class StopReason(BaseStopReason):
    DONE = "done"
    C_MAX = "c_max answers cited facts that were not shown"
    BUDGET = BUDGET_SPENT


class EntitiesLinked(Event):
    kind: Literal["linked"] = "linked"
    entities: list[str]


class FactsRetrieved(Event):
    kind: Literal["facts"] = "facts"
    retrieved: int  # triples in the neighbourhood
    ranker: RankerName
    shown: list[TripleRecord]


class AnswerAttempt(ModelEvent):
    kind: Literal["answer"] = "answer"
    attempt: int
    answer: Answer
    explanation: str
    cited_keys: list[str]
    invalid_keys: list[str]
    call: ModelCall
    # Of a valid reply's keys, those the answer cites: the facts on a chain from an entity of the question
    # to the answer, or all of them where none makes one. None: the reply was not valid.
    kept_keys: list[str] | None = None

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.invalid_keys


class Stopped(Event):
    """The run ended without an accepted answer: every attempt cited facts not shown, or the budget was spent."""

    kind: Literal["stopped"] = "stopped"
    reason: str
    note: str | None = None


KapingEvent = Annotated[EntitiesLinked | FactsRetrieved | AnswerAttempt | Stopped, Field(discriminator="kind")]


class KapingTrace(Trace[KapingSettings, KapingEvent]):
    def shown_records(self) -> list[TripleRecord]:
        return [record for event in self.events if isinstance(event, FactsRetrieved) for record in event.shown]

    def linked_entities(self) -> list[str]:
        return [entity for event in self.events if isinstance(event, EntitiesLinked) for entity in event.entities]


class Kaping(Agent):
    name = NAME

    def __init__(self, kg: KnowledgeGraph, model: ChatModel, settings: KapingSettings | None = None) -> None:
        self.kg = kg
        self.model = model
        self.settings = settings or KapingSettings()

    def start(self, query: Query, kit: RunKit) -> _Run:
        return _Run(self, query, kit)


class _Run(StrategyRun[KapingTrace]):
    def __init__(self, strategy: Kaping, query: Query, kit: RunKit) -> None:
        trace = KapingTrace.begin(NAME, query, strategy.model.name, strategy.settings)
        super().__init__(query, kit, trace)
        self.kg = strategy.kg
        self.settings = strategy.settings

    def execute(self) -> Result:
        settings = self.settings
        entities = link_entities(self.kg, self.query.text, settings.max_entities)
        self.record(EntitiesLinked(entities=entities))
        facts = neighbourhood(self.kg, entities, settings.edges, settings.per_entity)
        keys = TripleKeys()
        shown = [
            TripleRecord(key=keys.key(fact.triple), **fact.triple.as_dict(), incoming=fact.incoming)
            for fact in rank_facts(facts, self.query.text, settings.k, settings.ranker)
        ]
        self.record(FactsRetrieved(retrieved=len(facts), ranker=settings.ranker, shown=shown))
        return self.answer({record.key: record for record in shown})

    def answer(self, shown: dict[str, TripleRecord]) -> Result:
        query = self.query
        prompt = load_prompt(PROMPT)
        kind = ("claim" if query.is_claim else "yes_no") if query.yes_no else "open"
        facts = "\n".join(fact_line(key, item.as_triple()) for key, item in shown.items()) or prompt.part("no_facts")
        if self.settings.mode is SelectionMode.CONSTRAINED:
            output = cited_reply_for(tuple(shown), query.yes_no)
        else:
            output = CitedYesNo if query.yes_no else CitedOpen
        system = Message(role="system", content=prompt.render(noun=query.noun))
        accepted: AnswerAttempt | None = None

        def attempt(number: int, feedback: str | None) -> tuple[AnswerAttempt, str | None]:
            nonlocal accepted
            ask = prompt.part(
                "ask",
                facts=facts,
                feedback=feedback or "",
                noun_title=query.noun.capitalize(),
                question=query.text,
                instruction=prompt.part(kind),
            )
            reply, call = self.kit.complete([system, Message(role="user", content=ask)], output, "answer", attempt=number)
            cited = list(dict.fromkeys(reply.cited_keys))
            answer = read_answer(reply.answer, query.yes_no)
            invalid = [key for key in cited if key not in shown]
            event = AnswerAttempt(
                attempt=number,
                answer=answer,
                explanation=reply.explanation.strip(),
                cited_keys=cited,
                invalid_keys=invalid,
                call=call,
                kept_keys=None if invalid else self.on_chains(answer, cited, shown),
            )
            if event.valid:
                accepted = event
                return event, None
            return event, prompt.part("invalid_keys", keys=", ".join(shown) or "none")

        if not self.attempts(self.settings.c_max, attempt) or accepted is None:
            return self.end(StopReason.C_MAX)
        self.trace.cited_triples = [shown[key] for key in accepted.kept_keys or []]
        return self.result(
            accepted.answer, accepted.explanation, stop_reason=StopReason.DONE, retrieved=self.trace.shown_records()
        )

    def on_chains(self, answer: Answer, cited: list[str], shown: dict[str, TripleRecord]) -> list[str]:
        """The cited keys whose facts make a chain from the question to the answer; all of them if none do."""
        facts = [shown[key].as_triple() for key in cited]
        chain = facts_on_chains(answer=answer, question=self.query.text, cited=facts, entities=self.trace.linked_entities())
        return [cited[index] for index in chain] or cited

    def stopped(self, reason: str) -> Result:
        return self.end(StopReason.BUDGET, note=reason)

    def end(self, reason: StopReason, note: str | None = None) -> Result:
        self.record(Stopped(reason=reason.value, note=note))
        return self.result(None, stop_reason=reason, retrieved=self.trace.shown_records())
