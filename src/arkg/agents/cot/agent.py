"""Chain-of-thought baselines without a knowledge graph (CoLoTa's zero-shot and few-shot CoT).

The model writes its reasoning, then answers True, False or None (or, for an open question, a short
answer), from its own knowledge only: the reference point that shows what the KG adds.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.prompts import load_prompt
from arkg.agents.run import BUDGET_SPENT, Agent, RunKit, StopReason as BaseStopReason, StrategyRun
from arkg.agents.strategy import Answer, Query, Result
from arkg.agents.trace import Event, ModelEvent, Trace
from arkg.llm.base import ChatModel, Message

ZERO_SHOT = "cot"
FEW_SHOT = "cot-fewshot"
PROMPT = "cot_answer"

_ANSWERS = {"True": True, "False": False, "None": None}


class CotReply(BaseModel):
    """What the model returns; reasoning comes first so that the answer can follow from it."""

    # Bounded so that the JSON closes within a small token budget.
    reasoning: str = Field(max_length=600, description="step-by-step reasoning")
    answer: Literal["True", "False", "None"]


class CotOpenReply(BaseModel):
    reasoning: str = Field(max_length=600, description="step-by-step reasoning")
    answer: str = Field(max_length=200, description='a short answer, or "None" if unknown')


class CotSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    few_shot: bool = Field(False, description="show worked examples in the system prompt")


class FewShotCotSettings(CotSettings):
    few_shot: bool = True


class StopReason(BaseStopReason):
    DONE = "done"
    BUDGET = BUDGET_SPENT


class Reasoned(ModelEvent):
    """The model's one call: its reasoning and the answer read from it."""

    kind: Literal["reasoned"] = "reasoned"
    reasoning: str
    answer: Answer


class Stopped(Event):
    """The budget ended the run before the model was asked."""

    kind: Literal["stopped"] = "stopped"
    reason: str
    note: str | None = None


CotEvent = Annotated[Reasoned | Stopped, Field(discriminator="kind")]


class CotTrace(Trace[CotSettings, CotEvent]):
    messages: list[Message] = []


class ChainOfThought(Agent):
    """Strategy `cot` (zero-shot) or `cot-fewshot` (with worked examples in the system prompt)."""

    def __init__(self, model: ChatModel, settings: CotSettings | None = None) -> None:
        self.model = model
        self.settings = settings or CotSettings()
        self.name = FEW_SHOT if self.settings.few_shot else ZERO_SHOT

    def start(self, query: Query, kit: RunKit) -> _Run:
        return _Run(self, query, kit)


class _Run(StrategyRun[CotTrace]):
    def __init__(self, strategy: ChainOfThought, query: Query, kit: RunKit) -> None:
        prompt = load_prompt(PROMPT)
        examples = prompt.part("examples") if strategy.settings.few_shot else ""
        instruction = prompt.part("yes_no" if query.yes_no else "open")
        messages = [
            Message(role="system", content=prompt.render(examples=examples, instruction=instruction)),
            Message(role="user", content=prompt.part(query.noun, question=query.text)),
        ]
        trace = CotTrace.begin(strategy.name, query, strategy.model.name, strategy.settings, messages=messages)
        super().__init__(query, kit, trace)

    def execute(self) -> Result:
        yes_no = self.query.yes_no
        reply, call = self.kit.complete(self.trace.messages, CotReply if yes_no else CotOpenReply, "answer")
        text = reply.answer.strip()
        answer = _ANSWERS[reply.answer] if yes_no else (None if text in ("", "None") else text)
        self.record(Reasoned(reasoning=reply.reasoning, answer=answer, call=call))
        return self.result(answer, reply.reasoning, stop_reason=StopReason.DONE)

    def stopped(self, reason: str) -> Result:
        self.record(Stopped(reason=StopReason.BUDGET.value, note=reason))
        return self.result(None, stop_reason=StopReason.BUDGET)
