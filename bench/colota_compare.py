"""Which differences between systems on the same questions are larger than chance? Paired comparisons of
results files written by `arkg eval`.

For each pair of systems (single runs over the same questions) it prints both overall accuracies, the
difference, and the exact two-sided McNemar p-value: under "no difference", the questions that one
system answers correctly and the other does not split 50/50 between the two. Also the 95% binomial
interval of each accuracy (Wilson), the noise a single system's figure carries at this n.

    python bench/colota_compare.py runs/colota-ark.jsonl runs/colota-cot.jsonl ...
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections import Counter
from pathlib import Path

from arkg.eval.report import build_report


def mcnemar_p(only_first: int, only_second: int) -> float:
    """Exact two-sided McNemar test: binomial(n = discordant pairs, 1/2)."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    k = min(only_first, only_second)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def wilson(correct: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    systems = [system for system in build_report(args.results) if system.scores.runs == 1]
    correct = {
        system.label: {question: record.correct for (question, _), record in system.records.items()} for system in systems
    }
    print("| system | questions | overall acc. % | 95% interval | answers True / False / None |")
    print("|---|---|---|---|---|")
    for system in systems:
        right, n = sum(correct[system.label].values()), len(correct[system.label])
        low, high = wilson(right, n)
        # Open answers (entity lists, numbers: geography results) are not tallied; None is any abstention.
        answers = Counter(r.answer for r in system.records.values() if r.answer is None or isinstance(r.answer, bool))
        print(
            f"| {system.label} | {n} | {right / n * 100:.1f} | {low * 100:.1f}-{high * 100:.1f} "
            f"| {answers[True]} / {answers[False]} / {answers[None]} |"
        )
    # What answering the same thing every time scores (over the first system's questions): the floor to clear.
    golds = Counter(r.gold for r in systems[0].records.values() if isinstance(r.gold, bool)) if systems else Counter()
    for constant in (True, False):
        if golds[constant]:
            share = golds[constant] / sum(golds.values()) * 100
            print(f"| always {constant} | {sum(golds.values())} | {share:.1f} | | |")
    print()
    print("| system A | system B | common | acc. A % | acc. B % | A−B (pp) | only A right | only B right | McNemar p |")
    print("|---|---|---|---|---|---|---|---|---|")
    for first, second in itertools.combinations(systems, 2):
        a, b = correct[first.label], correct[second.label]
        common = sorted(a.keys() & b.keys())
        if not common:
            continue
        only_a = sum(a[q] and not b[q] for q in common)
        only_b = sum(b[q] and not a[q] for q in common)
        acc_a = sum(a[q] for q in common) / len(common) * 100
        acc_b = sum(b[q] for q in common) / len(common) * 100
        print(
            f"| {first.label} | {second.label} | {len(common)} | {acc_a:.1f} | {acc_b:.1f} | {acc_a - acc_b:+.1f} "
            f"| {only_a} | {only_b} | {mcnemar_p(only_a, only_b):.3f} |"
        )


if __name__ == "__main__":
    main()
