"""Run a strategy over questions x runs, appending each finished answer to a results file at once.

Run r samples with seed `config.seed + r`: stochastic runs differ from each other, and the same
command reproduces them. `resume=True` skips every (question, run) already in the file (a failed one
is retried) after checking that the file was written with the same config.

Stopping: once `stop` is requested (Ctrl-C, or `max_unavailable` questions in a row could not reach
the model server) no new question starts, and questions in flight end at their next model call
(strategies check `stop` before every model call); those are not recorded, finished ones are.
Progress is reported through `on_progress`; this module draws nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from pydantic import BaseModel

from arkg.agents import AnswerKind, Query, Result, RunOptions, RunStopped, Strategy
from arkg.errors import ArkgError, ModelUnavailable
from arkg.eval.dataset import Question
from arkg.eval.scoring import is_correct
from arkg.eval.evidence import assess_evidence
from arkg.eval.grounding import check_grounding
from arkg.eval.question_graphs import Perturbation, QuestionSetup
from arkg.graph.model import KnowledgeGraph
from arkg.eval.results import Record, ResultsWriter, RunConfig
from arkg.llm.base import Sampling, Usage
from arkg.text import one_line

# Questions in a row that could not reach the model server before a run stops: the server is down.
DEFAULT_MAX_UNAVAILABLE = 3


@dataclass(frozen=True)
class Task:
    question: Question
    run: int
    seed: int


class StopReason(str, Enum):
    INTERRUPTED = "interrupted"
    SERVER_DOWN = "server down"


@dataclass
class RunSummary:
    """Where a run stands; a copy is passed to the progress callback at the start and after each question."""

    # (question, run) pairs this call set out to answer, and those already answered in the file.
    total: int
    skipped: int
    done: int = 0
    # Answers that had a gold answer to be scored against (a batch of questions has none), and the right ones.
    scored: int = 0
    correct: int = 0
    failed: int = 0
    # Questions in flight when the run was stopped: not recorded, answered again on resume.
    cut_short: int = 0
    usage: Usage = field(default_factory=Usage)
    elapsed_s: float = 0.0
    stopped: StopReason | None = None
    # The last connection error when stopped because the server is down.
    unavailable_error: str | None = None

    @property
    def running_accuracy(self) -> float | None:
        return self.correct / self.scored if self.scored else None

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the pace so far (None before the first answer)."""
        if not self.done:
            return None
        return self.elapsed_s / self.done * max(0, self.total - self.done - self.cut_short)


ProgressCallback = Callable[[RunSummary], None]


@dataclass(frozen=True)
class _Outcome:
    record: Record
    # The model's server could not be reached (ModelUnavailable), as opposed to any other failure.
    unavailable: bool


def plan_tasks(questions: Sequence[Question], runs: int, seed: int) -> list[Task]:
    """Run-major order, so that an interrupted stochastic evaluation leaves whole runs behind."""
    return [Task(question, run, seed + run) for run in range(runs) for question in questions]


def run_evaluation(
    questions: Sequence[Question],
    strategy: Strategy | QuestionSetup,
    config: RunConfig,
    out: Path,
    *,
    runs: int = 1,
    concurrency: int = 1,
    resume: bool = False,
    on_progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
    max_unavailable: int = DEFAULT_MAX_UNAVAILABLE,
    kg: KnowledgeGraph | None = None,
) -> RunSummary:
    """Answer every (question, run) not yet in `out`; finished work is kept whatever stops the run.

    max_unavailable: stop after this many questions in a row failed with ModelUnavailable (0: never).
    strategy: one strategy for every question, or a QuestionSetup that gives each question the
    strategy over its own KG (per-question graphs, snapshots, perturbations).
    kg: the KG a single strategy runs on; each record then says whether the cited triples are in it,
    and which gold triples it lacks.
    """
    if runs < 1 or concurrency < 1 or max_unavailable < 0:
        raise ArkgError(
            f"runs and concurrency must be at least 1 and max_unavailable at least 0 "
            f"(got runs={runs}, concurrency={concurrency}, max_unavailable={max_unavailable})"
        )
    if not questions:
        raise ArkgError("no questions to evaluate")
    stop = stop or threading.Event()
    setup = strategy if isinstance(strategy, QuestionSetup) else QuestionSetup(lambda _: strategy, shared=kg)
    started = time.monotonic()
    with ResultsWriter(out, config, resume=resume) as writer, _removed_if_unanswered(writer):
        previous = writer.previous
        done = {key for key, record in previous.latest().items() if record.error is None} if previous else set()
        tasks = [task for task in plan_tasks(questions, runs, config.seed) if (task.question.id, task.run) not in done]
        summary = RunSummary(total=len(tasks), skipped=runs * len(questions) - len(tasks))
        unavailable_in_a_row = 0

        def report() -> None:
            summary.elapsed_s = time.monotonic() - started
            if on_progress is not None:
                on_progress(replace(summary))

        def finish(outcome: _Outcome) -> None:
            nonlocal unavailable_in_a_row
            record = outcome.record
            try:
                writer.append(record)
            except ValueError as failure:  # a text no file holds (a lone surrogate in the answer): the question fails
                record = _unwritable(record, failure)
                writer.append(record)
            summary.done += 1
            summary.scored += record.gold is not None
            summary.correct += record.correct
            summary.failed += record.error is not None
            summary.usage += record.usage
            unavailable_in_a_row = unavailable_in_a_row + 1 if outcome.unavailable else 0
            if max_unavailable and unavailable_in_a_row >= max_unavailable and summary.stopped is None:
                summary.stopped = StopReason.SERVER_DOWN
                summary.unavailable_error = record.error
                stop.set()
            report()

        report()
        _execute(tasks, lambda task: _answer(task, setup, config, stop), finish, concurrency, stop, summary)
        if stop.is_set() and summary.stopped is None and summary.done < summary.total:
            summary.stopped = StopReason.INTERRUPTED
        report()
    return summary


@contextmanager
def _removed_if_unanswered(writer: ResultsWriter) -> Iterator[None]:
    """A run that fails before its first answer removes the file it created: left behind, it would
    block a rerun ("already exists"; and --resume refuses it once the data set is fixed, as the data
    set's hash changes). A resumed file, or one with answers, is kept."""
    try:
        yield
    except Exception:
        if writer.previous is None and writer.path.read_bytes().count(b"\n") <= 1:  # the header line alone
            writer.path.unlink(missing_ok=True)
        raise


def _unwritable(record: Record, failure: ValueError) -> Record:
    """The record of a question whose answer no file can hold, in place of that answer."""
    error = one_line(f"internal error (the answer could not be written: {failure})")
    return record.model_copy(
        update={
            "answer": None, "correct": False, "explanation": "", "error": error, "stop_reason": None,
            "cited_triples": [], "evidence": None, "grounding": None, "trace": None,
        }
    )  # fmt: skip


def _execute(
    tasks: Iterable[Task],
    answer: Callable[[Task], _Outcome],
    finish: Callable[[_Outcome], None],
    concurrency: int,
    stop: threading.Event,
    summary: RunSummary,
) -> None:
    """Records are written from this thread as tasks finish; at most `concurrency` tasks are submitted,
    so a stop leaves nothing queued."""
    queue = iter(tasks)
    pending: set[Future[_Outcome]] = set()
    pool = ThreadPoolExecutor(max_workers=concurrency)
    try:
        while True:
            while len(pending) < concurrency and not stop.is_set() and (task := next(queue, None)) is not None:
                pending.add(pool.submit(answer, task))
            if not pending:
                break
            try:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                # Ctrl-C reaches here when the caller installed no handler of its own: the first one
                # stops the run like a requested stop, a second abandons the questions in flight.
                if stop.is_set():
                    raise
                stop.set()
                continue
            for future in finished:
                try:
                    outcome = future.result()
                except (RunStopped, KeyboardInterrupt):
                    stop.set()
                    summary.cut_short += 1
                    continue
                finish(outcome)
    except BaseException:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _answer(task: Task, setup: QuestionSetup, config: RunConfig, stop: threading.Event) -> _Outcome:
    """The question's record; whatever fails in it (its KG, its query, the checks of its answer) fails
    this question alone, in its record, and the run goes on."""
    started = time.perf_counter()
    # The events so far are all that is left of a question that ends in an error: kept as its trace.
    events: list[Any] = []
    try:
        return _answered(task, setup, config, stop, started, events)
    except RunStopped:
        raise
    except ArkgError as failure:
        return _Outcome(_failed(task, config, f"{type(failure).__name__}: {failure}", started, events), False)
    except Exception as failure:  # a bug: this question's record says so, and the others still run
        return _Outcome(_failed(task, config, _internal_error(failure), started, events), False)


def _answered(
    task: Task, setup: QuestionSetup, config: RunConfig, stop: threading.Event, started: float, events: list[Any]
) -> _Outcome:
    sampling = Sampling(temperature=config.temperature, seed=task.seed, max_tokens=config.max_tokens)
    question = task.question
    # The gold answer says what kind of answer is asked for: yes/no (also for claims) or open; without
    # one the strategy tells it from the question.
    kind = AnswerKind.AUTO if question.answer is None else AnswerKind.YES_NO if question.yes_no else AnswerKind.OPEN
    query = Query(text=question.text, kind=kind, claim=question.claim, entities=tuple(question.entities))
    with setup.assign(question) as assignment:
        options = RunOptions(sampling=sampling, cancel=stop, on_event=events.append, stop_on_missing_names=not assignment.own_graph)
        result, error, unavailable = _ask(assignment.strategy, query, options)
        kg = assignment.kg
        evidence = None if result is None else assess_evidence(question.triples, question.entities, result, kg)
        grounding = None if result is None else check_grounding(result, kg)
    record = Record(
        **_identity(task, config),
        answer=None if result is None else result.answer,
        correct=result is not None and question.answer is not None and is_correct(result.answer, question.answer),
        explanation="" if result is None else result.explanation,
        usage=Usage() if result is None else result.usage,
        elapsed_s=round(time.perf_counter() - started, 3),
        error=error,
        stop_reason=None if result is None else result.stop_reason,
        cited_triples=[] if result is None else result.cited_triples,
        evidence=evidence,
        grounding=grounding,
        perturbation=assignment.changes if setup.perturbation is not Perturbation.NONE else None,
        trace=_partial_trace(events) if result is None else result.model_dump(mode="json")["trace"],
    )
    return _Outcome(record, unavailable)


def _failed(task: Task, config: RunConfig, error: str, started: float, events: list[Any]) -> Record:
    """The record of a question that ended in `error` outside its strategy's run."""
    return Record(
        **_identity(task, config),
        answer=None,
        correct=False,
        usage=Usage(),
        elapsed_s=round(time.perf_counter() - started, 3),
        error=error,
        trace=_partial_trace(events),
    )


def _identity(task: Task, config: RunConfig) -> dict[str, Any]:
    """The fields of a question's record that say which question, run and setting it is."""
    question = task.question
    return {
        "question_id": question.id,
        "run": task.run,
        "seed": task.seed,
        "strategy": config.strategy,
        "model": config.model,
        "settings": config.settings,
        "gold": question.answer,
        "reasoning_strategies": list(question.strategies),
    }


def _internal_error(failure: Exception) -> str:
    return f"internal error ({type(failure).__name__}: {failure})"


def _partial_trace(events: list[Any]) -> dict[str, Any]:
    """What a failed question did before its error: the events its strategy emitted, as in a full trace."""
    return {"events": [event.model_dump(mode="json") if isinstance(event, BaseModel) else event for event in events]}


def _ask(strategy: Strategy, query: Query, options: RunOptions) -> tuple[Result | None, str | None, bool]:
    """The result, or the error that ended the question and whether the model server was unreachable."""
    try:
        return strategy.ask(query, options), None, False
    except RunStopped:
        raise
    except ArkgError as failure:
        return None, f"{type(failure).__name__}: {failure}", isinstance(failure, ModelUnavailable)
    except Exception as failure:  # a bug: this question's record says so, and the others still run
        return None, _internal_error(failure), False
