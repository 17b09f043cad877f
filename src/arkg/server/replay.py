"""Saved runs to replay: `arkg ask --trace` files and `arkg eval` results files, read from one folder only.

A name is a path relative to the folder; anything that resolves outside it (`..`, an absolute path,
a link pointing elsewhere), a hidden file, or a file of another type is not found. Nothing outside
the folder is ever opened.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ValidationError

from arkg.agents.trace import Trace
from arkg.errors import ArkgError
from arkg.eval.results import FORMAT, Record, ResultsFile, read_results
from arkg.server.steps import StepMaker, result_view, saved_trace, view_of

SUFFIXES = (".json", ".jsonl")
MAX_LISTED = 1000


class TraceNotFound(ArkgError):
    """No trace file of that name in the folder (or the name points outside it)."""


class NotATraceFile(ArkgError):
    """The file is neither an `arkg ask --trace` file nor an `arkg eval` results file."""


@dataclass(frozen=True)
class TraceFile:
    name: str  # relative to the folder, with forward slashes
    bytes: int


class TraceFolder:
    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root.resolve()
        self.max_bytes = max_bytes

    def files(self) -> list[TraceFile]:
        """The trace and results files in the folder and its subfolders (hidden ones and links left
        out, at most MAX_LISTED), by name."""
        found: list[TraceFile] = []
        for folder, subfolders, names in os.walk(self.root):
            subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
            for name in sorted(names):
                path = Path(folder, name)
                if name.startswith(".") or path.suffix not in SUFFIXES or path.is_symlink() or not path.is_file():
                    continue
                found.append(TraceFile(path.relative_to(self.root).as_posix(), path.stat().st_size))
                if len(found) >= MAX_LISTED:
                    return found
        return found

    def runs(self, name: str) -> list[dict[str, Any]]:
        """One line per saved run of the file: an ask trace holds one, a results file one per record."""
        saved = self._read(name)
        if isinstance(saved, ResultsFile):
            return [
                {
                    "index": index,
                    "label": f"{record.question_id} (run {record.run})",
                    "question_id": record.question_id,
                    "answer": record.answer,
                    "gold": record.gold,
                    "correct": record.correct,
                    "error": record.error,
                }
                for index, record in enumerate(saved.records)
            ]
        return [{"index": 0, "label": saved["question"], "answer": saved.get("answer")}]

    def replay(self, name: str, index: int) -> dict[str, Any]:
        """Run `index` of the file as the page replays it: its steps, in order, and its result."""
        saved = self._read(name)
        if isinstance(saved, ResultsFile):
            if not 0 <= index < len(saved.records):
                raise TraceNotFound(f"{name} holds {len(saved.records)} records; there is no record {index}")
            return _replay_record(saved, saved.records[index], name, index)
        if index != 0:
            raise TraceNotFound(f"{name} holds one run (index 0); there is no run {index}")
        return _replay(name, 0, saved, saved.get("trace"), {})

    def path(self, name: str) -> Path:
        """The file a name stands for, checked to lie inside the folder."""
        relative = PurePosixPath(name)
        if (
            not name
            or "\\" in name
            or "\x00" in name
            or relative.is_absolute()
            or any(part in ("", ".", "..") or part.startswith(".") for part in relative.parts)
            or relative.suffix not in SUFFIXES
        ):
            raise TraceNotFound(f"no trace file {name!r} in the trace folder (give a name as listed by /api/traces)")
        path = self.root.joinpath(*relative.parts)
        try:
            found = self._inside(path) and path.is_file()
        except OSError:  # a name the file system refuses, e.g. too long: no file has it
            found = False
        if not found:
            raise TraceNotFound(f"no trace file {name!r} in the trace folder (give a name as listed by /api/traces)")
        return path

    def _inside(self, path: Path) -> bool:
        return path.resolve().is_relative_to(self.root)

    def _read(self, name: str) -> ResultsFile | dict[str, Any]:
        path = self.path(name)
        stat = path.stat()
        if stat.st_size > self.max_bytes:
            raise NotATraceFile(f"{name} is {stat.st_size:,} bytes; this server reads trace files up to {self.max_bytes:,}")
        return _parse(path, name, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _parse(path: Path, name: str, mtime_ns: int, size: int) -> ResultsFile | dict[str, Any]:
    """A parsed file, kept while it is unchanged (mtime and size are part of the key)."""
    with path.open("rb") as file:
        first = file.readline()
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if isinstance(header, dict) and header.get("format") == FORMAT:
        return read_results(path)
    try:
        saved = json.loads(path.read_bytes())
    except ValueError as error:
        raise NotATraceFile(f"{name} is not JSON ({error})") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("question"), str) or "strategy" not in saved:
        raise NotATraceFile(
            f"{name} is neither a trace file written by `arkg ask --trace` nor a results file of `arkg eval`"
        )
    return saved


def _replay_record(saved: ResultsFile, record: Record, name: str, index: int) -> dict[str, Any]:
    trace = record.trace if isinstance(record.trace, dict) else {}
    result = {
        "strategy": record.strategy,
        "question": trace.get("question", record.question_id),
        "claim": trace.get("claim", False),
        "answer": record.answer,
        "explanation": record.explanation,
        "stop_reason": record.error or record.stop_reason or "",
        "cited_triples": trace.get("cited_triples") or [],
        "trace": trace,
        "usage": record.usage.model_dump(mode="json"),
    }
    extra = {"question_id": record.question_id, "run": record.run, "gold": record.gold, "correct": record.correct}
    return _replay(name, index, result, trace, extra, model=saved.config.model)


def _replay(
    name: str, index: int, result: dict[str, Any], trace: Any, extra: dict[str, Any], model: str | None = None
) -> dict[str, Any]:
    strategy = str(result.get("strategy"))
    try:
        # Read by the strategy's registered trace type, so each event reads as it did live.
        # A failed question's record keeps only the events it emitted: its question comes from the record.
        partial = {"question": result.get("question", ""), **trace} if isinstance(trace, dict) else trace
        typed = saved_trace(strategy, partial)
        events = typed.events if isinstance(typed, Trace) else (typed or {}).get("events")
        maker = StepMaker(view_of(strategy))
        steps = [maker.step(event) for event in events or [] if isinstance(event, (dict, BaseModel))]
    except (ArkgError, KeyError, TypeError, ValidationError) as error:
        raise NotATraceFile(f"{name}: run {index} has an event that cannot be read ({error})") from None
    return {
        "source": name,
        "index": index,
        "model": model or (trace.get("model") if isinstance(trace, dict) else None),
        "steps": steps,
        "result": result_view(result),
        **extra,
    }
