"""Adapters tuned for one KG (`arkg adapt`): where they live, and the record that says what they scored.

A SQLite store keeps them beside itself, in `STORE.adapted/`; the sample KG and remote stores (SPARQL,
Bolt) in arkg's cache folder, under `adapted/` and a name derived from the spec. The folder holds one
adapter per strategy with its sidecar, and `adapted.json`: each strategy's score on the KG's held-out
test questions before and after, and the strategy that scored best, which runs that name none use.

Runs that name no `--model` read the record (read_adapted) and take the KG's adapter for their
strategy (kg_model_spec, given the record read once); `--model` overrides it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arkg.errors import ModelError
from arkg.llm.bundled import bundled_model_path
from arkg.llm.spec import default_model_spec
from arkg.paths import user_cache_dir

RECORD_FILE = "adapted.json"
RECORD_FORMAT = "arkg-adapted/1"
FOLDER_SUFFIX = ".adapted"
ADAPTER_PREFIX = "adapted-"  # of an adapter file in the folder: adapted-STRATEGY.gguf
SAMPLE = "sample"


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid")

    right: int = Field(ge=0)
    questions: int = Field(ge=0)

    @property
    def share(self) -> float:
        return self.right / self.questions if self.questions else 0.0

    def __str__(self) -> str:
        return f"{self.right}/{self.questions} ({self.share:.0%})"


class AdaptedStrategy(BaseModel):
    """One strategy's outcome: its score with the shipped adapter and with the KG's own, and whether the
    KG's own is used (it is not when it scored lower than the shipped one)."""

    model_config = ConfigDict(extra="forbid")

    adapter: str  # a file name in the folder
    before: Score
    after: Score
    used: bool
    steps: int = Field(ge=0)


class BaseModelFile(BaseModel):
    """The GGUF file the adapters were tuned on: an adapter only fits the weights it was tuned with."""

    model_config = ConfigDict(extra="forbid")

    file: str
    bytes: int = Field(ge=0)
    sha256: str


class AdaptedRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str = RECORD_FORMAT
    kg: str
    base_model: BaseModelFile
    questions: int = Field(ge=0)
    test_questions: int = Field(ge=0)
    strategies: dict[str, AdaptedStrategy]
    best_strategy: str
    command: str = ""
    created: str
    elapsed_s: float = Field(ge=0)


def adapted_folder(db: str | Path | None) -> Path:
    """Where the adapters of the KG `db` names (a graph spec; None: the sample KG) are kept."""
    spec = SAMPLE if db is None else str(db)
    if spec != SAMPLE and Path(spec).is_file():
        return Path(spec + FOLDER_SUFFIX)
    name = SAMPLE if spec == SAMPLE else hashlib.sha256(spec.encode("utf-8")).hexdigest()[:16]
    return user_cache_dir() / "adapted" / name


def read_adapted(db: str | Path | None) -> AdaptedRecord | None:
    """The KG's adapt record, None when it has none; a record that cannot be read is a ModelError naming it."""
    path = adapted_folder(db) / RECORD_FILE
    if not path.is_file():
        return None
    try:
        record = AdaptedRecord.model_validate_json(path.read_bytes())
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ModelError(f"{path}: not an arkg adapt record ({where}: {first['msg']}); run `arkg adapt` again") from None
    if record.format != RECORD_FORMAT:
        raise ModelError(f"{path}: format {record.format!r}, this arkg reads {RECORD_FORMAT!r}; run `arkg adapt` again")
    base = bundled_model_path()
    if (record.base_model.file, record.base_model.bytes) != (base.name, base.stat().st_size):
        raise ModelError(
            f"{path}: its adapters were tuned on {record.base_model.file} ({record.base_model.bytes:,} bytes), not on the bundled "
            f"{base.name} ({base.stat().st_size:,} bytes); run `arkg adapt` again, or name a model with --model"
        )
    for name, outcome in record.strategies.items():
        if outcome.used and not (path.parent / outcome.adapter).is_file():
            raise ModelError(f"{path}: the adapter of {name}, {path.parent / outcome.adapter}, is missing; run `arkg adapt` again")
    return record


def adapter_path(db: str | Path | None, record: AdaptedRecord, strategy: str) -> Path | None:
    """The KG's adapter for `strategy`, None when adapt made none for it or kept the shipped one."""
    outcome = record.strategies.get(strategy)
    return adapted_folder(db) / outcome.adapter if outcome is not None and outcome.used else None


def kg_model_spec(db: str | Path | None, record: AdaptedRecord | None, strategy: str, tuned_adapter: str | None) -> str:
    """The spec of a run of `strategy` on the KG `db` that names no model: the bundled model with the
    KG's own adapter when its adapt record (read_adapted; None: none) has one for the strategy, else
    with the shipped one."""
    adapter = adapter_path(db, record, strategy) if record is not None else None
    return f"llamacpp:+{adapter}" if adapter is not None else default_model_spec(tuned_adapter)


def adapted_default_strategy(db: str | Path | None) -> str | None:
    """The strategy that scored best on the KG's test questions after `arkg adapt`, None without a record."""
    record = read_adapted(db)
    return record.best_strategy if record is not None else None
