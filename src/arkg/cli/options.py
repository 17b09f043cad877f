"""Options that several commands share, declared once."""

from __future__ import annotations

from typing import Annotated

import typer


def _positive_seconds(value: float | None) -> float | None:
    if value is not None and value <= 0:
        raise typer.BadParameter(f"{value:g} is not a number of seconds above 0")
    return value


Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout", callback=_positive_seconds,
        help="Seconds to wait for each model request (server backends; default: the backend's).",
    ),
]
Retries = Annotated[
    int | None,
    typer.Option("--retries", min=0, help="Retries of a failed model request (server backends; default: the backend's)."),
]
# The range of Sampling.temperature, checked when the options are parsed.
TEMPERATURE_RANGE = {"min": 0.0, "max": 2.0}
