"""`arkg ask`: answer one question with a registered strategy, printing its steps as they happen."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from arkg.agents import DEFAULT_STRATEGIES_HELP, MAX_QUESTION_CHARS, REGISTRY, Budget, Query, default_abstains, default_strategy, strategy_info
from arkg.agents.abstention import Abstention
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.options import TEMPERATURE_RANGE, AbstainUnsupported, Agreement, Model, Protocol, ProtocolName, Retries, Samples, SampleTemperature, Timeout, kg_best_strategy
from arkg.cli.render import describe, footer
from arkg.cli.render.status import RunStatus, strategy_line
from arkg.cli.settings import parse_assignments, settings_overrides
from arkg.errors import ArkgError
from arkg.llm.base import Sampling
from arkg.llm.spec import adapter_hint
from arkg.paths import check_writable_file, write_atomically
from arkg.session import Session, model_label


def _askable(question: str) -> str:
    if not question.strip():
        raise typer.BadParameter("the question is empty")
    if len(question.strip()) > MAX_QUESTION_CHARS:
        raise typer.BadParameter(f"{len(question.strip()):,} characters; a question is at most {MAX_QUESTION_CHARS:,}")
    return question


def ask(
    question: Annotated[
        str,
        typer.Argument(
            callback=_askable,
            help=f"The question (or a claim to verify), at most {MAX_QUESTION_CHARS:,} characters, e.g. \"Was Marie Curie born in Warsaw?\"",
        ),
    ],
    strategy_given: Annotated[
        str | None,
        typer.Option(
            "--strategy", "-s", help=f"How to answer: {', '.join(REGISTRY)}. Default: {DEFAULT_STRATEGIES_HELP}.", show_default=False
        ),
    ] = None,
    db: Annotated[
        str | None, typer.Option("--db", help="The KG: an arkg SQLite store, a SPARQL endpoint as wikidata:URL or rdf:URL, or a Bolt server as bolt://HOST:PORT. Default: the bundled sample KG.")
    ] = None,
    model: Model = None,
    mode: Annotated[
        SelectionMode | None, typer.Option(help="free: names checked after the fact (the paper); constrained: valid picks only.")
    ] = None,
    edges: Annotated[EdgeSet | None, typer.Option(help="Explore outgoing edges only (the paper) or incoming ones too.")] = None,
    k_max: Annotated[int | None, typer.Option("--k-max", min=1, max=MAX_INT, help="Reasoning steps at most (strategies with k_max).")] = None,
    c_max: Annotated[int | None, typer.Option("--c-max", min=1, max=MAX_INT, help="Attempts per decision at most (strategies with c_max).")] = None,
    setting: Annotated[
        list[str] | None,
        typer.Option("--set", help="Any setting of the strategy as NAME=VALUE (repeat), e.g. --set max_depth=3."),
    ] = None,
    claim: Annotated[
        bool | None, typer.Option("--claim/--question", help="Read the input as a claim to verify, or as a question (default: from its wording).")
    ] = None,
    temperature: Annotated[float, typer.Option(**TEMPERATURE_RANGE, help="Sampling temperature, 0-2 (0: greedy).")] = 0.0,
    seed: Annotated[int, typer.Option(**ANY_INT, help="Sampling seed (each model call adds its number).")] = 0,
    max_calls: Annotated[int | None, typer.Option("--max-calls", min=1, max=MAX_INT, help="Run budget: model calls at most.")] = None,
    max_total_tokens: Annotated[
        int | None, typer.Option("--max-total-tokens", min=1, max=MAX_INT, help="Run budget: prompt + completion tokens at most.")
    ] = None,
    timeout: Timeout = None,
    retries: Retries = None,
    protocol: Protocol = ProtocolName.ARKG,
    abstain_unsupported: AbstainUnsupported = None,
    samples: Samples = 1,
    agreement: Agreement = 0.6,
    sample_temperature: SampleTemperature = 0.7,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result (with its trace) as JSON only.")] = False,
    trace: Annotated[Path | None, typer.Option("--trace", help="Also write the result and trace as JSON to this file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model; skip the response cache.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print the strategy's own summary lines (ARK's node path).")] = False,
) -> None:
    """Answer QUESTION over a knowledge graph; every factual step cites the KG's triples."""
    console = Console()
    with user_errors():
        adapted_best = kg_best_strategy(model, db)
        strategy = strategy_given or default_strategy(model, adapted_best)
        query = Query(text=question, claim=claim)
        info = strategy_info(strategy)
        flags: dict[str, Any] = {"mode": mode, "edges": edges, "k_max": k_max, "c_max": c_max}
        overrides = settings_overrides(strategy, flags, parse_assignments(setting or []), protocol.value)
        if trace is not None:
            check_writable_file(trace, "trace file")
        sampling = Sampling(temperature=temperature, seed=seed, max_tokens=info.max_tokens)
        budget = Budget(max_calls=max_calls, max_tokens=max_total_tokens)
        abstention = Abstention(abstain_unsupported=default_abstains(model) if abstain_unsupported is None else abstain_unsupported, samples=samples, agreement=agreement, temperature=sample_temperature)
        if (hint := adapter_hint(model, strategy, info.tuned_adapter)) is not None:
            Console(stderr=True).print(f"note: {hint}", style="yellow", highlight=False)
        with nullcontext() if as_json else console.status("Opening the knowledge graph"):
            session = Session(db, model, cache=not no_cache, timeout=timeout, retries=retries)
        live = RunStatus(strategy)

        def on_event(event: Any) -> None:
            live.progress.add(event)
            console.print(describe(event, info.view))

        try:
            with session:
                with nullcontext() if as_json else console.status("Loading the model"):
                    answering = model_label(session.model_for(strategy).name)
                if not as_json:
                    console.print(f"model: {answering}", highlight=False)
                    console.print(strategy_line(strategy, defaulted=strategy_given is None, adapted=adapted_best is not None), highlight=False)
                with nullcontext() if as_json else console.status(live):
                    result = session.ask(
                        query,
                        strategy,
                        overrides,
                        sampling=sampling,
                        budget=budget,
                        on_event=None if as_json else on_event,
                        abstention=abstention,
                    )
        except KeyboardInterrupt:
            Console(stderr=True).print("[yellow]Interrupted.[/yellow] No answer was produced.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        if trace is not None:
            try:
                write_atomically(trace, result.model_dump_json(indent=2))
            except OSError as error:
                raise ArkgError(f"cannot write trace file {trace}: {error.strerror or error}") from None
    if as_json:
        typer.echo(json.dumps({**result.model_dump(mode="json"), "model": answering}, indent=2, ensure_ascii=False))
        return
    console.print(footer(result, verbose=verbose))


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)
