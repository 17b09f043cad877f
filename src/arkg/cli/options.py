"""Options that several commands share, declared once."""

from __future__ import annotations

import math
from enum import Enum
from typing import Annotated

import typer

from arkg.agents import PROTOCOLS, REGISTRY
from arkg.cli.bounds import MAX_INT


def positive_seconds(value: float | None) -> float | None:
    """A --timeout callback: seconds above 0 (nan and inf are refused here, not by a socket later)."""
    if value is not None and not 0 < value < math.inf:
        raise typer.BadParameter(f"{value:g} is not a number of seconds above 0")
    return value


Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout", callback=positive_seconds,
        help="Seconds to wait for each model request (server backends; default: the backend's).",
    ),
]
# The shipped adapters by strategy, read from the registry: "llamacpp:tuned for ark, ...".
_TUNED = ", ".join(f"llamacpp:{info.tuned_adapter} for {info.name}" for info in REGISTRY.values() if info.tuned_adapter)
Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="The model: llamacpp:/path/model.gguf, openai:MODEL, openai:MODEL@http://HOST:PORT/v1, ... "
        f"Default: the bundled SmolLM2-135M-Instruct with the LoRA adapter tuned for the strategy ({_TUNED}), "
        "plain for strategies without one. `llamacpp`: the plain bundled model, no adapter.",
        show_default=False,
    ),
]
Retries = Annotated[
    int | None,
    typer.Option("--retries", min=0, max=MAX_INT, help="Retries of a failed model request (server backends; default: the backend's)."),
]
# The range of Sampling.temperature, checked when the options are parsed.
TEMPERATURE_RANGE = {"min": 0.0, "max": 2.0}

# The settings a run starts from: arkg's defaults, or the procedure of the strategy's paper.
ProtocolName = Enum("ProtocolName", {name.upper(): name for name in PROTOCOLS}, type=str)  # --protocol's choices
Protocol = Annotated[
    ProtocolName,
    typer.Option(
        "--protocol",
        help="arkg: the strategy's own defaults. paper: the procedure of the strategy's paper (ARK-V1, R³, KG-Agent:"
        " free generation, the paper's bounds; docs/paper-differences.md); --mode, --edges and --set still apply on top.",
    ),
]

# Abstention (arkg.agents.abstention), for any strategy.
AbstainUnsupported = Annotated[
    bool | None,
    typer.Option(
        "--abstain-unsupported/--answer-unsupported",
        "--grounded",  # its earlier name, still accepted
        help="Answer None instead of an answer its cited facts do not support (the None that ARK-V1's Table III "
        "counts), or give it marked unsupported. Default: abstain with the bundled model in ask, serve and mcp; "
        "eval records every answer with its support, and its report shows both.",
        show_default=False,
    ),
]
Samples = Annotated[
    int, typer.Option("--samples", min=1, max=MAX_INT, help="Self-consistency: run the strategy N times and need agreement (1: off).")
]
Agreement = Annotated[
    float, typer.Option("--agreement", min=0.01, max=1.0, help="Self-consistency: share of the samples an answer needs.")
]
SampleTemperature = Annotated[
    float, typer.Option("--sample-temperature", min=0.0, max=2.0, help="Self-consistency: temperature of the samples.")
]


def kg_best_strategy(model: str | None, db: str | None) -> str | None:
    """The strategy `arkg adapt` found best on the KG `db` (None: the sample KG), which a run naming no
    model and no strategy takes; None when the KG has not been adapted or a model is named."""
    from arkg.llm.adapted import adapted_default_strategy

    return adapted_default_strategy(db) if model is None else None
