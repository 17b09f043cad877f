"""How many right and wrong answers the answer-support check marks unsupported, per results file.

    python bench/support_figures.py RESULTS.jsonl [...]

A right answer marked unsupported is one the citations do not show (a lucky guess, or a fact the model
knew); a wrong one marked unsupported is a mistake the check catches before anyone reads the answer.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from arkg.eval.results import read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    print("| strategy | model | questions | answered | right (unsupported) | wrong (unsupported) | basis |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in args.results:
        results = read_results(path)
        records = list(results.latest().values())
        answered = [r for r in records if r.answer is not None]
        right = [r for r in answered if r.correct]
        wrong = [r for r in answered if not r.correct]
        basis = Counter(r.grounding.basis for r in records if r.grounding is not None)
        config = results.config
        print(
            f"| {config.strategy} | {config.model} | {len(records)} | {len(answered)} | {len(right)} ({_unsupported(right)}) "
            f"| {len(wrong)} ({_unsupported(wrong)}) | {', '.join(f'{k} {v}' for k, v in basis.most_common())} |"
        )


def _unsupported(records: list) -> int:
    return sum(1 for r in records if r.support is not None and not r.support.supported)


if __name__ == "__main__":
    main()
