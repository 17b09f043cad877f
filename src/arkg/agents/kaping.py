"""KAPING (Baek et al., 2023), strategy `kaping`: retrieve, then answer in one call.

Link the entities of the question, take their 1-hop triples, keep the k most similar to the
question, show them under keys T1..Tk and ask for the answer with the keys it rests on. No
exploration: the reference point for "does exploring beat retrieving". Every cited key is checked
against the facts shown; a reply citing others gets feedback and another attempt (at most c_max).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from arkg.agents.answers import CitedOpen, CitedYesNo, cited_reply_for, read_answer
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.prompts import load_prompt
from arkg.agents.retrieval import RankerName, link_entities, neighbourhood, rank_facts
from arkg.agents.run import RunKit, RunOptions, RunStopped
from arkg.agents.strategy import Answer, Query, Result, StrategyInfo, as_query, register
from arkg.agents.trace import ModelCall, TripleRecord, total_usage
from arkg.agents.triple_keys import TripleKeys, fact_line
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Message, Usage

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


class EntitiesLinked(BaseModel):
    kind: Literal["linked"] = "linked"
    entities: list[str]


class FactsRetrieved(BaseModel):
    kind: Literal["facts"] = "facts"
    retrieved: int  # triples in the neighbourhood
    ranker: RankerName
    shown: list[TripleRecord]


class AnswerAttempt(BaseModel):
    kind: Literal["answer"] = "answer"
    attempt: int
    answer: Answer
    explanation: str
    cited_keys: list[str]
    invalid_keys: list[str]
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.invalid_keys


class Stopped(BaseModel):
    kind: Literal["stopped"] = "stopped"
    reason: str


Event = Annotated[EntitiesLinked | FactsRetrieved | AnswerAttempt | Stopped, Field(discriminator="kind")]


class KapingTrace(BaseModel):
    question: str
    yes_no: bool
    claim: bool = False
    model: str
    settings: KapingSettings
    events: list[Event] = []
    cited_triples: list[TripleRecord] = []

    @property
    def calls(self) -> list[ModelCall]:
        return [event.call for event in self.events if isinstance(event, AnswerAttempt)]

    @computed_field
    @property
    def usage(self) -> Usage:
        return total_usage(self.calls)


class Kaping:
    name = NAME

    def __init__(self, kg: KnowledgeGraph, model: ChatModel, settings: KapingSettings | None = None) -> None:
        self.kg = kg
        self.model = model
        self.settings = settings or KapingSettings()

    def ask(self, query: str | Query, options: RunOptions | None = None) -> Result:
        run = _Run(self, as_query(query), RunKit(self.model, options or RunOptions()))
        return RunKit.finish(run.execute, run.stopped)


class _Run:
    def __init__(self, strategy: Kaping, query: Query, kit: RunKit) -> None:
        self.kg = strategy.kg
        self.settings = strategy.settings
        self.query = query
        self.kit = kit
        self.trace = KapingTrace(
            question=query.text,
            yes_no=query.yes_no,
            claim=query.is_claim,
            model=strategy.model.name,
            settings=self.settings,
        )

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
        feedback = ""
        for attempt in range(1, self.settings.c_max + 1):
            ask = prompt.part(
                "ask",
                facts=facts,
                feedback=feedback,
                noun_title=query.noun.capitalize(),
                question=query.text,
                instruction=prompt.part(kind),
            )
            reply, call = self.kit.complete([system, Message(role="user", content=ask)], output, "answer", attempt=attempt)
            cited = list(dict.fromkeys(reply.cited_keys))
            invalid = [key for key in cited if key not in shown]
            value = read_answer(reply.answer, query.yes_no)
            explanation = reply.explanation.strip()
            self.record(
                AnswerAttempt(
                    attempt=attempt,
                    answer=value,
                    explanation=explanation,
                    cited_keys=cited,
                    invalid_keys=invalid,
                    call=call,
                )
            )
            if not invalid:
                self.trace.cited_triples = [shown[key] for key in cited]
                return self.result(value, explanation, "done")
            feedback = prompt.part("invalid_keys", keys=", ".join(shown) or "none")
        return self.stopped(RunStopped(f"c_max={self.settings.c_max} answers cited facts that were not shown"))

    def stopped(self, stop: RunStopped) -> Result:
        self.record(Stopped(reason=stop.reason))
        return self.result(None, "", stop.reason)

    def shown(self) -> list[TripleRecord]:
        return [record for event in self.trace.events if isinstance(event, FactsRetrieved) for record in event.shown]

    def record(self, event: BaseModel) -> None:
        self.trace.events.append(event)
        self.kit.emit(event)

    def result(self, answer: Answer, explanation: str, stop_reason: str) -> Result:
        return Result(
            strategy=NAME,
            question=self.query.text,
            claim=self.query.is_claim,
            answer=answer,
            explanation=explanation,
            cited_triples=[record.as_triple().as_dict() for record in self.trace.cited_triples],
            retrieved_triples=[record.as_triple().as_dict() for record in self.shown()],
            stop_reason=stop_reason,
            trace=self.trace,
            usage=self.kit.usage,
        )


register(
    StrategyInfo(
        name=NAME,
        summary="KAPING: retrieve the question entities' facts most similar to it, answer in one call citing them",
        settings=KapingSettings,
        build=lambda model, kg, settings: Kaping(kg, model, settings),
        max_tokens=256,
    )
)
