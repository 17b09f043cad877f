"""`arkg synth`: the chains of every source, through the pipeline, into one chat-format JSONL file.

    sources = [geo_source("geo.db", "geo.jsonl"), sample_source()]
    report = synthesize(sources, "pairs.jsonl", SynthOptions(seed=0), parse_split("default"))

Finished questions go to a journal beside the output (`pairs.jsonl.partial`, one line each), so an
interrupted run picks up where it stopped when started again with the same inputs and settings
(other inputs or settings are refused, unless the output may be overwritten, which starts over).
When every question is done the pairs are written to the output and the provenance to
`pairs.jsonl.meta.json`, each under a temporary name and then moved into place, and the journal is
removed: the output is never half-written. The same inputs, settings and seed give the same bytes.
One process at a time writes an output, its journal included (arkg.eval.writer_lock): another one
started on the same output is refused at once.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any, TextIO

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from arkg.agents.teaching import Reason, SynthOptions
from arkg.errors import ArkgError
from arkg.eval.writer_lock import WriterLock
from arkg.paths import check_writable_file, write_atomically
from arkg.synth.chains import Unusable
from arkg.synth.memo import SearchMemo
from arkg.synth.pipeline import synthesize_chain
from arkg.llm.file_digest import file_sha256
from arkg.synth.provenance import kg_digest
from arkg.synth.sources.base import Source
from arkg.synth.split import SplitRule

JOURNAL_SUFFIX = ".partial"
META_SUFFIX = ".meta.json"


@dataclass(frozen=True)
class Progress:
    source: str
    done: int  # questions of this source finished (resumed ones included)
    total: int  # questions of this source the split keeps
    pairs: int  # pairs so far, all sources


@dataclass
class SourceSummary:
    name: str
    files: list[dict[str, str]]
    kg: dict[str, Any]
    questions: int = 0  # in the source's data
    kept: int = 0  # kept by the split
    chains: int = 0  # of those, grounded into chains
    programs: int = 0  # of those, with a program that reproduces the gold answer
    pairs: int = 0
    unusable: list[Unusable] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        failures: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for item in self.unusable:
            failures[item.stage][item.reason.value].append(item.id)
        return {
            "name": self.name,
            "files": self.files,
            "kg": self.kg,
            "questions": self.questions,
            "kept_by_split": self.kept,
            "chains": self.chains,
            "programs": self.programs,
            "pairs": self.pairs,
            "unusable": {stage: dict(reasons) for stage, reasons in failures.items()},
        }


@dataclass
class SynthReport:
    output: Path
    meta: Path
    sources: list[SourceSummary]
    counts: Counter[tuple[str, str, str, str]]  # (strategy, decision, mode, variant) -> pairs
    resumed: int = 0  # questions taken from an earlier, interrupted run

    @property
    def pairs(self) -> int:
        return sum(self.counts.values())


def synthesize(
    sources: Sequence[Source],
    out: str | Path,
    options: SynthOptions,
    split: SplitRule,
    *,
    overwrite: bool = False,
    progress: Callable[[Progress], None] | None = None,
    command: str | None = None,
) -> SynthReport:
    """Write the training pairs of every question the split keeps; see the module doc."""
    out = Path(out)
    check_writable_file(out)
    # Held from the existence check to the end: two runs would otherwise read and write one journal.
    with WriterLock(out):
        return _synthesize(sources, out, options, split, overwrite, progress, command)


def _synthesize(
    sources: Sequence[Source],
    out: Path,
    options: SynthOptions,
    split: SplitRule,
    overwrite: bool,
    progress: Callable[[Progress], None] | None,
    command: str | None,
) -> SynthReport:
    if out.exists() and not overwrite:
        raise ArkgError(f"{out} already exists; choose another path, or overwrite it")
    kept = sum(split.keeps(chain.source, chain.id, chain.split) for source in sources for chain in source.chains)
    if not kept:
        names = ", ".join(source.name for source in sources) or "none"
        why = " (it leaves out every question arkg is evaluated on)" if split.name == "default" else ""
        raise ArkgError(f"the split {split.name!r} keeps no usable question of the sources ({names}){why}")
    summaries = [_summary(source) for source in sources]
    settings = {"arkg_version": version("arkg"), "seed": options.seed, "split": split.describe(), "options": _options(options)}
    fingerprint = _digest({**settings, "sources": [(s.name, s.files, s.kg) for s in summaries]})
    journal_path = out.with_name(out.name + JOURNAL_SUFFIX)
    done = _Journal.read(journal_path, fingerprint, restart=overwrite)
    report = SynthReport(out, out.with_name(out.name + META_SUFFIX), summaries, Counter(), resumed=len(done))
    with _Journal.append(journal_path, fingerprint, fresh=not done) as journal:
        for source, summary in zip(sources, summaries):
            _run_source(source, summary, options, split, done, journal, report, progress)
    lines, digest = _write_output(journal_path, out)
    meta = {
        **settings,
        "command": command,
        "sources": [summary.to_json() for summary in summaries],
        "pairs": _counts(report.counts),
        "output": {"file": out.name, "sha256": digest, "lines": lines},
    }
    write_atomically(report.meta, lambda file: file.write(json.dumps(meta, indent=2, ensure_ascii=False) + "\n"))
    journal_path.unlink()
    return report


def _run_source(
    source: Source,
    summary: SourceSummary,
    options: SynthOptions,
    split: SplitRule,
    done: dict[tuple[str, str], dict[str, Any]],
    journal: _Journal,
    report: SynthReport,
    progress: Callable[[Progress], None] | None,
) -> None:
    chains = [chain for chain in source.chains if split.keeps(chain.source, chain.id, chain.split)]
    failed = [item for item in source.unusable if split.keeps(item.source, item.id, item.split)]
    summary.questions = len(source.chains) + len(source.unusable)
    summary.kept, summary.chains = len(chains) + len(failed), len(chains)
    summary.unusable += failed
    kg = SearchMemo(source.kg)
    tails = _tail_index(source)
    for number, chain in enumerate(chains, start=1):
        entry = done.get((source.name, chain.id))
        if entry is None:
            result = synthesize_chain(chain, kg, options, tails)
            entry = {
                "source": source.name,
                "id": chain.id,
                "program": result.program is not None,
                "records": [record.to_json() for record in result.records],
                "unusable": [_unusable_json(item) for item in result.unusable],
            }
            journal.write(entry)
        summary.programs += entry["program"]
        summary.pairs += len(entry["records"])
        summary.unusable += [_unusable_from(item) for item in entry["unusable"]]
        report.counts.update((r["strategy"], r["decision"], r["mode"], r["variant"]) for r in entry["records"])
        if progress is not None:
            progress(Progress(source.name, number, len(chains), report.pairs))


def _summary(source: Source) -> SourceSummary:
    digest, triples = kg_digest(source.kg)
    files = [{"path": str(path), "sha256": file_sha256(path)} for path in source.files]
    kg = {"digest": digest, "triples": triples, **({"file": str(source.kg_file)} if source.kg_file else {})}
    return SourceSummary(source.name, files, kg)


def _tail_index(source: Source) -> Callable[[str], list[str]]:
    tails: dict[str, set[str]] = defaultdict(set)
    for triple in source.kg.iter_triples():
        tails[triple.relation].add(triple.tail)
    ordered = {relation: sorted(values) for relation, values in tails.items()}
    return lambda relation: ordered.get(relation, [])


def _options(options: SynthOptions) -> dict[str, Any]:
    return {
        "strategies": list(options.strategies),
        "modes": [mode.value for mode in options.modes],
        "variants": [variant.value for variant in options.variants],
        "plan": options.plan,
        "retries": options.retries,
        # Every strategy's settings as it ran, overrides applied: what the pairs' prompts were made with.
        "settings": {name: options.settings_of(name).model_dump(mode="json") for name in options.strategies},
    }


def _counts(counts: Counter[tuple[str, str, str, str]]) -> dict[str, Any]:
    def by(*fields: int) -> dict[str, int]:
        total: Counter[str] = Counter()
        for key, count in counts.items():
            total["/".join(key[i] for i in fields)] += count
        return dict(sorted(total.items()))

    return {"total": sum(counts.values()), "by_strategy_decision": by(0, 1), "by_mode": by(2), "by_variant": by(3)}


def _unusable_json(item: Unusable) -> dict[str, str]:
    return {"stage": item.stage, "reason": item.reason.name, "detail": item.detail, "source": item.source, "id": item.id}


def _unusable_from(data: dict[str, str]) -> Unusable:
    return Unusable(data["source"], data["id"], data["stage"], Reason[data["reason"]], data["detail"])


def _digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _reason_name(name: str) -> str:
    if name not in Reason.__members__:
        raise ValueError(f"unknown reason {name!r}")
    return name


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True)


class _JournalPair(_Strict):
    """The fields of a journalled pair that the summary counts; the pair holds more, copied to the output."""

    strategy: str
    decision: str
    mode: str
    variant: str


class _JournalUnusable(_Strict):
    source: str
    id: str
    stage: str
    reason: Annotated[str, AfterValidator(_reason_name)]
    detail: str


class _Entry(_Strict):
    """A journal line (one finished question): checked before a resumed run relies on it."""

    source: str
    id: str
    program: bool
    records: list[_JournalPair]
    unusable: list[_JournalUnusable]


class _Journal:
    """One JSON line per finished question, after a first line holding the run's fingerprint."""

    def __init__(self, file: TextIO) -> None:
        self.file = file

    @staticmethod
    def read(path: Path, fingerprint: str, restart: bool) -> dict[tuple[str, str], dict[str, Any]]:
        """The questions an earlier run of the same synthesis finished (none when there is no journal)."""
        if not path.exists() or restart:
            return {}
        try:
            lines = path.read_bytes().split(b"\n")
        except OSError as error:
            raise ArkgError(f"{path}: cannot read the unfinished synthesis ({error.strerror or error})") from None
        try:
            header = json.loads(lines[0])
        except ValueError:  # not JSON, or not UTF-8
            header = None
        if not isinstance(header, dict) or header.get("fingerprint") != fingerprint:
            raise ArkgError(
                f"{path} holds an unfinished synthesis with other inputs or settings; run that again to finish it, "
                "delete the file, or overwrite the output to start over"
            )
        done: dict[tuple[str, str], dict[str, Any]] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
            except ValueError:
                # Only the line being written when the run stopped can be cut short: drop it and what follows.
                os.truncate(path, len(b"\n".join(lines[: number - 1])) + 1)
                break
            try:
                _Entry.model_validate(entry)
            except ValidationError as error:
                where = ".".join(map(str, error.errors()[0]["loc"])) or "line"
                raise ArkgError(
                    f"{path}, line {number}: not a question finished by this version of arkg synth ({where}: "
                    f"{error.errors()[0]['msg']}); delete the file, or overwrite the output to start over"
                ) from None
            done[(entry["source"], entry["id"])] = entry
        return done

    @staticmethod
    @contextmanager
    def append(path: Path, fingerprint: str, fresh: bool) -> Iterator[_Journal]:
        with path.open("w" if fresh else "a", encoding="utf-8") as file:
            if fresh:
                file.write(json.dumps({"fingerprint": fingerprint}) + "\n")
            yield _Journal(file)

    def write(self, entry: dict[str, Any]) -> None:
        self.file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.file.flush()


def _write_output(journal: Path, out: Path) -> tuple[int, str]:
    """The journal's pairs, in order, as the output JSONL; returns (lines, SHA-256)."""
    digest = hashlib.sha256()
    lines = 0

    def write(file: TextIO) -> None:
        nonlocal lines
        with journal.open(encoding="utf-8") as entries:
            next(entries)
            for line in entries:
                for record in json.loads(line)["records"]:
                    text = json.dumps(record, ensure_ascii=False) + "\n"
                    digest.update(text.encode("utf-8"))
                    file.write(text)
                    lines += 1

    write_atomically(out, write)
    return lines, digest.hexdigest()
