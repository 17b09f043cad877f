"""The results file of an evaluation run: JSON lines, a header then one record per (question, run).

Each record is appended and fsync'ed as soon as its question is done, so a killed process loses
only the questions in flight. A line cut short by a kill can only be the last one; it is ignored
when reading and cut off before appending. A header line lost that way (the file empty, cut short or
zeroed by a crash) is replaced by the resuming run's, keeping the records after it. One process
writes a file at a time (writer_lock).
"""

from __future__ import annotations

import math
import os
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, NonNegativeInt, ValidationError
from pydantic_core import PydanticCustomError

from arkg.agents.support import Support
from arkg.errors import ArkgError
from arkg.eval.evidence import Evidence
from arkg.eval.grounding import Grounding
from arkg.eval.writer_lock import WriterLock, check_not_busy
from arkg.llm.base import Usage
from arkg.paths import check_writable_file, write_atomically

FORMAT = "arkg-eval/1"
# RunConfig.kg for the data set's own gold triples, and for strategies that use no KG.
GOLD_KG = "gold"
NO_KG = "none"


class RunConfig(BaseModel):
    """What determines a run's answers; a file can only be resumed with the same config.

    Not part of it: how many runs and which questions (a resume may extend both), concurrency.
    """

    model_config = ConfigDict(frozen=True)

    format: Literal["arkg-eval/1"] = FORMAT
    dataset: str
    dataset_sha256: str
    kg: str
    strategy: str
    model: str
    # What the response cache keys the model on (a GGUF's content hash, a server's request fields):
    # two model files of the same name are different models. Empty in files of older versions.
    model_identity: str = ""
    temperature: float
    seed: int
    max_tokens: int
    settings: dict[str, Any] = {}
    perturbation: str = "none"


def _counted(usage: Usage) -> Usage:
    """A record's usage: counts and seconds that could have been measured (not negative, not nan or inf)."""
    for name in Usage.model_fields:
        value = getattr(usage, name)
        if not 0 <= value < math.inf:
            # A PydanticCustomError reads as written (a ValueError would begin "Value error, ").
            raise PydanticCustomError(
                "measured", "{name} is {value}; a count or a time is never negative, nan or infinite", {"name": name, "value": value}
            )
    return usage


class Record(BaseModel):
    """One question answered in one run."""

    question_id: str
    run: NonNegativeInt
    seed: int
    strategy: str
    model: str
    settings: dict[str, Any]
    answer: bool | str | None
    gold: bool | int | float | list[str] | None  # None: a question asked without a gold answer, not scored
    correct: bool
    reasoning_strategies: list[str]
    explanation: str = ""
    usage: Annotated[Usage, AfterValidator(_counted)]
    elapsed_s: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    # Set when the strategy failed (e.g. the model produced no valid output); answer is then None.
    error: str | None = None
    stop_reason: str | None = None
    cited_triples: list[dict[str, Any]] = []
    # Gold evidence found and cited (when the question has gold triples), and the grounding checks
    # with the answer's support (Grounding.support; absent from files of older versions).
    evidence: Evidence | None = None
    grounding: Grounding | None = None
    # Under a perturbation (RunConfig.perturbation): what was changed in this question's KG; empty when
    # the perturbation could not apply to it.
    perturbation: list[str] | None = None
    trace: Any = None

    @property
    def key(self) -> tuple[str, int]:
        return self.question_id, self.run

    @property
    def support(self) -> Support | None:
        """Whether the cited facts support the answer (None: a failed question, or a file of an older version)."""
        return self.grounding.support if self.grounding is not None else None


class ResultsFile:
    """Header and records read from a results file, plus the byte length of its intact part.

    `records_start` is set when the file's header line was damaged and `config` is the run's that
    resumes it: the records from that offset on are kept under a new header.
    """

    def __init__(
        self, path: Path, config: RunConfig, records: list[Record], intact_bytes: int, records_start: int | None = None
    ) -> None:
        self.path = path
        self.config = config
        self.records = records
        self.intact_bytes = intact_bytes
        self.records_start = records_start

    def latest(self) -> dict[tuple[str, int], Record]:
        """The last record per (question, run): a re-run after an error replaces the failed record."""
        return {record.key: record for record in self.records}


def read_results(path: Path) -> ResultsFile:
    """Parse a results file; a malformed line other than a cut-off last line is an error naming it."""
    parsed = _parse(path)
    if parsed.config is None:
        raise ArkgError(
            f"{parsed.header_problem}; the `arkg eval` that wrote the file, run again with --resume, writes a new"
            " header and keeps its answers"
        )
    return ResultsFile(path, parsed.config, parsed.records, parsed.intact_bytes)


@dataclass
class _Parsed:
    config: RunConfig | None = None
    header_problem: str = ""  # why `config` is None: no header line, or a damaged one
    records: list[Record] = field(default_factory=list)
    records_start: int | None = None  # where the records begin (after the header's line, valid or not)
    intact_bytes: int = 0


def _parse(path: Path) -> _Parsed:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ArkgError(f"cannot read results file {path}: {error.strerror or error}") from None
    lines = data.split(b"\n")
    parsed = _Parsed()
    offset = 0
    for number, line in enumerate(lines, start=1):
        is_last = number == len(lines)
        end = offset + len(line) + (0 if is_last else 1)
        if not line.strip():
            pass
        elif parsed.records_start is None:
            # The header's line. A crash or kill while the file was created can leave it empty, cut short
            # or zeroed, and the records after it are still good.
            parsed.records_start = end
            try:
                parsed.config = RunConfig.model_validate_json(line)
            except (ValidationError, ValueError) as error:
                parsed.header_problem = f"{path}, line {number}: not a valid header of an arkg results file ({_first_error(error)})"
                with suppress(ValidationError, ValueError):
                    parsed.records.append(Record.model_validate_json(line))
                    parsed.header_problem = f"{path}: no header line (line {number} is already a record)"
                    parsed.records_start = offset
        else:
            try:
                parsed.records.append(Record.model_validate_json(line))
            except (ValidationError, ValueError) as error:
                if is_last:
                    break  # cut off by a kill while it was being written
                raise ArkgError(f"{path}, line {number}: not a valid record of an arkg results file ({_first_error(error)})") from None
        offset = end
    parsed.intact_bytes = offset
    if parsed.records_start is None:
        parsed.header_problem = f"{path}: empty results file (no header line)"
        parsed.records_start = offset
    return parsed


def _first_error(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return f"{'.'.join(map(str, first['loc'])) or 'line'}: {first['msg']}"
    return str(error)


def config_differences(written: RunConfig, wanted: RunConfig) -> list[str]:
    old, new = written.model_dump(), wanted.model_dump()
    # A file written before the model identity was recorded is checked on the model's name alone.
    unrecorded = {"model_identity"} if not written.model_identity else set()
    return [
        f"{key}: file has {old[key]!r}, this run has {new[key]!r}"
        for key in old
        if key not in unrecorded and old[key] != new[key]
    ]


class ResultsWriter:
    """The one writer of a results file: holds its write lock (see writer_lock), then appends records
    durably (write, flush, fsync per record) through an O_APPEND descriptor; thread-safe.

    New file: created with its header (never over an existing file unless resuming). `resume=True`:
    an existing file is read (`previous`), checked against `config`, and a line cut off by a kill is
    removed before the first append.
    """

    def __init__(self, path: Path, config: RunConfig, *, resume: bool = False) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._writer_lock = WriterLock(path)
        try:
            self.previous = _resumable(path, config) if resume and path.exists() else None
            if self.previous is None:
                self._file = _open_append(path, os.O_CREAT | os.O_EXCL, existing=resume)
                self._write_line(config.model_dump_json())
            else:
                if self.previous.records_start is not None:
                    _replace_header(path, config, self.previous.records_start, self.previous.intact_bytes)
                else:
                    os.truncate(path, self.previous.intact_bytes)
                self._file = _open_append(path, 0, existing=True)
                if not _ends_with_newline(path):
                    self._write_line("")
        except BaseException:
            self._writer_lock.release()
            raise

    def append(self, record: Record) -> None:
        with self._lock:
            self._write_line(record.model_dump_json())

    def close(self) -> None:
        self._file.close()
        self._writer_lock.release()

    def _write_line(self, line: str) -> None:
        self._file.write(line.encode("utf-8") + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def __enter__(self) -> "ResultsWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_results_target(path: Path, resume: bool) -> str | None:
    """Everything about OUT that can be checked before a model is loaded: writable, not a folder, not
    overwritten without `resume`, not being written by another process. Returns a note for the user
    when OUT's header line is damaged (resuming replaces it)."""
    check_writable_file(path, "results file")
    if path.exists() and not resume:
        raise _exists(path)
    check_not_busy(path)
    if not path.exists():
        return None
    parsed = _parse(path)  # a damaged file is reported now, not after the model has loaded
    if parsed.config is not None:
        return None
    return f"{parsed.header_problem}; --resume writes this run's header in its place and keeps the file's {len(parsed.records)} answer(s)"


def _resumable(path: Path, config: RunConfig) -> ResultsFile:
    parsed = _parse(path)
    if parsed.config is None:
        # Without a header, the records tell what they can of the run that wrote them.
        differences = _record_differences(parsed.records, config)
        if differences:
            raise ArkgError(
                f"{parsed.header_problem}, and its answers were written by a different evaluation; cannot resume it:\n  "
                + "\n  ".join(differences)
            )
        return ResultsFile(path, config, parsed.records, parsed.intact_bytes, records_start=parsed.records_start)
    differences = config_differences(parsed.config, config)
    if differences:
        raise ArkgError(f"{path} was written by a different evaluation; cannot resume it:\n  " + "\n  ".join(differences))
    return ResultsFile(path, parsed.config, parsed.records, parsed.intact_bytes)


def _record_differences(records: list[Record], config: RunConfig) -> list[str]:
    wanted = {"strategy": config.strategy, "model": config.model, "settings": config.settings}
    found = {
        f"{key}: file has {getattr(record, key)!r}, this run has {value!r}"
        for record in records
        for key, value in wanted.items()
        if getattr(record, key) != value
    }
    found |= {
        f"seed of run {record.run}: file has {record.seed}, this run has {config.seed + record.run}"
        for record in records
        if record.seed != config.seed + record.run
    }
    return sorted(found)


def _replace_header(path: Path, config: RunConfig, records_start: int, intact_bytes: int) -> None:
    """Write `config`'s header in place of a damaged one, keeping the intact records after it."""
    records = path.read_bytes()[records_start:intact_bytes].decode("utf-8")
    write_atomically(path, config.model_dump_json() + "\n" + records)


def _open_append(path: Path, flags: int, existing: bool) -> BinaryIO:
    # O_APPEND: every write lands at the end of the file as it is then, never over earlier bytes.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | flags, 0o644)
    except FileExistsError:
        raise (ArkgError(f"{path} appeared while it was being opened") if existing else _exists(path)) from None
    return os.fdopen(fd, "ab")


def _exists(path: Path) -> ArkgError:
    return ArkgError(f"{path} already exists: pass --resume to continue it, or choose another output file")


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as file:
        if file.seek(0, os.SEEK_END) == 0:
            return True
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"
