"""`arkg synth`: training pairs in the strategies' own prompt format, from gold reasoning chains."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.teaching import taught_strategies
from arkg.cli.bounds import ANY_INT, MAX_INT
from arkg.cli.errors import EXIT_INTERRUPTED, user_errors
from arkg.cli.tables import print_table
from arkg.errors import ArkgError
from arkg.synth import SynthOptions, Variant, colota_source, geo_source, parse_split, sample_source, synthesize
from arkg.synth.domains import DEFAULT_PER_TEMPLATE, TRAINING_DOMAINS
from arkg.synth.figures import failures_table, pairs_table, sources_table
from arkg.synth.pipeline import shared_settings
from arkg.synth.run import JOURNAL_SUFFIX, SynthReport
from arkg.synth.run import Progress as SynthProgress
from arkg.synth.sources.base import Source
from arkg.synth.sources.domains import domains_source
from arkg.synth.split import RULES, SplitRule

console = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)

STRATEGIES = taught_strategies()


def synth(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="The chat-format JSONL file to write (provenance beside it in OUT.meta.json).")],
    colota: Annotated[Path | None, typer.Option("--colota", help="A CoLoTa-format JSON file; its KG is the union of its gold triples.")] = None,
    geo_db: Annotated[Path | None, typer.Option("--geo-db", help="The geography KG (`arkg geo build`).")] = None,
    geo_questions: Annotated[Path | None, typer.Option("--geo-questions", help="Questions over it (`arkg geo questions`).")] = None,
    sample: Annotated[bool, typer.Option("--sample", help="The bundled sample KG and its questions.")] = False,
    domains: Annotated[
        int,
        typer.Option("--domains", min=0, max=len(TRAINING_DOMAINS), help=f"The first N of the {len(TRAINING_DOMAINS)} fictional training domains (docs/synth-domains.md), seeded by --seed."),
    ] = 0,
    domain_questions: Annotated[int, typer.Option("--domain-questions", min=1, max=MAX_INT, help="Questions per template and domain, with --domains.")] = DEFAULT_PER_TEMPLATE,
    split: Annotated[str, typer.Option("--split", help=f"Which questions to use: {', '.join(RULES)} (see docs/tuning.md).")] = "default",
    exclude: Annotated[Path | None, typer.Option("--exclude", help="A file of question ids (one per line) never to use.")] = None,
    seed: Annotated[int, typer.Option("--seed", **ANY_INT, help="Seed of the fact-reading variants: the same seed gives the same file.")] = 0,
    strategy: Annotated[list[str] | None, typer.Option("--strategy", "-s", help=f"Strategies to write pairs for (repeat): {', '.join(STRATEGIES)}.")] = None,
    mode: Annotated[list[SelectionMode] | None, typer.Option("--mode", help="Selection modes (repeat); default both.")] = None,
    variant: Annotated[list[Variant] | None, typer.Option("--variant", help="Gold chains, contradicting or unsettling facts (repeat); default all.")] = None,
    plan: Annotated[bool, typer.Option("--plan", help='End each ARK implication with the next step ("Next: Serbia, continent.") or "Enough to answer.".')] = False,
    retries: Annotated[bool, typer.Option("--retries", help="Also teach free-mode ARK what to do after a rejected anchor or relation: pairs whose prompt holds a wrong reply and the agent's feedback.")] = False,
    compare_values: Annotated[bool, typer.Option("--compare-values", help="ARK answer prompts show computed extremes, orderings and counts of the cited facts (ARK's compare_values setting).")] = False,
    edges: Annotated[EdgeSet, typer.Option("--edges", help="Edges ARK and KAPING explore: outgoing only (the paper), or both directions, which lets routes follow an edge into an entity (the cities of a country).")] = EdgeSet.OUT,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT, and start over an unfinished run of other settings.")] = False,
) -> None:
    """Turn gold reasoning chains into KG-Agent programs and supervised fine-tuning pairs.

    An interrupted run keeps the questions it finished (in OUT.partial): run the same command again to go on.
    """
    with user_errors():
        chosen = tuple(dict.fromkeys(strategy or STRATEGIES))
        unknown = [name for name in chosen if name not in STRATEGIES]
        if unknown:
            raise typer.BadParameter(f"{', '.join(unknown)}; choose from {', '.join(STRATEGIES)}", param_hint="'--strategy'")
        if (geo_db is None) != (geo_questions is None):
            raise ArkgError("--geo-db and --geo-questions go together: the questions are read over that KG")
        if colota is None and geo_db is None and not sample and not domains:
            raise ArkgError("no source given: use --colota FILE, --geo-db DB --geo-questions FILE, --sample, or --domains N")
        rule = parse_split(split, exclude)
        options = SynthOptions(
            strategies=chosen,
            modes=tuple(dict.fromkeys(mode or (SelectionMode.CONSTRAINED, SelectionMode.FREE))),
            variants=tuple(dict.fromkeys(variant or Variant)),
            seed=seed,
            plan=plan,
            retries=retries,
            settings=shared_settings(chosen, compare_values=compare_values, edges=edges),
        )
        with ExitStack() as stack:
            sources: list[Source] = []
            openers = _openers(colota, geo_db, geo_questions, sample)
            if domains:
                openers.append(lambda: domains_source(domains, seed, domain_questions))
            for open_source in openers:
                source = open_source()
                stack.callback(source.close)
                sources.append(source)
            report = _run(sources, out, options, rule, force, _command(ctx))
    for table in (sources_table(report), pairs_table(report), failures_table(report)):
        print_table(console, table)
    resumed = f" ({report.resumed} questions from the interrupted run)" if report.resumed else ""
    console.print(f"[green]Wrote {report.pairs:,} pairs[/green]{resumed} to {escape(str(out))}; provenance in {escape(str(report.meta))}")


def _openers(colota: Path | None, geo_db: Path | None, geo_questions: Path | None, sample: bool) -> list[Callable[[], Source]]:
    openers: list[Callable[[], Source]] = []
    if colota is not None:
        openers.append(lambda: colota_source(colota))
    if geo_db is not None and geo_questions is not None:
        openers.append(lambda: geo_source(geo_db, geo_questions))
    if sample:
        openers.append(sample_source)
    return openers


def _run(sources: list[Source], out: Path, options: SynthOptions, rule: SplitRule, force: bool, command: str) -> SynthReport:
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[pairs]:,} pairs"),
        TimeElapsedColumn(), TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, console=stderr, transient=True) as bar:
            tasks = {source.name: bar.add_task(source.name, total=None, pairs=0) for source in sources}

            def show(progress: SynthProgress) -> None:
                bar.update(tasks[progress.source], completed=progress.done, total=progress.total, pairs=progress.pairs)

            return synthesize(sources, out, options, rule, overwrite=force, progress=show, command=command)
    except KeyboardInterrupt:
        journal = out.with_name(out.name + JOURNAL_SUFFIX)
        stderr.print(
            f"[yellow]Interrupted[/yellow]: the finished questions are kept in {escape(str(journal))}; "
            "run the same command again to go on."
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _command(ctx: typer.Context) -> str:
    """The command as it could be typed again: every option that differs from its default."""
    words = ["arkg", "synth"]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if param.param_type_name != "option" or value in (None, False, [], ()) or value == param.default:
            continue
        flag = param.opts[0]
        for item in value if isinstance(value, (list, tuple)) else [value]:
            words += [flag] if item is True else [flag, str(getattr(item, "value", item))]
    return shlex.join(words)


def register(app: typer.Typer) -> None:
    """Add `arkg synth` to the main CLI."""
    app.command("synth")(synth)
