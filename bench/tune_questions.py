"""Pick the geography questions of the tuning recipe: those it is evaluated on, and those it trains on.

Evaluation: evaluating the whole `test` split with ARK on 2 CPU cores takes hours per run, and the comparison
needs several runs; so a fixed, balanced subset is used: N yes/no and N open questions (numbers and
entities) from the `test` split only, taken round-robin over templates in file order so that every
template is represented. Deterministic: the same questions file gives the same ids.

Training: `--train N` picks N questions of the `train` split (never `test`), round-robin over
templates after a seeded shuffle within each, one id per line: the ids file that `arkg synth --split
ids:FILE` turns into training pairs (synthesizing all 3,000+ train and dev questions takes longer
than training on their pairs could use).

    python bench/tune_questions.py geo.jsonl [--per-kind 30]      # prints comma-separated ids
    python bench/tune_questions.py geo.jsonl --per-kind 60 --offset 60   # the next 60 of each kind, or fewer
    python bench/tune_questions.py geo.jsonl --train 420 [--seed 0] > train-ids.txt
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

from arkg.datasets.geo.questions import GeoQuestion, read_questions


def balanced(questions: list[GeoQuestion], count: int) -> list[GeoQuestion]:
    """Up to `count` questions, one per template in turn, templates in order of first appearance."""
    by_template: dict[str, list[GeoQuestion]] = defaultdict(list)
    for question in questions:
        by_template[question.template].append(question)
    chosen: list[GeoQuestion] = []
    depth = 0
    while len(chosen) < count and any(len(group) > depth for group in by_template.values()):
        chosen.extend(group[depth] for group in by_template.values() if len(group) > depth)
        depth += 1
    return chosen[:count]


def evaluation_ids(path: Path, per_kind: int, offset: int = 0) -> list[str]:
    """Each kind's balanced order, positions `offset` to `offset + per_kind`: a later offset draws a set
    disjoint from an earlier one's, still balanced over templates (fewer where the split runs out)."""
    test = [question for question in read_questions(path) if question.split == "test"]
    yes_no = balanced([q for q in test if q.answer_type == "boolean"], offset + per_kind)[offset:]
    open_ = balanced([q for q in test if q.answer_type != "boolean"], offset + per_kind)[offset:]
    return [question.id for question in yes_no + open_]


def training_ids(path: Path, count: int, seed: int) -> list[str]:
    train = [question for question in read_questions(path) if question.split == "train"]
    random.Random(seed).shuffle(train)
    return [question.id for question in balanced(train, count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--per-kind", type=int, default=30)
    parser.add_argument("--offset", type=int, default=0, help="skip this many of each kind first")
    parser.add_argument("--train", type=int, help="print this many training question ids instead")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.train:
        print("\n".join(training_ids(args.questions, args.train, args.seed)))
    else:
        print(",".join(evaluation_ids(args.questions, args.per_kind, args.offset)))


if __name__ == "__main__":
    main()
