"""Strategies that answer questions over a knowledge graph, and the framework they share.

Importing this package registers the built-in strategies; `REGISTRY` (arkg.agents.strategy) lists
them by name. Each lives in its own module or folder with its prompts beside it.
"""

from __future__ import annotations

from arkg.agents import ark, cot, kaping, kg_agent, r3  # noqa: F401  (registers the built-in strategies)
from arkg.agents.run import Agent, Budget, RunKit, RunOptions, RunStopped, StopReason, StrategyRun
from arkg.agents.strategy import (
    as_query,
    PLUGIN_GROUP,
    PROTOCOLS,
    REGISTRY,
    PaperProtocol,
    follows_protocol,
    protocol_settings,
    Answer,
    AnswerKind,
    MAX_QUESTION_CHARS,
    Query,
    Result,
    Strategy,
    StrategyInfo,
    build_strategy,
    register,
    strategy_info,
    strategy_names,
    read_trace,
    strategy_settings,
)
from arkg.agents.trace import Event, ModelCall, ModelEvent, Trace, TripleRecord
from arkg.agents.view import Block, Focus, View

# What `arkg ask`, `arkg serve` and the Python API use when no strategy is named.
DEFAULT_STRATEGY = ark.NAME

__all__ = [
    "as_query",
    "Agent",
    "Block",
    "DEFAULT_STRATEGY",
    "Event",
    "Focus",
    "ModelCall",
    "ModelEvent",
    "PLUGIN_GROUP",
    "PROTOCOLS",
    "PaperProtocol",
    "REGISTRY",
    "follows_protocol",
    "protocol_settings",
    "StopReason",
    "StrategyRun",
    "Trace",
    "TripleRecord",
    "View",
    "read_trace",
    "Answer",
    "AnswerKind",
    "Budget",
    "MAX_QUESTION_CHARS",
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
