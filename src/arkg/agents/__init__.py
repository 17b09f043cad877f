"""Strategies that answer questions over a knowledge graph, and the framework they share.

Importing this package registers the built-in strategies; `REGISTRY` (arkg.agents.strategy) lists
them by name. Each lives in its own module or folder with its prompts beside it.
"""

from __future__ import annotations

from arkg.agents import ark, cot, kaping, kg_agent, r3  # noqa: F401  (registers the built-in strategies)
from arkg.agents.run import Budget, RunKit, RunOptions, RunStopped
from arkg.agents.strategy import (
    as_query,
    REGISTRY,
    Answer,
    AnswerKind,
    Query,
    Result,
    Strategy,
    StrategyInfo,
    build_strategy,
    register,
    strategy_info,
    strategy_names,
    strategy_settings,
)

__all__ = [
    "as_query",
    "REGISTRY",
    "Answer",
    "AnswerKind",
    "Budget",
    "Query",
    "Result",
    "RunKit",
    "RunOptions",
    "RunStopped",
    "Strategy",
    "StrategyInfo",
    "build_strategy",
    "register",
    "strategy_info",
    "strategy_names",
    "strategy_settings",
]
