"""Chain-of-thought baselines without a knowledge graph (CoLoTa's zero-shot and few-shot CoT).

The model writes its reasoning, then answers True, False or None, from its own knowledge only:
the reference point that shows what the KG adds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from arkg.agents.base import Result
from arkg.agents.prompts import load_prompt
from arkg.llm.base import ChatModel, Message, Sampling

ZERO_SHOT = "cot"
FEW_SHOT = "cot-fewshot"
PROMPT = "cot_answer"

_ANSWERS = {"True": True, "False": False, "None": None}


class CotReply(BaseModel):
    """What the model returns; reasoning comes first so that the answer can follow from it."""

    # Bounded so that the JSON closes within a small token budget.
    reasoning: str = Field(max_length=600, description="step-by-step reasoning")
    answer: Literal["True", "False", "None"]


class CotTrace(BaseModel):
    messages: list[Message]
    raw: str


class ChainOfThought:
    """Strategy `cot` (zero-shot) or `cot-fewshot` (with worked examples in the system prompt)."""

    def __init__(self, model: ChatModel, few_shot: bool = False, sampling: Sampling = Sampling(max_tokens=256)) -> None:
        self.model = model
        self.few_shot = few_shot
        self.sampling = sampling
        self.name = FEW_SHOT if few_shot else ZERO_SHOT

    def ask(self, question: str) -> Result:
        prompt = load_prompt(PROMPT)
        examples = prompt.part("examples") if self.few_shot else ""
        messages = [
            Message(role="system", content=prompt.render(examples=examples)),
            Message(role="user", content=prompt.part("question", question=question)),
        ]
        completion = self.model.complete(messages, CotReply, self.sampling)
        reply: CotReply = completion.value
        return Result(
            strategy=self.name,
            question=question,
            answer=_ANSWERS[reply.answer],
            explanation=reply.reasoning,
            trace=CotTrace(messages=messages, raw=completion.raw),
            usage=completion.usage,
        )
