"""Run a strategy over questions x runs, appending each finished answer to a results file at once.

Run r samples with seed `config.seed + r`: stochastic runs differ from each other, and the same
command reproduces them. `resume=True` skips every (question, run) already in the file (a failed one
is retried) after checking that the file was written with the same config.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arkg.agents import AnswerKind, Query, RunOptions, Strategy
from arkg.errors import ArkgError
from arkg.eval.colota import Question
from arkg.eval.results import Record, ResultsFile, ResultsWriter, RunConfig, config_differences, read_results
from arkg.llm.base import Sampling, Usage

@dataclass(frozen=True)
class Task:
    question: Question
    run: int
    seed: int


@dataclass
class RunSummary:
    skipped: int
    done: int = 0
    correct: int = 0
    failed: int = 0
    usage: Usage = field(default_factory=Usage)
    interrupted: bool = False

    @property
    def running_accuracy(self) -> float | None:
        return self.correct / self.done if self.done else None


def plan_tasks(questions: Sequence[Question], runs: int, seed: int) -> list[Task]:
    """Run-major order, so that an interrupted stochastic evaluation leaves whole runs behind."""
    return [Task(question, run, seed + run) for run in range(runs) for question in questions]


def run_evaluation(
    questions: Sequence[Question],
    strategy: Strategy,
    config: RunConfig,
    out: Path,
    *,
    runs: int = 1,
    concurrency: int = 1,
    resume: bool = False,
    show_progress: bool = True,
) -> RunSummary:
    """Answer every (question, run) not yet in `out`; Ctrl-C stops cleanly, keeping finished work."""
    if runs < 1 or concurrency < 1:
        raise ArkgError(f"runs and concurrency must be at least 1 (got runs={runs}, concurrency={concurrency})")
    previous = _previous_results(out, config, resume)
    done = {key for key, record in previous.latest().items() if record.error is None} if previous else set()
    tasks = [task for task in plan_tasks(questions, runs, config.seed) if (task.question.id, task.run) not in done]
    summary = RunSummary(skipped=runs * len(questions) - len(tasks))
    with ResultsWriter(out, config, previous) as writer, _progress(show_progress) as progress:
        bar = progress.add_task(f"{config.strategy} · {config.model}", total=len(tasks), status="")

        def finish(record: Record) -> None:
            writer.append(record)
            summary.done += 1
            summary.correct += record.correct
            summary.failed += record.error is not None
            summary.usage += record.usage
            progress.update(bar, advance=1, status=_status(summary))

        _execute(tasks, lambda task: _answer(task, strategy, config), finish, concurrency, summary)
    return summary


def check_output(out: Path, resume: bool) -> None:
    """Refuse to overwrite an existing results file unless resuming it (cheap: call before loading a model)."""
    if out.exists() and not resume:
        raise ArkgError(f"{out} already exists: pass --resume to continue it, or choose another output file")


def _previous_results(out: Path, config: RunConfig, resume: bool) -> ResultsFile | None:
    check_output(out, resume)
    if not out.exists():
        return None
    previous = read_results(out)
    differences = config_differences(previous.config, config)
    if differences:
        raise ArkgError(f"{out} was written by a different evaluation; cannot resume it:\n  " + "\n  ".join(differences))
    return previous


def _execute(
    tasks: Iterable[Task],
    answer: Callable[[Task], Record],
    finish: Callable[[Record], None],
    concurrency: int,
    summary: RunSummary,
) -> None:
    """Records are written from this thread as tasks finish; Ctrl-C cancels what has not started."""
    pending: set[Future[Record]] = set()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        try:
            # Keep only `concurrency` tasks submitted, so an interrupt leaves nothing queued.
            for task in tasks:
                pending.add(pool.submit(answer, task))
                if len(pending) >= concurrency:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        finish(future.result())
            for future in list(pending):
                finish(future.result())
                pending.discard(future)
        except KeyboardInterrupt:
            summary.interrupted = True
            # Questions already in flight are finished and kept; a second Ctrl-C abandons them.
            for future in pending:
                if not future.cancel() and future.exception() is None:
                    finish(future.result())


def _answer(task: Task, strategy: Strategy, config: RunConfig) -> Record:
    sampling = Sampling(temperature=config.temperature, seed=task.seed, max_tokens=config.max_tokens)
    question = task.question
    # Every CoLoTa entry, question or claim, is answered True / False / None.
    query = Query(text=question.text, kind=AnswerKind.YES_NO, claim=question.claim)
    started = time.perf_counter()
    try:
        result = strategy.ask(query, RunOptions(sampling=sampling))
        answer, explanation, usage, error = result.answer, result.explanation, result.usage, None
        trace = result.model_dump(mode="json")["trace"]
    except ArkgError as failure:
        answer, explanation, usage, error, trace = None, "", Usage(), f"{type(failure).__name__}: {failure}", None
    return Record(
        question_id=question.id,
        run=task.run,
        seed=task.seed,
        strategy=config.strategy,
        model=config.model,
        settings=config.settings,
        answer=answer,
        gold=question.answer,
        correct=answer == question.answer,
        reasoning_strategies=list(question.strategies),
        explanation=explanation,
        usage=usage,
        elapsed_s=round(time.perf_counter() - started, 3),
        error=error,
        trace=trace,
    )


def _status(summary: RunSummary) -> str:
    accuracy = summary.running_accuracy
    shown = "n/a" if accuracy is None else f"{accuracy:.1%}"
    failed = f" · {summary.failed} failed" if summary.failed else ""
    return f"acc {shown} · {summary.usage.total_tokens:,} tokens{failed}"


def _progress(enabled: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        disable=not enabled,
    )
