"""`arkg ask`: answer one question with the ARK agent, printing its steps as they happen."""

from __future__ import annotations

import os
import tempfile
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arkg.agents.ark import Agent
from arkg.agents.ark_render import describe, footer
from arkg.agents.ark_settings import ArkSettings, EdgeSet, SelectionMode
from arkg.cli.errors import user_errors
from arkg.cli.options import TEMPERATURE_RANGE, Retries, Timeout
from arkg.errors import ArkgError
from arkg.graph import open_graph
from arkg.llm.spec import open_model
from arkg.paths import check_writable_file

DEFAULTS = ArkSettings()


def _not_blank(question: str) -> str:
    if not question.strip():
        raise typer.BadParameter("the question is empty")
    return question


def ask(
    question: Annotated[
        str, typer.Argument(callback=_not_blank, help="The question, e.g. \"Was Marie Curie born in Warsaw?\"")
    ],
    db: Annotated[
        str | None, typer.Option("--db", help="The KG: an arkg SQLite store, or a SPARQL endpoint as wikidata:URL or rdf:URL. Default: the bundled sample KG.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="The model: llamacpp:/path/model.gguf, openai:MODEL, openai:MODEL@http://HOST:PORT/v1. "
            "Default: the bundled SmolLM2-135M.",
        ),
    ] = None,
    mode: Annotated[
        SelectionMode, typer.Option(help="free: names checked after the fact (the paper); constrained: valid picks only.")
    ] = DEFAULTS.mode,
    edges: Annotated[
        EdgeSet, typer.Option(help="Explore outgoing edges only (the paper) or incoming ones too.")
    ] = DEFAULTS.edges,
    k_max: Annotated[int, typer.Option("--k-max", min=1, help="Reasoning steps at most.")] = DEFAULTS.k_max,
    c_max: Annotated[int, typer.Option("--c-max", min=1, help="Attempts per decision at most.")] = DEFAULTS.c_max,
    temperature: Annotated[
        float, typer.Option(**TEMPERATURE_RANGE, help="Sampling temperature, 0-2 (0: greedy).")
    ] = DEFAULTS.sampling.temperature,
    seed: Annotated[int | None, typer.Option(help="Sampling seed (each model call adds its number).")] = (
        DEFAULTS.sampling.seed
    ),
    as_json: Annotated[bool, typer.Option("--json", help="Print the result (with its trace) as JSON only.")] = False,
    trace: Annotated[Path | None, typer.Option("--trace", help="Also write the trace as JSON to this file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model; skip the response cache.")] = False,
    timeout: Timeout = None,
    retries: Retries = None,
) -> None:
    """Answer QUESTION over a knowledge graph; every factual step cites the KG's triples."""
    console = Console()
    settings = ArkSettings(
        mode=mode,
        edges=edges,
        k_max=k_max,
        c_max=c_max,
        sampling=DEFAULTS.sampling.model_copy(update={"temperature": temperature, "seed": seed}),
    )
    with user_errors():
        if trace is not None:
            check_writable_file(trace, "trace file")
        with nullcontext() if as_json else console.status("Opening the knowledge graph and the model"):
            kg = open_graph(db)
            chat_model = open_model(model, cache=not no_cache, timeout=timeout, retries=retries)
        on_event = None if as_json else (lambda event: console.print(describe(event)))
        try:
            result = Agent(kg, chat_model, settings, on_event=on_event).ask(question)
        except KeyboardInterrupt:
            Console(stderr=True).print("[yellow]Interrupted.[/yellow] No answer was produced.")
            raise typer.Exit(130) from None
        finally:
            kg.close()
        if trace is not None:
            _write_atomically(trace, result.trace.model_dump_json(indent=2))
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    console.print(footer(result.trace))


def _write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder, so a failed write leaves neither a half file nor the temporary one."""
    temporary: Path | None = None
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as file:
            temporary = Path(file.name)
            file.write(text)
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        raise ArkgError(f"cannot write trace file {path}: {error.strerror or error}") from None


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)
