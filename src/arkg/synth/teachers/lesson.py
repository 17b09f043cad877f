"""What `arkg synth` asks of a strategy it teaches: its Lesson, named by StrategyInfo.teacher.

A lesson says which cases of a chain the strategy is led on, with which settings and teachers, and
what its finished run must show to be kept; the pipeline knows no strategy by name. A teacher is a
ScriptedModel function that replies with the gold decision at each call (arkg.synth.capture).

    register(StrategyInfo(..., teacher="my_strategy.teacher:LESSON"))   # LESSON = MyLesson()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import import_module
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import REGISTRY, Result, strategy_info
from arkg.errors import ArkgError
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.synth.capture import Pair, Teacher
from arkg.synth.readings import Reading
from arkg.synth.routes import RouteStep

if TYPE_CHECKING:
    from arkg.synth.pipeline import SynthOptions

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
    reader: Callable[[Sequence[Triple]], Reading]
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


def _with_mode(settings: BaseModel, mode: SelectionMode) -> BaseModel:
    return settings.model_copy(update={"mode": mode}) if "mode" in type(settings).model_fields else settings
