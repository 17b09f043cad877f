"""What every strategy returns, and the one method the evaluation runner calls."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from arkg.llm.base import Usage

# True / False / None for yes/no questions (None: the strategy could not settle it);
# free text for other questions.
Answer = bool | str | None


class Result(BaseModel):
    strategy: str
    question: str
    answer: Answer
    explanation: str = ""
    # Triples the answer rests on, as {"head", "relation", "tail", "props"} dicts.
    cited_triples: list[dict[str, Any]] = Field(default_factory=list)
    # The strategy's typed trace, exported with `model_dump(mode="json")`.
    trace: Any = None
    usage: Usage = Field(default_factory=Usage)


@runtime_checkable
class Strategy(Protocol):
    name: str

    def ask(self, question: str) -> Result: ...
