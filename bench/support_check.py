"""What the answer-support check costs, and whether it accepts gold answers cited with their gold evidence.

    python bench/support_check.py [--colota ../shared/benchmarks/colota/CR-LT-QA.json] [--repeats 7]

For every CoLoTa question and every geography question (test split), the check runs on the gold answer
with the question's gold triples as citations and its gold entities as the linked ones: the sizes a
strategy's answer has on those data sets. It prints the median time of one check (each timed
`--repeats` times),
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
from arkg.graph import SQLiteGraph

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


def measure(name: str, cases: list, repeats: int, triples: list | None = None) -> None:
    """Each check timed alone, `repeats` times; a question's time is its median, and the table gives the
    median over questions and the slowest ones (answers resting on hundreds of facts). The KG the check
    reads is `triples` (the geography KG) or else the union of every question's gold triples (as CoLoTa's
    evaluation builds it); the first check's one-time costs (the static embeddings) are paid before timing."""
    per_question = []
    verdicts = []
    kg = SQLiteGraph()
    kg.add_triples(triples or [triple for _, _, cited, _, _ in cases for triple in cited])  # loading is idempotent
    check_support(answer=True, question="warm up", cited=[cases[0][2][0]], kg=kg)
    for text, answer, cited, entities, _ in cases:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            verdict = check_support(answer=answer, question=text, cited=cited, entities=entities, kg=kg)
            times.append((time.perf_counter() - start) * 1e3)
        per_question.append(statistics.median(times))
        verdicts.append(verdict)
    supported = Counter(kind for (*_, kind), v in zip(cases, verdicts) if v.supported)
    total = Counter(kind for *_, kind in cases)
    sizes = [len(cited) for _, _, cited, _, _ in cases]
    ordered = sorted(per_question)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    slowest = max(range(len(cases)), key=per_question.__getitem__)
    print(f"{name}: {len(cases)} questions, cited triples median {statistics.median(sizes):g}, max {max(sizes)}")
    print(f"  check per answer: median {statistics.median(per_question):.3f} ms, 95th percentile {p95:.3f} ms, "
          f"slowest {per_question[slowest]:.1f} ms ({sizes[slowest]} cited triples); median of {repeats} runs each")
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
    measure("geography test split", geo_cases(), args.repeats, list(geo_triples(load_facts())))


if __name__ == "__main__":
    main()
