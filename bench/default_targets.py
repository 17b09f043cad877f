"""What a user gets by default, against the targets set for the bundled model on KGs it has never seen.

Reads results files that `arkg eval` wrote with no --model (or any one run to compare) and prints one
table: the sample KG's demo questions, the held-out domains (yes/no, open exact set, 2-3 hops, model
calls per question), the geography test split (no regression) and CoLoTa (not below answering False
every time), each with its goal and whether it is met. A file not given is a row "not measured".

    python bench/default_targets.py --write-demo demo-questions.jsonl
    arkg eval demo-questions.jsonl --db sample --strategy ark --out demo-ark.jsonl
    python bench/heldout_eval.py --dir heldout --strategy ark --model default --limit 20
    arkg eval geo-questions.jsonl --db geo.db --ids $IDS107 --strategy ark --out geo-ark.jsonl
    arkg eval ../shared/benchmarks/colota/CR-LT-QA.json --strategy ark --out colota-ark.jsonl
    python bench/default_targets.py --demo demo-ark.jsonl --heldout heldout --strategy ark --model default \\
        --limit 20 --geography geo-ark.jsonl --geography-baseline geo-ark-before.jsonl --colota colota-ark.jsonl

The geography row is best read against a baseline run (the adapter shipped before, on the same
questions and graph), over the questions both runs answered, with the exact McNemar p of the two.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from heldout_eval import Tally, discordant, results_path, share, tally

from arkg.data import SAMPLE_QUESTIONS
from arkg.eval.results import Record, RunConfig, read_results
from arkg.eval.stats import mcnemar_p
from arkg.llm.spec import model_name_parts
from arkg.synth.domains.export import QUESTIONS_FILE

# The held-out goals: share of yes/no, of open (exact set) and of 2-3 hop questions right, and ARK's
# model calls per question at most.
YES_NO_GOAL = 0.90
OPEN_GOAL = 0.85
MULTI_HOP_GOAL = 0.70
CALLS_GOAL = 6.0
# Without a baseline run: the geography test split's accuracy that the shipped adapters had before they
# were tuned on other domains (on the question set and graph of their time), which a new default must reach.
GEOGRAPHY_FLOOR = {"ark": 0.78, "kg-agent": 0.92}


@dataclass
class Row:
    target: str
    run: str = "-"
    measured: str = "not measured"
    goal: str = "-"
    met: bool = False
    note: str | None = None  # printed under the table: what the goal was measured against

    def line(self) -> str:
        return f"| {self.target} | {self.run} | {self.measured} | {self.goal} | {'yes' if self.met else 'no'} |"


def write_demo(path: Path) -> None:
    """The sample KG's demo questions (arkg.data.SAMPLE_QUESTIONS) as a question file for `arkg eval`."""
    with path.open("w", encoding="utf-8") as out:
        for number, sample in enumerate(SAMPLE_QUESTIONS, start=1):
            out.write(json.dumps({"id": f"demo-{number}", "question": sample.question, "answer": sample.answer}) + "\n")


def _records(path: Path) -> tuple[RunConfig, list[Record]]:
    results = read_results(path)
    return results.config, list(results.latest().values())


def _run(config: RunConfig) -> str:
    """The strategy and the model in short: "ark · SmolLM2-135M-Instruct + tuned"."""
    base, adapter = model_name_parts(config.model)
    return f"{config.strategy} · {base}" + (f" + {adapter}" if adapter else "")


def demo_row(path: Path | None) -> Row:
    row = Row("the sample KG's demo questions", goal="all")
    if path is None:
        return row
    config, records = _records(path)
    row.run = _run(config)
    right = sum(record.correct for record in records)
    row.measured = f"{right}/{len(records)}"
    row.met = bool(records) and right == len(SAMPLE_QUESTIONS) == len(records)
    return row


def heldout_rows(folder: Path | None, strategy: str, model: str, limit: int | None) -> list[Row]:
    rows = [
        Row("yes/no, held-out domains", goal=f">= {YES_NO_GOAL:.0%}"),
        Row("open questions, held-out domains (exact set)", goal=f">= {OPEN_GOAL:.0%}"),
        Row("2-3 hop questions, held-out domains", goal=f">= {MULTI_HOP_GOAL:.0%}"),
        Row("model calls per question, held-out domains", goal=f"<= {CALLS_GOAL:g}"),
    ]
    if folder is None:
        return rows
    domains = sorted(path.parent for path in folder.glob(f"*/{QUESTIONS_FILE}"))
    files = [results_path(domain, strategy, model) for domain in domains]
    missing = [str(path) for path in files if not path.is_file()]
    if not domains or missing:
        sys.exit(f"{folder}: no results of {strategy} with {model} in {', '.join(missing) or 'any domain folder'}")
    overall = Tally()
    for domain, path in zip(domains, files):
        overall.add(tally(path, domain / QUESTIONS_FILE, limit))
    run = _run(_records(files[0])[0])
    for row, outcomes, goal in zip(rows, (overall.yes_no, overall.open, overall.multi_hop), (YES_NO_GOAL, OPEN_GOAL, MULTI_HOP_GOAL)):
        row.run, row.measured = run, share(sum(outcomes), len(outcomes))
        row.met = bool(outcomes) and sum(outcomes) >= goal * len(outcomes)
    calls = overall.calls / overall.questions if overall.questions else float("nan")
    rows[3].run, rows[3].measured, rows[3].met = run, f"{calls:.1f}", calls <= CALLS_GOAL
    return rows


def geography_row(path: Path | None, floor: float | None, baseline: Path | None) -> Row:
    """Right answers on the geography split, against a baseline run over the same questions (the questions
    only one of the two got right and their exact McNemar p beside it) or, without one, against a floor share."""
    row = Row("geography test split (no regression)")
    if path is None:
        return row
    config, records = _records(path)
    row.run = _run(config)
    if baseline is not None:
        base_config, base_records = _records(baseline)
        before = {record.question_id: record.correct for record in base_records}
        after = {record.question_id: record.correct for record in records}
        shared, only_run, only_base = discordant(after, before)
        right = sum(correct for q, correct in after.items() if q in before)
        base_right = right - only_run + only_base
        row.measured = f"{share(right, shared)}; only this run right {only_run}, only the baseline {only_base}, p = {mcnemar_p(only_run, only_base):.3f}"
        row.goal = f">= {base_right}/{shared}, the baseline"
        row.met = bool(shared) and right >= base_right
        row.note = f"geography baseline: {baseline} ({_run(base_config)}; {base_config.model_identity or base_config.model})"
        return row
    right = sum(record.correct for record in records)
    row.measured = share(right, len(records))
    floor = floor if floor is not None else GEOGRAPHY_FLOOR.get(config.strategy)
    if floor is not None:
        row.goal = f">= {floor:.0%}"
        row.met = bool(records) and right >= floor * len(records)
    return row


def colota_row(path: Path | None) -> Row:
    row = Row("CoLoTa, overall accuracy")
    if path is None:
        return row
    config, records = _records(path)
    row.run = _run(config)
    scored = [record for record in records if isinstance(record.gold, bool)]
    right = sum(record.correct for record in scored)
    always_false = sum(record.gold is False for record in scored)
    row.measured = share(right, len(scored))
    row.goal = f">= {share(always_false, len(scored))}, always False"
    row.met = bool(scored) and right >= always_false
    return row


def table(rows: Iterable[Row]) -> str:
    lines = ["| target | run | measured | goal | met |", "| --- | --- | --- | --- | --- |"]
    return "\n".join([*lines, *(row.line() for row in rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write-demo", type=Path, metavar="FILE", help="Write the demo questions as a question file, and stop.")
    parser.add_argument("--demo", type=Path, help="Results of the demo questions.")
    parser.add_argument("--heldout", type=Path, help="The folder of bench/heldout_domains.py, with results of bench/heldout_eval.py.")
    parser.add_argument("--strategy", default="ark", help="The held-out run's strategy (default: ark).")
    parser.add_argument("--model", default="default", help="The held-out run's model spec as given to heldout_eval.py (default: default).")
    parser.add_argument("--limit", type=int, help="Only the first N questions of each held-out domain.")
    parser.add_argument("--geography", type=Path, help="Results on the geography test split.")
    parser.add_argument("--geography-baseline", type=Path, help="Results of the run the geography run must not fall below, on the same questions.")
    parser.add_argument("--geography-floor", type=float, help="Without a baseline: the share the geography run must reach (default: by strategy, ark 0.78, kg-agent 0.92).")
    parser.add_argument("--colota", type=Path, help="Results on CoLoTa.")
    args = parser.parse_args()
    if args.write_demo is not None:
        write_demo(args.write_demo)
        return
    rows = [
        demo_row(args.demo),
        *heldout_rows(args.heldout, args.strategy, args.model, args.limit),
        geography_row(args.geography, args.geography_floor, args.geography_baseline),
        colota_row(args.colota),
    ]
    print(table(rows))
    for row in rows:
        if row.note:
            print(f"\n{row.note}")
    runs = {row.run for row in rows if row.run != "-"}
    if len(runs) > 1:
        print(f"\nnote: the rows come from {len(runs)} different runs: {'; '.join(sorted(runs))}")


if __name__ == "__main__":
    main()
