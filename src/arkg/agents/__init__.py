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

# The strategy of a run that names none. With no model named (the bundled model, each strategy with its
# tuned adapter): the one right most often on held-out KGs (docs/BENCHMARKS.md, "The default strategy").
# With any other model: ARK-V1's, the paper's agent, until measurements say otherwise.
BUNDLED_MODEL_STRATEGY = kg_agent.NAME
DEFAULT_STRATEGY = ark.NAME
DEFAULT_STRATEGIES_HELP = f"{BUNDLED_MODEL_STRATEGY} with the bundled model (no --model), {DEFAULT_STRATEGY} with any other"


def default_strategy(model: object | None, adapted_best: str | None = None) -> str:
    """The strategy of a run that names none, by the model given (a spec, a ChatModel; None: the default).
    `adapted_best`: the strategy that scored best on the KG after `arkg adapt` (arkg.llm.adapted), which
    a run with the bundled model takes."""
    if model is None:
        return adapted_best or BUNDLED_MODEL_STRATEGY
    return DEFAULT_STRATEGY


def default_abstains(model: object | None) -> bool:
    """Whether a question asked with no abstention setting answers None in place of an answer its cited
    facts do not support: with the bundled model, yes (on held-out KGs its answers are right half the time,
    its supported ones 94% of the time; docs/evaluation.md), with any other model, no (a capable model
    may know what the KG lacks)."""
    return model is None


__all__ = [
    "as_query",
    "Agent",
    "Block",
    "BUNDLED_MODEL_STRATEGY",
    "DEFAULT_STRATEGIES_HELP",
    "DEFAULT_STRATEGY",
    "Event",
    "Focus",
    "default_abstains",
    "default_strategy",
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
