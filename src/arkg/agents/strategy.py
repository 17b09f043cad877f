"""What every strategy takes and returns, and the one registry that every caller reads.

A strategy answers a `Query` (a question or a claim) and returns a `Result`. It is registered once,
with its name, its typed settings and a constructor; `arkg ask`, `arkg eval`, reports and the Python
API all find it by name:

    register(StrategyInfo(name="echo", summary="...", settings=EchoSettings, build=make_echo, uses_kg=False))
    strategy = build_strategy("echo", model, kg=None, settings={"loud": True})
    result = strategy.ask("Is the sky blue?", RunOptions(sampling=Sampling(temperature=0.7, seed=3)))

Sampling, budget and the event callback come with each call (`RunOptions`), so one strategy object
serves a whole evaluation run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field, field_validator

from arkg.agents.question import is_claim, is_yes_no_question
from arkg.errors import ArkgError
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Usage

# True / False / None for yes/no questions and claims (None: the strategy could not settle it);
# free text for other questions.
Answer = bool | str | None
Basis = Literal["kg", "commonsense", "kg+commonsense", "neither", "no answer"]


class AnswerKind(str, Enum):
    AUTO = "auto"  # decided from the wording
    YES_NO = "yes_no"  # True / False / None
    OPEN = "open"  # free text


class Query(BaseModel):
    """What a strategy is asked: a question, or a claim to verify (answered True / False / None alike)."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    kind: AnswerKind = AnswerKind.AUTO
    claim: bool | None = None  # None: decided from the wording

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("the question is empty")
        return text.strip()

    @property
    def is_claim(self) -> bool:
        return is_claim(self.text) if self.claim is None else self.claim

    @property
    def yes_no(self) -> bool:
        if self.kind is not AnswerKind.AUTO:
            return self.kind is AnswerKind.YES_NO
        return self.is_claim or is_yes_no_question(self.text)

    @property
    def noun(self) -> str:
        """How prompts name the input: "claim" or "question"."""
        return "claim" if self.is_claim else "question"


def as_query(query: str | Query) -> Query:
    """A Query from a plain string (or the Query itself); an empty string is an error."""
    if isinstance(query, Query):
        return query
    try:
        return Query(text=query)
    except ValidationError:
        raise ArkgError("The question is empty: ask something, e.g. \"Was Marie Curie born in Warsaw?\"") from None


class Result(BaseModel):
    strategy: str
    question: str
    claim: bool = False
    answer: Answer
    explanation: str = ""
    # Triples the answer rests on, as {"head", "relation", "tail", "props"} dicts.
    cited_triples: list[dict[str, Any]] = Field(default_factory=list)
    # Every distinct triple the strategy showed the model on the way (the cited ones among them).
    retrieved_triples: list[dict[str, Any]] = Field(default_factory=list)
    # Commonsense the answer rests on, stated as rules (R³'s axioms); empty where none was stated.
    commonsense: list[str] = Field(default_factory=list)
    # Why the strategy stopped (its own wording; "the run budget was spent" when the budget ended it).
    stop_reason: str = "done"
    # The strategy's typed trace, exported with `model_dump(mode="json")`.
    trace: Any = None
    usage: Usage = Field(default_factory=Usage)

    @computed_field
    @property
    def basis(self) -> Basis:
        """What the answer rests on: cited KG facts, stated commonsense, both, or neither."""
        if self.answer is None:
            return "no answer"
        facts, rules = bool(self.cited_triples), bool(self.commonsense)
        return "kg+commonsense" if facts and rules else "kg" if facts else "commonsense" if rules else "neither"


@runtime_checkable
class Strategy(Protocol):
    name: str

    def ask(self, query: str | Query, options: Any = None) -> Result:
        """Answer one query; `options` is an arkg.agents.run.RunOptions (None: defaults)."""
        ...


# Builds a strategy from the model, the KG (None for strategies that use none) and its settings.
Builder = Callable[[ChatModel, KnowledgeGraph | None, Any], Strategy]


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    summary: str  # one line, shown in --help and listings
    settings: type[BaseModel]
    build: Builder
    uses_kg: bool = True
    max_tokens: int = 256  # default token budget of one model call


REGISTRY: dict[str, StrategyInfo] = {}


def register(info: StrategyInfo, *, replace: bool = False) -> StrategyInfo:
    """Add a strategy to the registry (an existing name is an error unless `replace`)."""
    if info.name in REGISTRY and not replace:
        raise ArkgError(f"a strategy named {info.name!r} is registered already")
    REGISTRY[info.name] = info
    return info


def strategy_names() -> list[str]:
    return list(REGISTRY)


def strategy_info(name: str) -> StrategyInfo:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ArkgError(f"unknown strategy {name!r}; choose one of: {', '.join(REGISTRY)}") from None


def strategy_settings(name: str, values: BaseModel | Mapping[str, Any] | None = None) -> BaseModel:
    """The strategy's typed settings from overrides; an unknown or invalid one is an error naming it."""
    info = strategy_info(name)
    if isinstance(values, info.settings):
        return values
    data = values.model_dump() if isinstance(values, BaseModel) else dict(values or {})
    unknown = sorted(set(data) - set(info.settings.model_fields))
    if unknown:
        known = ", ".join(info.settings.model_fields)
        raise ArkgError(f"strategy {name!r} has no setting {', '.join(map(repr, unknown))}; its settings: {known}")
    try:
        return info.settings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ArkgError(f"strategy {name!r}: invalid setting ({problems})") from None


def build_strategy(
    name: str,
    model: ChatModel,
    kg: KnowledgeGraph | None = None,
    settings: BaseModel | Mapping[str, Any] | None = None,
) -> Strategy:
    """The registered strategy `name`, built over the model and KG with these settings."""
    info = strategy_info(name)
    if info.uses_kg and kg is None:
        raise ArkgError(f"strategy {name!r} needs a knowledge graph")
    return info.build(model, kg, strategy_settings(name, settings))
