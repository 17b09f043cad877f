"""What `arkg adapt` changes on KGs with questions worded by hand (bench/heldout_kgs/), before and after,
paired over the same questions.

    python bench/adapt_effect.py bench/heldout_kgs/hospital-network bench/heldout_kgs/software-packages
    python bench/adapt_effect.py bench/heldout_kgs/company-org --time-budget 30

For each folder (kg.jsonl and questions.jsonl, the layout of bench/heldout_eval.py):

1. before: `arkg eval` of ark and kg-agent, each with its shipped adapter (results/S--shipped.jsonl);
2. `arkg adapt --db kg.db` unless the KG has been adapted already (its wall time is printed);
3. after: `arkg eval` with no --strategy and no --model, what a user gets after adapting
   (results/adapted--default.jsonl), and each strategy with its adapted adapter (results/S--adapted.jsonl).

The adapt run makes its own questions from the KG; the hand-worded questions are never seen by it. Tables:
yes/no, open (exact set) and 2-3 hop accuracy with calls per question, per KG and overall, then every
before/after pair (questions only one got right, exact McNemar p), then what adapt recorded (its wall time
and its own held-out test questions before and after). Results files are resumed, so an interrupted run
goes on; delete them to measure again.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from heldout_eval import ARKG, FINISHED, Tally, _run, _store, discordant, tally

from arkg.agents import BUNDLED_MODEL_STRATEGY
from arkg.eval.stats import mcnemar_p
from arkg.llm.adapted import read_adapted
from arkg.synth.domains.export import QUESTIONS_FILE

SHIPPED = {"ark": "llamacpp:tuned", "kg-agent": "llamacpp:tuned-kg-agent"}


def evaluate(folder: Path, db: Path, name: str, options: list[str]) -> Path:
    out = folder / "results" / f"{name}.jsonl"
    out.parent.mkdir(exist_ok=True)
    command = [*ARKG, "eval", str(folder / QUESTIONS_FILE), "--db", str(db), "--out", str(out), *options]
    _run(command + (["--resume"] if out.exists() else []), FINISHED)
    return out


def adapt(db: Path, budget: float) -> float | None:
    """Run `arkg adapt` on the store unless it has a record; its wall time in seconds (None: not run here)."""
    if read_adapted(str(db)) is not None:
        return None
    started = time.monotonic()
    done = subprocess.run([*ARKG, "adapt", "--db", str(db), "--time-budget", f"{budget:g}"], text=True, capture_output=True)
    if done.returncode != 0:
        sys.exit(f"arkg adapt --db {db} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="Held-out KG folders (kg.jsonl, questions.jsonl).")
    parser.add_argument("--time-budget", type=float, default=60, help="arkg adapt's --time-budget, minutes.")
    args = parser.parse_args()
    runs: dict[str, Tally] = {}
    rows: list[str] = []
    recorded: list[str] = []
    for folder in args.folders:
        if not (folder / QUESTIONS_FILE).is_file():
            sys.exit(f"{folder}: no {QUESTIONS_FILE}")
        db = _store(folder)
        questions = folder / QUESTIONS_FILE
        labelled: list[tuple[str, Path]] = []
        for strategy, spec in SHIPPED.items():
            default = " (the default)" if strategy == BUNDLED_MODEL_STRATEGY else ""
            labelled.append((f"before: {strategy}, shipped adapter{default}", evaluate(folder, db, f"{strategy}--shipped", ["--strategy", strategy, "--model", spec])))
        wall = adapt(db, args.time_budget)
        record = read_adapted(str(db))
        assert record is not None
        labelled.append((f"after: the defaults ({record.best_strategy}, adapted)", evaluate(folder, db, "adapted--default", [])))
        for strategy in SHIPPED:
            # A strategy whose adapter adapt did not use (it scored lower) runs as before: nothing to measure.
            if strategy in record.strategies and record.strategies[strategy].used:
                labelled.append((f"after: {strategy}, adapted adapter", evaluate(folder, db, f"{strategy}--adapted", ["--strategy", strategy])))
        for label, results in labelled:
            found = tally(results, questions)
            runs.setdefault(label, Tally()).add(found)
            rows.append(found.row(label, folder.name))
        took = f"{wall / 60:.1f} min" if wall is not None else f"{record.elapsed_s / 60:.1f} min (recorded)"
        scores = "; ".join(f"{name} {outcome.before} -> {outcome.after}, {outcome.steps} steps" for name, outcome in record.strategies.items())
        recorded.append(f"| {folder.name} | {took} | {record.questions} | {scores} | {record.best_strategy} |")
    print("| run | KG | questions | yes/no | open exact | 2-3 hops | calls/question |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    for label, overall in runs.items():
        print(overall.row(label, "**overall**"))
    print()
    before = {label: tally_ for label, tally_ in runs.items() if label.startswith("before")}
    after = {label: tally_ for label, tally_ in runs.items() if label.startswith("after")}
    print("| before | after | shared questions | only before right | only after right | McNemar p |")
    print("| --- | --- | --- | --- | --- | --- |")
    for before_label, earlier in before.items():
        for after_label, later in after.items():
            shared, only_before, only_after = discordant(earlier.correct, later.correct)
            print(f"| {before_label} | {after_label} | {shared} | {only_before} | {only_after} | {mcnemar_p(only_before, only_after):.3f} |")
    print()
    print("| KG | arkg adapt wall time | questions made | its own test questions: shipped -> adapted | default strategy after |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(recorded))


if __name__ == "__main__":
    main()
