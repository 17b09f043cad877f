"""What synthesis asks of a strategy it teaches, and what it gives the strategy's teacher.

A strategy names its Lesson in its registration (StrategyInfo.teacher). A lesson says which cases of
a chain the strategy is led on, with which settings and teachers, and what its finished run must show
to be kept; the pipeline knows no strategy by name. A teacher is a ScriptedModel function that
replies with the gold decision at each call, run as the strategy's model; a case it cannot lead
raises NotFollowed with a Reason.

The contract sits here, beside the strategies, so that a teacher (agents/<name>/teacher.py) needs
nothing of the synthesis package: synthesis builds the cases and readers and imports this module,
never the other way round.

    register(StrategyInfo(..., teacher="my_strategy.teacher:LESSON"))   # LESSON = MyLesson()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from importlib import import_module
from typing import Any, Protocol

from pydantic import BaseModel

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import REGISTRY, Result, strategy_info, strategy_settings
from arkg.errors import ArkgError
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.llm.base import Message, OutputSpec, Sampling
from arkg.llm.scripted import Reply
from arkg.text import one_line

# True / False for yes/no questions; a number (count questions); entity names or literal values.
GoldAnswer = bool | int | tuple[str, ...]


class Reason(str, Enum):
    """Why a question (or one of its products) could not be used. The value is the report's wording."""

    NOT_LOADED = "entry not usable"
    NO_FACTS = "no fact stated in the reasoning steps"
    UNPARSED_FACT = "a stated fact does not parse"
    UNGROUNDED = "a stated fact matches no KG triple"
    DISCONNECTED = "a fact is not reachable from the question's entities"
    ONE_VALUE = "commonsense about a value is needed"
    INCOMPARABLE = "the values do not compare"
    ARITHMETIC = "arithmetic over several values is needed"
    JUDGE_DISAGREES = "the judge over the chain's values gives the other answer"
    NOT_REPRODUCED = "the program does not reproduce the gold answer"
    NO_CONTRADICTION = "no replaced tail changes the answer"
    NOT_FOLLOWED = "the strategy cannot be led along the chain"
    NO_LABEL = "the facts shown leave the answer open to doubt"


class NotFollowed(Exception):
    """The strategy could not be led along the gold chain (or its facts give no label)."""

    def __init__(self, reason: Reason, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(detail)


# -- what a teacher is and makes -------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    messages: tuple[Message, ...]  # the prompt, exactly as the strategy built it
    reply: str  # the text a model must emit: the option of a Choice, or the JSON
    decision: str  # what the call decided ("anchor", "relation", "reasoning", "answer", ...)


class Teacher(Protocol):
    decisions: list[str]  # the kind of each call answered so far

    def __call__(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply: ...

    def observe(self, event: Any) -> None:
        """The strategy's events as they happen (what it retrieved and showed)."""
        ...


# -- what a teacher is given -----------------------------------------------------------------------


class NoLabel(Exception):
    """The shown facts neither settle the answer nor clearly leave it open."""


@dataclass(frozen=True)
class Reading:
    """What a set of shown facts settles: the gold label of a reply that answers from them."""

    answer: GoldAnswer | None  # None: the facts do not settle it
    explanation: str
    cited: tuple[Triple, ...]  # the shown facts the answer rests on
    # Whether an argmax / argmin decided the answer: ARK's computed lines then name the extreme too.
    picked: bool = False


# Reads the facts a strategy showed into a Reading, or raises NoLabel (synthesis's readers implement it).
Reader = Callable[[Sequence[Triple]], Reading]


@dataclass(frozen=True)
class RouteStep:
    """One gold (anchor, relation) step of a route, with the facts to cite (synthesis makes routes of them)."""

    anchor: str
    relation: str
    direction: Direction
    triples: tuple[Triple, ...]  # the gold facts this step reads (to cite)
    implication: str

    @property
    def label(self) -> str:
        """The relation as ARK offers it: `r`, or `r (incoming)`."""
        return self.relation if self.direction == Direction.OUT else f"{self.relation} (incoming)"


# -- the words of a reply --------------------------------------------------------------------------


def fit(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """One line of at most `limit` characters, cut at a word with an ellipsis when longer."""
    text = " ".join(one_line(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return f"{cut}…"


def answer_text(answer: GoldAnswer | None, yes_no: bool) -> str:
    """The answer field of a reply: yes / no / unknown, or a short open answer ("unknown" when unsettled)."""
    if answer is None:
        return "unknown"
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if yes_no:
        raise ValueError(f"a yes/no question cannot be answered with {answer!r}")
    return str(answer) if isinstance(answer, int) else ", ".join(answer)


def reply_answer(reading: Reading, yes_no: bool) -> str:
    """The answer field a reply must hold for the reading; NotFollowed when no reply schema can hold it."""
    try:
        text = answer_text(reading.answer, yes_no)
    except ValueError as error:
        raise NotFollowed(Reason.NOT_FOLLOWED, str(error)) from None
    if len(text) > MAX_TEXT_CHARS:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the answer has {len(text)} characters, more than a reply may hold ({MAX_TEXT_CHARS})")
    return text


# -- lessons ---------------------------------------------------------------------------------------

ANY_MODE = "any"  # a pair whose prompt and reply are the same in every mode
RETRY = "-retry"  # suffix of the decision of a gold reply that follows a deliberate mistake (kept by a `retries` run)


class Variant(str, Enum):
    GOLD = "gold"
    CONTRADICTING = "contradicting"
    UNSETTLED = "unsettled"


class Unsettled(str, Enum):
    """How an `unsettled` case leaves the question open."""

    SHORT_ROUTE = "short route"  # the route stops one step before the answer
    NO_EVIDENCE = "no evidence"  # the KG lacks the facts the answer rests on


@dataclass(frozen=True)
class Case:
    """One KG for the strategies to read, the route to lead along, and how to read the answer."""

    variant: Variant
    kg: KnowledgeGraph
    route: list[RouteStep]
    reader: Reader
    yes_no: bool
    decisions: frozenset[str] | None = None  # the decisions kept (None: all)
    lines: tuple[str, ...] = ()  # the gold program, when the chain has one
    unsettled: Unsettled | None = None


@dataclass(frozen=True)
class Led:
    """One run of a strategy on a case: its mode label, settings and teacher; `retries`: keep only the
    gold replies that follow a deliberate mistake."""

    mode: str
    settings: BaseModel
    teacher: Callable[[], Teacher]
    retries: bool = False


class Lesson:
    """How one strategy is taught. By default it takes every case but unsettled ones, is led once per
    selection mode, and its run must end on the taught answer."""

    per_mode = True  # False: led once, its pairs the same in every mode (ANY_MODE)
    answer_taught = True  # whether the run's last pair is an answer its result must read as taught

    def takes(self, case: Case) -> bool:
        return case.variant is not Variant.UNSETTLED

    def teacher(self, case: Case, options: SynthOptions) -> Teacher:
        raise NotImplementedError

    def runs(self, case: Case, settings: BaseModel, options: SynthOptions) -> Iterator[Led]:
        if not self.per_mode:
            yield Led(ANY_MODE, settings, lambda: self.teacher(case, options))
            return
        for mode in options.modes:
            yield Led(mode.value, _with_mode(settings, mode), lambda: self.teacher(case, options))

    def before(self, case: Case, settings: BaseModel) -> None:
        """Raise NotFollowed when the strategy cannot take the case with these settings."""

    def after(self, result: Result, pairs: list[Pair]) -> None:
        """Raise NotFollowed when the run did not end as led."""


def lesson_of(strategy: str) -> Lesson:
    """The lesson the strategy registered (StrategyInfo.teacher); an error names a strategy without one."""
    reference = strategy_info(strategy).teacher
    if reference is None:
        raise ArkgError(f"strategy {strategy!r} has no synthesis teacher; taught strategies: {', '.join(taught_strategies())}")
    module, _, attribute = reference.partition(":")
    lesson: Any = getattr(import_module(module), attribute)
    if not isinstance(lesson, Lesson):
        raise ArkgError(f"strategy {strategy!r}: its teacher {reference} is a {type(lesson).__name__}, not a Lesson")
    return lesson


def taught_strategies() -> tuple[str, ...]:
    return tuple(name for name, info in REGISTRY.items() if info.teacher is not None)


@dataclass(frozen=True)
class SynthOptions:
    """How synthesis makes pairs; a lesson reads the modes, and its teachers `plan` and `retries`."""

    strategies: tuple[str, ...] = field(default_factory=taught_strategies)
    modes: tuple[SelectionMode, ...] = (SelectionMode.CONSTRAINED, SelectionMode.FREE)
    variants: tuple[Variant, ...] = tuple(Variant)
    seed: int = 0
    # ARK implications end with the route's next step ("Next: Serbia, continent.") or "Enough to answer."
    plan: bool = False
    # Free-mode ARK also led through a deliberate wrong anchor or relation per step, keeping the gold
    # replies that follow the rejection ("anchor-retry", "relation-retry"), on gold routes.
    retries: bool = False
    # Setting overrides by strategy name (see `shared_settings` of synthesis's pipeline); a strategy
    # not named runs on its defaults.
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def settings_of(self, strategy: str) -> BaseModel:
        return strategy_settings(strategy, self.settings.get(strategy))


def _with_mode(settings: BaseModel, mode: SelectionMode) -> BaseModel:
    return settings.model_copy(update={"mode": mode}) if "mode" in type(settings).model_fields else settings
