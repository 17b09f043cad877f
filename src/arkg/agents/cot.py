"""Chain-of-thought baselines without a knowledge graph (CoLoTa's zero-shot and few-shot CoT).

The model writes its reasoning, then answers True, False or None (or, for an open question, a short
answer), from its own knowledge only: the reference point that shows what the KG adds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.prompts import load_prompt
from arkg.agents.run import RunKit, RunOptions, RunStopped
from arkg.agents.strategy import Query, Result, StrategyInfo, as_query, register
from arkg.agents.trace import ModelCall
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


class CotTrace(BaseModel):
    question: str
    messages: list[Message]
    call: ModelCall | None = None
    stop_reason: str = "done"

    @property
    def calls(self) -> list[ModelCall]:
        return [self.call] if self.call is not None else []


class ChainOfThought:
    """Strategy `cot` (zero-shot) or `cot-fewshot` (with worked examples in the system prompt)."""

    def __init__(self, model: ChatModel, settings: CotSettings | None = None) -> None:
        self.model = model
        self.settings = settings or CotSettings()
        self.name = FEW_SHOT if self.settings.few_shot else ZERO_SHOT

    def ask(self, query: str | Query, options: RunOptions | None = None) -> Result:
        query = as_query(query)
        prompt = load_prompt(PROMPT)
        examples = prompt.part("examples") if self.settings.few_shot else ""
        kind = "yes_no" if query.yes_no else "open"
        messages = [
            Message(role="system", content=prompt.render(examples=examples, instruction=prompt.part(kind))),
            Message(role="user", content=prompt.part(query.noun, question=query.text)),
        ]
        trace = CotTrace(question=query.text, messages=messages)
        kit = RunKit(self.model, options or RunOptions())

        def answer() -> Result:
            reply, trace.call = kit.complete(messages, CotReply if query.yes_no else CotOpenReply, "answer")
            value = _ANSWERS[reply.answer] if query.yes_no else (None if reply.answer.strip() in ("", "None") else reply.answer.strip())
            return self._result(query, value, reply.reasoning, trace, kit)

        def stopped(stop: RunStopped) -> Result:
            trace.stop_reason = stop.reason
            return self._result(query, None, "", trace, kit)

        return kit.finish(answer, stopped)

    def _result(self, query: Query, answer: bool | str | None, explanation: str, trace: CotTrace, kit: RunKit) -> Result:
        return Result(
            strategy=self.name,
            question=query.text,
            claim=query.is_claim,
            answer=answer,
            explanation=explanation,
            stop_reason=trace.stop_reason,
            trace=trace,
            usage=kit.usage,
        )


for _name, _settings, _summary in (
    (ZERO_SHOT, CotSettings, "chain of thought without the KG: the model reasons from its own knowledge"),
    (FEW_SHOT, FewShotCotSettings, "chain of thought without the KG, with four worked examples"),
):
    register(
        StrategyInfo(
            name=_name,
            summary=_summary,
            settings=_settings,
            build=lambda model, kg, settings: ChainOfThought(model, settings),
            uses_kg=False,
            max_tokens=256,
        )
    )
