"""A training mix: a seeded sample of so many pairs per decision from an `arkg synth` file.

`arkg tune --max-examples` samples the whole file evenly; a mix sets the share of each decision
instead, e.g. to give the reasoning step (where the stop is decided) more room than the anchor and
relation choices, which a tuned model learns first. Each --take names a decision, optionally a
variant (answers: gold, contradicting, unsettled) and a mode, and how many pairs to draw from it;
the takes draw in order, without replacement, so a pair drawn by one take is not in a later one's group.

    python bench/tune_mix.py runs/pairs.jsonl --out runs/mix.jsonl --seed 0 \\
        --take reasoning@constrained=540 --take answer/gold=90 --take answer/contradicting=60
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def parse_take(text: str) -> tuple[str, str | None, str | None, int]:
    """'decision[/variant][@mode]=N' -> (decision, variant, mode, N)."""
    key, _, count = text.rpartition("=")
    if not key or not count.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected decision[/variant][@mode]=N")
    key, _, mode = key.partition("@")
    decision, _, variant = key.partition("/")
    return decision, variant or None, mode or None, int(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path, help="an arkg synth file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--take", type=parse_take, action="append", required=True, help="decision[/variant][@mode]=N")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    lines = [line for line in arguments.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    rng = random.Random(arguments.seed)
    chosen: list[str] = []
    drawn: set[int] = set()
    for decision, variant, mode, count in arguments.take:
        group = [
            index
            for index, record in enumerate(records)
            if index not in drawn
            and record.get("decision") == decision
            and (variant is None or record.get("variant") == variant)
            and (mode is None or record.get("mode") == mode)
        ]
        if len(group) < count:
            raise SystemExit(f"{arguments.pairs}: {len(group)} pairs of {decision}/{variant or '*'}@{mode or '*'}, {count} asked")
        picked = rng.sample(group, count)
        drawn.update(picked)
        chosen += [lines[index] for index in picked]
        print(f"{decision}/{variant or '*'}@{mode or '*'}: {count} of {len(group)}")
    rng.shuffle(chosen)
    temporary = arguments.out.with_name(f".{arguments.out.name}.partial")
    temporary.write_text("".join(line + "\n" for line in chosen), encoding="utf-8")
    temporary.replace(arguments.out)
    print(f"{len(chosen)} pairs -> {arguments.out}")


if __name__ == "__main__":
    main()
