"""What the answer-support check costs, and whether it accepts gold answers cited with their gold evidence.

    python bench/support_check.py [--colota ../shared/benchmarks/colota/CR-LT-QA.json] [--repeats 7]

For every CoLoTa question and every geography question (test split), the check runs on the gold answer
with the question's gold triples as citations and its gold entities as the linked ones: the sizes a
strategy's answer has on those data sets. It prints the median time per check over `--repeats` passes,
and how many gold answers the check calls supported (a gold answer it rejects with its own evidence
cited is a check too strict, or a question whose answer needs a computation the citations alone do
not show: counts, comparisons).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from arkg.agents.support import check_support
from arkg.datasets.geo import generate_questions, geo_triples, load_facts
from arkg.eval.colota import load_dataset

SHARED_COLOTA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "colota" / "CR-LT-QA.json"


def colota_cases(path: Path) -> list[tuple[str, object, list, list[str], str]]:
    dataset = load_dataset(path)
    return [(q.text, q.answer, list(q.triples), list(q.entities), "yes/no") for q in dataset.questions]


def geo_cases() -> list[tuple[str, object, list, list[str], str]]:
    questions = [q for q in generate_questions(geo_triples(load_facts())) if q.split == "test"]
    cases = []
    for q in questions:
        answer = q.answer if isinstance(q.answer, bool) else str(q.answer) if isinstance(q.answer, int) else ", ".join(q.answer)
        cases.append((q.question, answer, list(q.evidence), list(q.entities), q.kind))
    return cases


def measure(name: str, cases: list, repeats: int) -> None:
    per_check = []
    for _ in range(repeats):
        start = time.perf_counter()
        verdicts = [check_support(answer=a, question=t, cited=c, entities=e) for t, a, c, e, _ in cases]
        per_check.append((time.perf_counter() - start) / len(cases) * 1e3)
    supported = Counter(kind for (*_, kind), v in zip(cases, verdicts) if v.supported)
    total = Counter(kind for *_, kind in cases)
    cited = statistics.median(len(c) for _, _, c, _, _ in cases)
    print(f"{name}: {len(cases)} questions, median {cited:g} cited triples; check median {statistics.median(per_check):.3f} ms "
          f"(min {min(per_check):.3f}, max {max(per_check):.3f}) over {repeats} passes")
    for kind in sorted(total):
        print(f"  {kind}: gold answer supported by its gold evidence {supported[kind]}/{total[kind]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colota", type=Path, default=SHARED_COLOTA)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if args.colota.exists():
        measure("CoLoTa", colota_cases(args.colota), args.repeats)
    else:
        print(f"CoLoTa skipped: {args.colota} not found")
    measure("geography test split", geo_cases(), args.repeats)


if __name__ == "__main__":
    main()
