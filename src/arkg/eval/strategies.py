"""The strategies an evaluation can run, by name, and the settings recorded for each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arkg.agents.ark import Agent
from arkg.agents.ark_settings import ArkSettings, EdgeSet, QuestionKind, SelectionMode
from arkg.agents.cot import FEW_SHOT, ZERO_SHOT, ChainOfThought
from arkg.errors import ArkgError
from arkg.eval.runner import StrategyFactory
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Sampling

ARK = "ark"
STRATEGY_NAMES = (ARK, ZERO_SHOT, FEW_SHOT)
# Chain of thought needs room for its reasoning; ARK's decisions are short.
DEFAULT_MAX_TOKENS = {ARK: ArkSettings().sampling.max_tokens, ZERO_SHOT: 256, FEW_SHOT: 256}


@dataclass(frozen=True)
class StrategyChoice:
    factory: StrategyFactory
    # Recorded in the results file: a resumed run must use the same.
    settings: dict[str, Any]


def choose_strategy(
    name: str,
    model: ChatModel,
    kg: KnowledgeGraph | None,
    mode: SelectionMode = SelectionMode.CONSTRAINED,
    edges: EdgeSet = EdgeSet.OUT,
) -> StrategyChoice:
    """The factory for strategy `name` (one of STRATEGY_NAMES); CoLoTa questions are all yes/no."""
    if name == ARK:
        if kg is None:
            raise ArkgError("strategy 'ark' needs a knowledge graph")
        base = ArkSettings(mode=mode, edges=edges, question_kind=QuestionKind.YES_NO)

        def make_ark(sampling: Sampling) -> Agent:
            return Agent(kg, model, base.model_copy(update={"sampling": sampling}))

        return StrategyChoice(make_ark, base.model_dump(mode="json", exclude={"sampling"}))
    if name in (ZERO_SHOT, FEW_SHOT):
        few_shot = name == FEW_SHOT
        return StrategyChoice(
            lambda sampling: ChainOfThought(model, few_shot=few_shot, sampling=sampling), {}
        )
    raise ArkgError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGY_NAMES)}")
