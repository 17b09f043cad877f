"""Where the wrong answers of a held-out run went wrong: in exploring or in the answer step.

    python bench/heldout_misses.py --dir heldout --strategy ark --model default --limit 20

Reads the results files that bench/heldout_eval.py wrote (DIR/<domain>/results/S--M.jsonl). A wrong open
answer whose gold values are all among the entities of the cited facts failed in the answer step ("gold
cited"); one whose gold values were all shown in a step (ARK's trace) but not all cited failed in the
reasoning step ("gold shown, not cited"); the rest never reached a gold value ("gold not shown"). Counts,
whose gold is a number, are counted apart, and so are choices among entities the question names ("Which
is higher, A or B?", whose deciding values are no gold). A wrong yes/no answer is told apart by whether
every entity the question names was reached: an anchor of a step or an entity of a cited fact. With
--list, each wrong answer and its class.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from heldout_eval import first_questions, results_path

from arkg.agents.candidates import named_in_question
from arkg.eval.results import Record, read_results
from arkg.graph import open_graph
from arkg.graph.matching import fold
from arkg.synth.domains.export import QUESTIONS_FILE

CLASSES = [
    "open: a choice among named entities",
    "open: gold cited",
    "open: gold shown, not cited",
    "open: gold not shown",
    "open: a count",
    "yes/no: every named entity reached",
    "yes/no: a named entity not reached",
]
CHOICE, CITED, SHOWN, NOT_SHOWN, COUNT, REACHED, NOT_REACHED = CLASSES


def _steps(record: Record) -> list[dict[str, Any]]:
    """The run's steps that were shown triples (ARK's "triples" events): their anchor and triples."""
    return [event for event in (record.trace or {}).get("events", []) if event.get("kind") == "triples"]


def miss_class(record: Record, question: str, is_entity: Any) -> str:
    """The class of a wrong answer (CLASSES)."""
    cited = {fold(name) for triple in record.cited_triples for name in (triple["head"], triple["tail"])}
    named = {fold(name) for name in named_in_question(question, is_entity)}
    if isinstance(record.gold, bool):
        anchors = {fold(step["anchor"]) for step in _steps(record)}
        return REACHED if named <= cited | anchors else NOT_REACHED
    if not isinstance(record.gold, list):
        return COUNT
    gold = {fold(value) for value in record.gold}
    if gold <= named:  # "Which is higher, A or B?": the values that decide are not in the gold
        return CHOICE
    if gold <= cited:
        return CITED
    shown = {fold(name) for step in _steps(record) for triple in step["triples"] for name in (triple["head"], triple["tail"])}
    return SHOWN if gold <= cited | shown else NOT_SHOWN


def domain_misses(folder: Path, strategy: str, model: str, limit: int | None) -> tuple[int, list[tuple[str, str, Record]]]:
    """How many questions were answered, and each wrong one: its class, question and record."""
    questions = {question_id: entry["question"] for question_id, entry in first_questions(folder / QUESTIONS_FILE, limit).items()}
    path = results_path(folder, strategy, model)
    if not path.is_file():
        sys.exit(f"{path}: no results (run bench/heldout_eval.py --dir {folder.parent} --strategy {strategy} --model {model})")
    records = [record for record in read_results(path).latest().values() if record.question_id in questions]
    kg = open_graph(str(folder / "kg.db"))
    try:
        wrong = [
            (miss_class(record, questions[record.question_id], kg.has_entity), questions[record.question_id], record)
            for record in records
            if not record.correct
        ]
    finally:
        kg.close()
    return len(records), wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="The folder of bench/heldout_domains.py, with results.")
    parser.add_argument("--strategy", default="ark")
    parser.add_argument("--model", default="default", help="The model spec as given to heldout_eval.py.")
    parser.add_argument("--limit", type=int, help="Only the first N questions of each domain.")
    parser.add_argument("--list", action="store_true", help="Each wrong answer and its class, too.")
    args = parser.parse_args()
    folders = sorted(path.parent for path in args.dir.glob(f"*/{QUESTIONS_FILE}"))
    if not folders:
        sys.exit(f"{args.dir}: no held-out domain folder")
    print(f"| domain | answered | wrong | {' | '.join(CLASSES)} |")
    print(f"| --- | --- | --- | {' | '.join('---' for _ in CLASSES)} |")
    overall, answered, listed = Counter[str](), 0, []
    for folder in folders:
        count, wrong = domain_misses(folder, args.strategy, args.model, args.limit)
        classes = Counter(kind for kind, _, _ in wrong)
        overall.update(classes)
        answered += count
        listed += [(folder.name, *miss) for miss in wrong]
        print(f"| {folder.name} | {count} | {len(wrong)} | {' | '.join(str(classes[kind]) for kind in CLASSES)} |")
    print(f"| **all** | {answered} | {sum(overall.values())} | {' | '.join(str(overall[kind]) for kind in CLASSES)} |")
    if args.list:
        print()
        for domain, kind, question, record in listed:
            print(f"- {domain} · {kind} · {question} gold {record.gold!r}, answered {record.answer!r}")


if __name__ == "__main__":
    main()
