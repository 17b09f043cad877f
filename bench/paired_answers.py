"""Two results files of the same questions, before and after a change that leaves the system's label alone
(a prompt, a fix): how many answers are right on each side, how many changed, and the exact McNemar p.

    python bench/paired_answers.py before.jsonl after.jsonl

Only questions answered (no error) in both files count; the failed ones are listed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from arkg.eval.stats import mcnemar_p


def records(path: Path) -> dict[str, dict]:
    """Question id -> record (the header line has no question id)."""
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {record["question_id"]: record for record in lines if "question_id" in record}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = records(args.before), records(args.after)
    common = [q for q in before if q in after and before[q]["error"] is None and after[q]["error"] is None]
    only_before = sum(before[q]["correct"] and not after[q]["correct"] for q in common)
    only_after = sum(after[q]["correct"] and not before[q]["correct"] for q in common)
    print("| questions (both answered) | right before | right after | answers changed | only before right | only after right | McNemar p |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {len(common)} | {sum(before[q]['correct'] for q in common)} | {sum(after[q]['correct'] for q in common)} "
        f"| {sum(before[q]['answer'] != after[q]['answer'] for q in common)} | {only_before} | {only_after} "
        f"| {mcnemar_p(only_before, only_after):.3f} |"
    )
    for name, side in (("before", before), ("after", after)):
        failed = sorted(q for q, record in side.items() if record["error"] is not None)
        if failed:
            print(f"failed {name}: {', '.join(failed)}")


if __name__ == "__main__":
    main()
