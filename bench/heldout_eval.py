"""Evaluate strategies and models on the held-out domains (bench/heldout_domains.py wrote DIR).

    python bench/heldout_domains.py --out heldout
    python bench/heldout_eval.py --dir heldout --strategy ark --strategy kg-agent \
        --model llamacpp:tuned --model llamacpp:tuned-kg-agent
    python bench/heldout_eval.py --dir heldout --domain botany --strategy ark --model test --limit 3
    python bench/heldout_eval.py --dir heldout --strategy ark --model default --limit 20

`--model default` runs `arkg eval` with no --model: what a user gets by default (the bundled model with
the strategy's tuned adapter and the settings on by default for it).

For each domain: `arkg kg load kg.jsonl --db kg.db` (once), then for each strategy and model
`arkg eval questions.jsonl --db kg.db --strategy S --model M --out DIR/<domain>/results/S--M.jsonl`
(resumed when the results file exists, so an interrupted run goes on). Then one table, read from
the results files: yes/no accuracy, open exact-set accuracy, accuracy on the 2-3 hop questions,
model calls per question; per domain and overall. With several runs (strategies x models), a second
table pairs every two of them over the questions both answered in every domain: the questions only
one got right, and the exact McNemar p. Extra `arkg eval` options go after `--`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from arkg.eval.results import read_results
from arkg.eval.stats import mcnemar_p
from arkg.synth.domains.export import KG_FILE, QUESTIONS_FILE

ARKG = [sys.executable, "-m", "arkg"]
# arkg eval's exit statuses that still leave a results file to read: all answered, some failed.
FINISHED = (0, 3)
DEFAULT = "default"  # --model default: no --model, the defaults a user gets


@dataclass
class Tally:
    yes_no: list[bool] = field(default_factory=list)
    open: list[bool] = field(default_factory=list)
    multi_hop: list[bool] = field(default_factory=list)
    calls: int = 0
    correct: dict[str, bool] = field(default_factory=dict)  # question id -> right, for the paired tests

    def add(self, other: Tally) -> None:
        self.yes_no += other.yes_no
        self.open += other.open
        self.multi_hop += other.multi_hop
        self.calls += other.calls
        self.correct |= other.correct

    @property
    def questions(self) -> int:
        return len(self.yes_no) + len(self.open)

    def row(self, *labels: str) -> str:
        calls = f"{self.calls / self.questions:.1f}" if self.questions else "-"
        shares = (share(sum(outcomes), len(outcomes)) for outcomes in (self.yes_no, self.open, self.multi_hop))
        return f"| {' | '.join(labels)} | {self.questions} | {' | '.join(shares)} | {calls} |"


def share(right: int, total: int) -> str:
    """ "3/4 (75%)", or "-" when there is nothing to count."""
    return f"{right}/{total} ({100 * right / total:.0f}%)" if total else "-"


def discordant(a: dict[str, bool], b: dict[str, bool]) -> tuple[int, int, int]:
    """Two runs' question id -> right, over the questions both answered: how many, only A right, only B right."""
    shared = a.keys() & b.keys()
    return len(shared), sum(a[q] and not b[q] for q in shared), sum(b[q] and not a[q] for q in shared)


def _run(command: list[str], allowed: tuple[int, ...] = (0,)) -> None:
    done = subprocess.run(command, text=True, capture_output=True)
    if done.returncode not in allowed:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def _store(folder: Path) -> Path:
    db = folder / "kg.db"
    if not db.exists():
        _run([*ARKG, "kg", "load", str(folder / KG_FILE), "--db", str(db)])
    return db


def results_path(folder: Path, strategy: str, model: str) -> Path:
    """Where a domain's results of one strategy and model spec are written."""
    return folder / "results" / f"{strategy}--{model.replace(':', '_').replace('/', '_')}.jsonl"


def _evaluate(folder: Path, db: Path, strategy: str, model: str, limit: int | None, extra: list[str]) -> Path:
    out = results_path(folder, strategy, model)
    out.parent.mkdir(exist_ok=True)
    command = [*ARKG, "eval", str(folder / QUESTIONS_FILE), "--db", str(db), "--strategy", strategy, "--out", str(out)]
    if model != DEFAULT:
        command += ["--model", model]
    if limit is not None:
        command += ["--limit", str(limit)]
    if out.exists():
        command.append("--resume")
    _run(command + extra, FINISHED)
    return out


def first_questions(questions: Path, limit: int | None = None) -> dict[str, dict]:
    """Question id -> entry of a question file, of its first `limit` questions only when given (a
    results file may hold more)."""
    entries: dict[str, dict] = {}
    with questions.open(encoding="utf-8") as lines:
        for line in lines:
            if limit is not None and len(entries) == limit:
                break
            entry = json.loads(line)
            entries[entry["id"]] = entry
    return entries


def tally(results: Path, questions: Path, limit: int | None = None) -> Tally:
    """The outcomes of a results file's records, told apart by the question file's answers and hops;
    with `limit`, of the file's first `limit` questions only."""
    hops = {question_id: entry["hops"] for question_id, entry in first_questions(questions, limit).items()}
    found = Tally()
    for record in read_results(results).latest().values():
        if record.question_id not in hops:
            continue
        if isinstance(record.gold, bool):
            found.yes_no.append(record.correct)
        else:
            found.open.append(record.correct)
        if hops.get(record.question_id, 1) >= 2:
            found.multi_hop.append(record.correct)
        found.calls += record.usage.total_calls
        found.correct[record.question_id] = record.correct
    return found


def paired(runs: dict[str, Tally]) -> list[str]:
    """Every two runs over the questions both answered: only the first right, only the second, McNemar p."""
    lines = ["| run A | run B | shared questions | only A right | only B right | McNemar p |", "| --- | --- | --- | --- | --- | --- |"]
    for (label_a, a), (label_b, b) in combinations(runs.items(), 2):
        shared, only_a, only_b = discordant(a.correct, b.correct)
        lines.append(f"| {label_a} | {label_b} | {shared} | {only_a} | {only_b} | {mcnemar_p(only_a, only_b):.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="The folder bench/heldout_domains.py wrote.")
    parser.add_argument("--strategy", action="append", required=True, help="A strategy (repeat).")
    parser.add_argument("--model", action="append", required=True, help=f"A model spec (repeat), e.g. test, llamacpp:tuned; {DEFAULT}: none given.")
    parser.add_argument("--domain", action="append", help="Only this domain's folder (repeat); default every one.")
    parser.add_argument("--limit", type=int, help="Only the first N questions of each domain.")
    parser.add_argument("extra", nargs="*", help="Options passed on to arkg eval (after --).")
    args = parser.parse_args()
    folders = [args.dir / name for name in args.domain] if args.domain else sorted(p.parent for p in args.dir.glob(f"*/{QUESTIONS_FILE}"))
    if not folders or not all((folder / QUESTIONS_FILE).is_file() for folder in folders):
        sys.exit(f"{args.dir}: no held-out domain folder (write them with bench/heldout_domains.py --out {args.dir})")
    print("| strategy | model | domain | questions | yes/no | open exact | 2-3 hops | calls/question |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    runs: dict[str, Tally] = {}
    for strategy in args.strategy:
        for model in args.model:
            overall = runs[f"{strategy} {model}"] = Tally()
            for folder in folders:
                results = _evaluate(folder, _store(folder), strategy, model, args.limit, args.extra)
                found = tally(results, folder / QUESTIONS_FILE, args.limit)
                overall.add(found)
                print(found.row(strategy, model, folder.name), flush=True)
            print(overall.row(strategy, model, "**overall**"), flush=True)
    if len(runs) > 1:
        print()
        print("\n".join(paired(runs)))


if __name__ == "__main__":
    main()
