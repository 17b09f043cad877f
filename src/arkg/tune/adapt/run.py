"""`arkg adapt`: the bundled model tuned for one KG, in one call.

    result = adapt("my.db", AdaptOptions(time_budget_s=3600))
    result.record.best_strategy          # what `arkg ask --db my.db` now uses when no strategy is named

Stages, each kept in the KG's adapt folder (arkg.llm.adapted) under `stages/` as soon as it is done, so
that a run stopped (Ctrl-C, `stop`) or killed goes on where it was when called again:

1. questions: `arkg questions` over the KG, split by anchor entity into train and test;
2. pairs: each strategy's training pairs from the train questions, and a replayed share of the shipped
   adapters' training domains, mixed evenly over the decisions they teach;
3. before: each strategy with its shipped adapter on the first test questions;
4. tuning: from the shipped adapter (tune's checkpoints resume it); it ends early, exporting what it has,
   when the time budget would not leave room for the evaluation after it;
5. after: each strategy with its new adapter on the same test questions;
6. the adapters, their sidecars, `adapted.json` and `report.md` go into the folder. An adapter that
   scored lower than the shipped one is kept but not used.
"""

from __future__ import annotations

import gc
import json
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from arkg.agents import BUNDLED_MODEL_STRATEGY, strategy_info
from arkg.agents.teaching import SynthOptions, taught_strategies
from arkg.data import sample_graph_path, tuned_adapter_path
from arkg.datasets.geo.questions import read_questions
from arkg.errors import ArkgError
from arkg.eval.results import read_results
from arkg.eval.runner import RunSummary, run_evaluation
from arkg.eval.setup import plan_evaluation
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.adapted import ADAPTER_PREFIX, RECORD_FILE, AdaptedRecord, AdaptedStrategy, BaseModelFile, Score, adapted_folder
from arkg.llm.bundled import bundled_model_path
from arkg.llm.file_digest import file_sha256
from arkg.llm.spec import default_model_spec
from arkg.paths import write_atomically
from arkg.synth.domains import TRAINING_DOMAINS
from arkg.synth.kg_questions.files import write_kg_questions
from arkg.synth.run import synthesize
from arkg.synth.sources.domains import domains_source
from arkg.synth.sources.geo import geo_source
from arkg.synth.split import parse_split
from arkg.tables import Table, markdown_table
from arkg.tune.adapt.mix import write_mix
from arkg.tune.adapt.options import AdaptOptions
from arkg.tune.options import TuneOptions
from arkg.tune.run import tune
from arkg.tune.train import StepProgress

WORK = "stages"
KG_SOURCE = "kg"  # the name of the KG's own questions in the pairs (the replayed ones are "domains")
PLAN_FILE = "plan.json"
CLOCK_FILE = "clock.json"
DONE_FILE = "done"  # written once the adapters are installed: a run of other options may then start over
REPORT_FILE = "report.md"
# Questions per template and invented domain for the replayed pairs: a few hundred questions, several
# thousand pairs, enough to draw any replay share from.
REPLAY_PER_TEMPLATE = 4
# Seconds kept back for installing the adapters after the last evaluation.
INSTALL_S = 30.0


@dataclass(frozen=True)
class AdaptProgress:
    """Where a run stands: its stage (sampling, questions, pairs, replay pairs, before, tuning, after), the strategy it is on,
    the stage's progress, and the time spent of the budget (earlier sessions included)."""

    stage: str
    strategy: str | None
    done: int
    total: int | None
    spent_s: float
    budget_s: float


@dataclass(frozen=True)
class AdaptResult:
    finished: bool  # False: stopped on request; the same call goes on from where it stopped
    folder: Path
    record: AdaptedRecord | None
    report: Path | None


class AdaptError(ArkgError):
    """A KG, folder or option that adapt cannot work with, said with what to do."""


def adapt(
    db: str | Path | None,
    options: AdaptOptions = AdaptOptions(),
    *,
    command: str = "",
    restart: bool = False,
    threads: int | None = None,
    micro_batch_size: int | None = None,
    stop: threading.Event | None = None,
    on_progress: Callable[[AdaptProgress], None] = lambda progress: None,
) -> AdaptResult:
    """Adapt the bundled model to the KG `db` (a SQLite store; None or "sample": the sample KG).

    threads and micro_batch_size go to tuning (arkg.tune.tune): they change its speed and memory, not
    its steps, so a run may resume with others."""
    stop = stop or threading.Event()
    unknown = [name for name in options.strategies if name not in taught_strategies()]
    if unknown or not options.strategies:
        raise AdaptError(f"cannot adapt {', '.join(unknown) or 'no strategy'}: choose from {', '.join(taught_strategies())}")
    folder = adapted_folder(db)
    work = folder / WORK
    store = _claim(db, folder, work, options, restart)
    clock = _Clock(work / CLOCK_FILE)

    def report(stage: str, strategy: str | None, done: int, total: int | None) -> None:
        clock.save_now_and_then()
        on_progress(AdaptProgress(stage, strategy, done, total, clock.spent(), options.time_budget_s))

    questions = work / "questions.jsonl"
    if not questions.is_file():
        write_kg_questions(
            str(store), questions, limit=options.questions, seed=options.seed, test_share=options.test_share,
            progress=lambda phase, done, total: report("sampling" if phase == "sampling" else "questions", None, done, total),
        )
    mixes = {name: _mix(store, questions, work / name, options, name, report) for name in options.strategies}
    if stop.is_set():
        return _unfinished(folder, clock)

    before: dict[str, Score] = {}
    for name in options.strategies:
        shipped = strategy_info(name).tuned_adapter
        score = _evaluate(store, questions, name, default_model_spec(shipped), work / name / "before.jsonl", options, stop, report, "before")
        if score is None:
            return _unfinished(folder, clock)
        before[name] = score

    adapters: dict[str, tuple[Path, Path, int]] = {}
    for index, name in enumerate(options.strategies):
        tuned = _tune(mixes[name], work / name, name, options, clock, index, threads, micro_batch_size, stop, report)
        if tuned is None:
            return _unfinished(folder, clock)
        adapters[name] = tuned

    after: dict[str, Score] = {}
    for name in options.strategies:
        score = _evaluate(store, questions, name, f"llamacpp:+{adapters[name][0]}", work / name / "after.jsonl", options, stop, report, "after")
        if score is None:
            return _unfinished(folder, clock)
        after[name] = score

    record = _install(db, folder, adapters, before, after, questions, options, command, clock)
    report_file = folder / REPORT_FILE
    write_atomically(report_file, "\n".join(markdown_table(adapt_table(record), "# ")))
    return AdaptResult(True, folder, record, report_file)


def adapt_table(record: AdaptedRecord) -> Table:
    """The before/after table of a finished run."""
    rows = [
        [
            name,
            str(outcome.before),
            str(outcome.after),
            str(outcome.steps),
            ("used" if outcome.used else "not used: lower than the shipped adapter") + (" (the default strategy)" if name == record.best_strategy else ""),
        ]
        for name, outcome in record.strategies.items()
    ]
    return Table(
        f"{record.kg}: the KG's test questions, right before and after adapting",
        ["strategy", "shipped adapter", "adapted", "steps", "adapter"],
        rows,
        f"{record.test_questions} test questions per strategy, of {record.questions} made from the KG; no training question names their anchors.",
    )


def _claim(db: str | Path | None, folder: Path, work: Path, options: AdaptOptions, restart: bool) -> Path:
    """Make `work` this run's folder (new, one started with the same KG and options, or a finished one,
    which a run of another KG or other options replaces) and return the SQLite store the run reads: the
    KG itself, or the sample KG written into the folder."""
    spec = "sample" if db is None else str(db)
    stats = None
    if spec != "sample":
        path = Path(spec)
        if not path.is_file():
            what = "a remote store" if ":" in spec else "no such file"
            raise AdaptError(f"{spec}: {what}; arkg adapt reads a SQLite store (`arkg kg load FILE --db STORE`) or the sample KG")
        # Not an arkg store: refused here, by the store's own message. Its size tells a KG loaded since.
        with closing(SQLiteGraph(path, create=False, read_only=True)) as graph:
            stats = graph.stats()
    identity = {
        "kg": spec if spec == "sample" else str(Path(spec).resolve()),
        "kg_size": None if stats is None else {"triples": stats.triples, "entities": stats.entities},
        "options": options.identity(),
    }
    plan = work / PLAN_FILE
    earlier = json.loads(plan.read_text(encoding="utf-8")) if plan.is_file() else None
    if earlier is not None and (restart or (earlier != identity and (work / DONE_FILE).is_file())):
        shutil.rmtree(work)
        earlier = None
    if earlier is None:
        work.mkdir(parents=True, exist_ok=True)
        write_atomically(plan, json.dumps(identity, indent=2) + "\n")
    elif earlier != identity:
        changed = [key for key, value in identity["options"].items() if earlier.get("options", {}).get(key) != value]
        if earlier.get("kg_size") != identity["kg_size"]:
            changed.append("KG contents")
        raise AdaptError(
            f"{work} holds an unfinished adapt run with other {', '.join(changed) or 'KG'}; "
            "run it with the same options to go on, or add --restart to start over"
        )
    if spec != "sample":
        return Path(spec)
    store = work / "kg.db"
    if not store.is_file():
        partial = work / "kg.db.partial"
        partial.unlink(missing_ok=True)
        with closing(SQLiteGraph(partial)) as graph:
            graph.load(sample_graph_path())
        partial.rename(store)
    return store


def _mix(store: Path, questions: Path, work: Path, options: AdaptOptions, name: str, report: Callable[..., None]) -> Path:
    work.mkdir(exist_ok=True)
    mix = work / "mix.jsonl"
    if mix.is_file():
        return mix
    synth = SynthOptions(strategies=(name,), seed=options.seed, plan=True, retries=True)
    own = work / "pairs.jsonl"
    if not own.is_file():
        with closing(geo_source(store, questions, KG_SOURCE)) as source:
            synthesize([source], own, synth, parse_split("train"), progress=lambda p: report("pairs", name, p.done, p.total))
    replay = None
    if options.replay_share > 0:
        replay = work / "replay.jsonl"
        if not replay.is_file():
            with closing(domains_source(len(TRAINING_DOMAINS), options.seed, REPLAY_PER_TEMPLATE)) as source:
                synthesize([source], replay, synth, parse_split("default"), progress=lambda p: report("replay pairs", name, p.done, p.total))
    mine, replayed = write_mix(own, replay, mix, pairs=options.pairs, replay_share=options.replay_share, seed=options.seed)
    if not mine:
        mix.unlink()
        raise AdaptError(f"no training pair could be made for {name} from the KG's questions ({own}); the KG may be too small")
    return mix


def _evaluate(
    store: Path, questions: Path, strategy: str, spec: str, out: Path, options: AdaptOptions,
    stop: threading.Event, report: Callable[..., None], stage: str,
) -> Score | None:
    """The strategy's score with the model `spec` on the first test questions (None: stopped)."""
    plan = plan_evaluation(questions, strategy, spec, db=str(store), limit=options.test_questions, seed=options.seed)
    try:
        def progress(summary: RunSummary) -> None:
            report(stage, strategy, summary.skipped + summary.done, summary.skipped + summary.total)

        summary = run_evaluation(plan.questions, plan.setup, plan.config, out, resume=out.is_file(), stop=stop, on_progress=progress)
    finally:
        plan.close()
    if summary.stopped is not None or stop.is_set():
        return None
    records = read_results(out).records
    return Score(right=sum(record.correct for record in records), questions=len(records))


def _tune(
    mix: Path, work: Path, name: str, options: AdaptOptions, clock: _Clock,
    index: int, threads: int | None, micro_batch_size: int | None, stop: threading.Event, report: Callable[..., None],
) -> tuple[Path, Path, int] | None:
    """Tune the strategy's adapter; returns its file, sidecar and steps (None: stopped)."""
    out = work / "tune"
    adapter, sidecar = out / "adapter.gguf", out / "adapter.json"
    if not sidecar.is_file():
        # The evaluations still to come take about as long as those before did.
        evaluations = sum(_elapsed(work.parent / other / "before.jsonl") for other in options.strategies)
        left = options.time_budget_s - clock.spent() - evaluations - INSTALL_S
        end_at = clock.spent() + max(0.0, left) / (len(options.strategies) - index)
        shipped = strategy_info(name).tuned_adapter
        result = tune(
            mix, out,
            TuneOptions(
                max_steps=options.steps, learning_rate=options.learning_rate, batch_size=options.batch_size,
                warmup_steps=5, decision_weight=5.0, max_tokens=1024, save_every=10, seed=options.seed,
            ),
            from_adapter=tuned_adapter_path(shipped) if shipped is not None else None,
            command=f"arkg adapt (tuning {name})",
            threads=threads,
            micro_batch_size=micro_batch_size,
            should_stop=stop.is_set,
            end_now=lambda: clock.spent() >= end_at,
            on_progress=lambda step: _tuning_progress(report, name, step),
        )
        # The trainer's model and optimizer hold reference cycles: free them before the next strategy's.
        gc.collect()
        if not result.finished:
            return None
    steps = json.loads(sidecar.read_text(encoding="utf-8"))["steps"]
    return adapter, sidecar, int(steps)


def _tuning_progress(report: Callable[..., None], name: str, step: StepProgress) -> None:
    report("tuning", name, step.step, step.total_steps)


def _elapsed(results: Path) -> float:
    return sum(record.elapsed_s for record in read_results(results).records) if results.is_file() else 0.0


def _install(
    db: str | Path | None, folder: Path, adapters: dict[str, tuple[Path, Path, int]], before: dict[str, Score],
    after: dict[str, Score], questions: Path, options: AdaptOptions, command: str, clock: _Clock,
) -> AdaptedRecord:
    """Copy the adapters into the folder and write the record that runs read (last, so that a record
    always names adapters that are in place)."""
    outcomes = {}
    for name, (adapter, sidecar, steps) in adapters.items():
        installed = f"{ADAPTER_PREFIX}{name}.gguf"
        _copy(adapter, folder / installed)
        _copy(sidecar, folder / f"{ADAPTER_PREFIX}{name}.json")
        outcomes[name] = AdaptedStrategy(adapter=installed, before=before[name], after=after[name], used=after[name].right >= before[name].right, steps=steps)

    def scored(name: str) -> tuple[int, bool]:
        outcome = outcomes[name]
        return (outcome.after if outcome.used else outcome.before).right, name == BUNDLED_MODEL_STRATEGY

    base = bundled_model_path()
    made = read_questions(questions)
    test = sum(question.split == "test" for question in made)
    record = AdaptedRecord(
        kg="sample" if db is None else str(db),
        base_model=BaseModelFile(file=base.name, bytes=base.stat().st_size, sha256=file_sha256(base)),
        questions=len(made),
        test_questions=min(options.test_questions, test),
        strategies=outcomes,
        best_strategy=max(outcomes, key=scored),
        command=command,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        elapsed_s=round(clock.spent(), 1),
    )
    write_atomically(folder / RECORD_FILE, record.model_dump_json(indent=2) + "\n")
    clock.save()
    (folder / WORK / DONE_FILE).touch()
    return record


def _copy(source: Path, target: Path) -> None:
    partial = target.with_name(f".{target.name}.partial")
    shutil.copyfile(source, partial)
    partial.replace(target)


def _unfinished(folder: Path, clock: _Clock) -> AdaptResult:
    clock.save()
    return AdaptResult(False, folder, None, None)


class _Clock:
    """Wall time spent on the run, earlier sessions included (kept in a file, saved every few seconds)."""

    SAVE_EVERY_S = 5.0

    def __init__(self, path: Path) -> None:
        self.path = path
        self.earlier = json.loads(path.read_text(encoding="utf-8"))["spent_s"] if path.is_file() else 0.0
        self.started = time.monotonic()
        self.saved_at = self.started

    def spent(self) -> float:
        return self.earlier + time.monotonic() - self.started

    def save(self) -> None:
        write_atomically(self.path, json.dumps({"spent_s": round(self.spent(), 1)}) + "\n")
        self.saved_at = time.monotonic()

    def save_now_and_then(self) -> None:
        if time.monotonic() - self.saved_at >= self.SAVE_EVERY_S:
            self.save()
