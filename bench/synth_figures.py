"""Figures of `arkg synth` for the benchmark notes.

- CoLoTa, every question (split `all`: for counting only, CoLoTa is never training data): how
  many chains ground on the KG, how many become programs that reproduce the gold answer, how many
  pairs, and every question that fails, by stage and reason, with ids.
- The geography set, default split (train and dev): pairs by decision and by question kind.
- Token lengths of the pairs, counted with the bundled model's own tokenizer on its own chat
  template (the text a fine-tuning run trains on), by strategy and decision, and where the tokens
  of a prompt go (system message, earlier turns, the last request).

    python bench/synth_figures.py [--colota FILE] [--geo-db DB --geo-questions FILE] [--work DIR] [--no-tokens]

Without --geo-db the geography KG and questions are built into the work folder (`arkg geo build`
and `arkg geo questions`, seed 0). Runs of synthesis resume from their journals when interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from arkg.datasets.geo import build_geo_kg, generate_questions, write_questions
from arkg.datasets.geo.questions import TEMPLATES
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth import SynthOptions, colota_source, geo_source, parse_split, synthesize
from arkg.synth.figures import failures_table, pairs_table, sources_table
from arkg.synth.run import SynthReport
from arkg.tables import Table, markdown_table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_COLOTA = ROOT.parent / "shared" / "benchmarks" / "colota" / "CR-LT-QA.json"
TOKENS_PER_HOUR = 400_000  # LoRA training throughput measured on 2 CPU cores (SmolLM2-135M, r=8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--colota", type=Path, default=DEFAULT_COLOTA)
    parser.add_argument("--geo-db", type=Path)
    parser.add_argument("--geo-questions", type=Path)
    parser.add_argument("--work", type=Path, default=Path("synth-figures"))
    parser.add_argument("--no-tokens", action="store_true", help="Skip the token counts (they load the bundled model).")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    colota_out = args.work / "colota-all.jsonl"
    started = time.perf_counter()
    source = colota_source(args.colota)
    try:
        colota = _synthesize([source], colota_out, "all")
    finally:
        source.close()
    _section(f"CoLoTa ({args.colota.name}, every question; {time.perf_counter() - started:.0f} s)")
    for table in (sources_table(colota), pairs_table(colota), failures_table(colota, max_ids=None)):
        _print(table)

    db, questions = args.geo_db, args.geo_questions
    if db is None or questions is None:
        db, questions = _build_geo(args.work)
    geo_out = args.work / "geo-default.jsonl"
    started = time.perf_counter()
    source = geo_source(db, questions)
    try:
        geo = _synthesize([source], geo_out, "default")
        kinds = {chain.id: _kind(chain.id) for chain in source.chains}
    finally:
        source.close()
    _section(f"Geography ({questions.name}, default split; {time.perf_counter() - started:.0f} s)")
    for table in (sources_table(geo), pairs_table(geo), _by_kind(geo_out, kinds), failures_table(geo, max_ids=3)):
        _print(table)

    if not args.no_tokens:
        _section("Token lengths (bundled SmolLM2-135M tokenizer and chat template)")
        for path in (geo_out, colota_out):
            for table in _token_tables(path):
                _print(table)


def _synthesize(sources: list, out: Path, split: str) -> SynthReport:  # type: ignore[type-arg]
    def progress(update) -> None:  # type: ignore[no-untyped-def]
        if update.done % 100 == 0 or update.done == update.total:
            print(f"  {update.source}: {update.done}/{update.total} questions, {update.pairs} pairs", file=sys.stderr)

    return synthesize(sources, out, SynthOptions(), parse_split(split), overwrite=not _journal(out).exists(), progress=progress)


def _journal(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


def _build_geo(work: Path) -> tuple[Path, Path]:
    db, questions = work / "geo.db", work / "geo.jsonl"
    if not db.exists():
        build_geo_kg(db)
    if not questions.exists():
        with SQLiteGraph(db, create=False) as graph:
            write_questions(generate_questions(graph.iter_triples(), seed=0), questions)
    return db, questions


_KIND_OF_TEMPLATE = {template.name: template.kind for template in TEMPLATES}


def _kind(question_id: str) -> str:
    return _KIND_OF_TEMPLATE.get(question_id.rsplit("-", 1)[0], "?")


def _by_kind(out: Path, kinds: dict[str, str]) -> Table:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    questions: dict[str, set[str]] = defaultdict(set)
    for line in _records(out):
        kind = kinds.get(line["question_id"], "?")
        counts[kind][f"{line['strategy']}/{line['decision']}"] += 1
        questions[kind].add(line["question_id"])
    columns = sorted({key for counter in counts.values() for key in counter})
    rows = [
        [kind, str(len(questions[kind])), *(str(counts[kind][column]) for column in columns), str(sum(counts[kind].values()))]
        for kind in sorted(counts)
    ]
    return Table("Geography pairs by question kind", ["kind", "questions with pairs", *columns, "total"], rows)


def _records(path: Path):  # type: ignore[no-untyped-def]
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def _token_tables(path: Path) -> list[Table]:
    count = _token_counter()
    by_kind: dict[str, list[int]] = defaultdict(list)
    parts: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)
    for record in _records(path):
        messages = record["messages"]
        total = count(messages)
        reply = count([messages[-1]], bare=True)
        has_system = messages[0]["role"] == "system"
        system = count(messages[:1], bare=True) if has_system else 0
        last = count(messages[-2:-1], bare=True) if len(messages) > 2 or not has_system else 0
        key = f"{record['strategy']}/{record['decision']}"
        by_kind[key].append(total)
        by_kind["all"].append(total)
        parts[key].append((system, total - system - last - reply, last, reply))
    rows = []
    for key in sorted(by_kind, key=lambda k: (k == "all", k)):
        values = sorted(by_kind[key])
        rows.append([key, str(len(values)), *(str(v) for v in _spread(values)), f"{sum(values):,}"])
    hours = sum(by_kind["all"]) / TOKENS_PER_HOUR
    lengths = Table(
        f"{path.name}: tokens per pair (prompt + reply, chat template included)",
        ["pairs", "count", "min", "median", "p90", "max", "total"],
        rows,
        f"one epoch over all of them: about {hours:.1f} h at {TOKENS_PER_HOUR:,} training tokens per hour",
    )
    share_rows = []
    for key in sorted(parts):
        system, earlier, last, reply = (statistics.fmean(column) for column in zip(*parts[key]))
        share_rows.append([key, f"{system:.0f}", f"{earlier:.0f}", f"{last:.0f}", f"{reply:.0f}"])
    where = Table(
        f"{path.name}: where a prompt's tokens go (mean per pair)",
        ["pairs", "system message", "earlier turns and chat markup", "last request", "reply"],
        share_rows,
    )
    return [lengths, where]


def _spread(values: list[int]) -> tuple[int, int, int, int]:
    return values[0], values[len(values) // 2], values[int(len(values) * 0.9)], values[-1]


def _token_counter():  # type: ignore[no-untyped-def]
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from arkg.llm import LlamaCppModel

    threads = int(os.environ.get("ARKG_LLAMA_THREADS", "1"))
    llama = LlamaCppModel(n_ctx=512, n_threads=threads).llama
    formatter = Jinja2ChatFormatter(llama.metadata["tokenizer.chat_template"], eos_token="", bos_token="", add_generation_prompt=False)

    def count(messages: list[dict[str, str]], bare: bool = False) -> int:
        if not messages:
            return 0
        text = "".join(m["content"] for m in messages) if bare else formatter(messages=messages).prompt
        return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    return count


def _section(title: str) -> None:
    print(f"\n## {title}\n")


def _print(table: Table) -> None:
    print("\n".join(markdown_table(table)))
    print()


if __name__ == "__main__":
    main()
