"""Accuracy on the geography questions by question kind and answer type, per system, from `arkg eval` results.

The report's breakdown is by template and hop count; this adds what the tuning targets are stated in:
yes/no questions against open ones (entities or a number), and the five question kinds. Also calls and
tokens per question, and the share of questions answered. Every results file must be over the same
question set (e.g. `arkg eval --dataset geo-questions.jsonl --db geo.db --limit 100`); files of the same
system (strategy, model and its weights, settings) are merged, as `arkg report` does.

    python bench/geo_accuracy.py --questions runs/geo-questions.jsonl runs/geo-*.jsonl
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from arkg.datasets.geo import read_questions
from arkg.eval.report import build_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, required=True, help="the questions file the runs evaluated")
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    questions = {question.id: question for question in read_questions(args.questions)}
    columns: list[str] = []
    table: dict[str, dict[str, str]] = defaultdict(dict)
    systems = build_report(args.results)  # files of the same system (e.g. parts run side by side) are merged
    headers = column_headers([system.label for system in systems])
    for system in systems:
        label = headers[system.label]
        records = [record for (_, run), record in system.records.items() if run == 0]
        columns.append(label)
        groups: dict[str, list[bool]] = defaultdict(list)
        for record in records:
            question = questions[record.question_id]
            answer_type = "yes/no" if question.answer_type == "boolean" else "open"
            for group in ("all", answer_type, f"kind: {question.kind}"):
                groups[group].append(record.correct)
        for group, outcomes in groups.items():
            table[group][label] = f"{sum(outcomes)}/{len(outcomes)} ({100 * sum(outcomes) / len(outcomes):.1f}%)"
        table["answered"][label] = f"{100 * statistics.fmean(r.answer is not None for r in records):.1f}%"
        table["calls/question"][label] = f"{statistics.fmean(r.usage.total_calls for r in records):.1f}"
        table["tokens/question"][label] = f"{statistics.fmean(r.usage.total_tokens for r in records):,.0f}"
    order = ["all", "yes/no", "open", *sorted(group for group in table if group.startswith("kind: "))]
    order += ["answered", "calls/question", "tokens/question"]
    print("| questions | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for group in order:
        print(f"| {group} | " + " | ".join(table[group].get(label, "") for label in columns) + " |")


def column_headers(labels: list[str]) -> dict[str, str]:
    """Column names: the parts of the system labels ("strategy · model · mode · ...") that differ
    between the systems shown, or the strategy alone when they differ in nothing else."""
    parts = {label: label.split(" · ") for label in labels}
    shared = set.intersection(*(set(p) for p in parts.values())) if parts else set()
    return {label: " · ".join(part for part in p if part not in shared) or p[0] for label, p in parts.items()}


if __name__ == "__main__":
    main()
