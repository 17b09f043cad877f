"""Compare two row files of bench/agent.py (e.g. the code before and after a change), on the questions both finished.

Calls and tokens are deterministic at temperature 0, so they compare code across runs made at different
times or side by side; wall time does not, and is left out.

    python bench/agent_compare.py BEFORE.jsonl AFTER.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def load(path: Path) -> dict[tuple[str, str], dict]:
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {(row["mode"], row["question_id"]): row for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    runs = {"before": load(args.before), "after": load(args.after)}
    common = set(runs["before"]) & set(runs["after"])
    print(
        "| mode | code | questions | model calls | prompt tokens | completion tokens | invalid attempts | "
        "reasoning steps | calls/question (median) | prompt tokens/question (median) | correct |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for mode in dict.fromkeys(mode for mode, _ in sorted(common)):
        keys = sorted((key for key in common if key[0] == mode), key=lambda key: int(key[1].lstrip("S")))
        for name, rows_by_key in runs.items():
            rows = [rows_by_key[key] for key in keys]
            print(
                f"| {mode} | {name} | {len(rows)} | {sum(r['calls'] for r in rows)} | "
                f"{sum(r['prompt_tokens'] for r in rows):,} | {sum(r['completion_tokens'] for r in rows):,} | "
                f"{sum(r['invalid'] for r in rows)} | {sum(r['steps'] for r in rows)} | "
                f"{statistics.median(r['calls'] for r in rows):g} | {statistics.median(r['prompt_tokens'] for r in rows):,g} | "
                f"{sum(r['correct'] for r in rows)}/{len(rows)} |"
            )
        before, after = runs["before"], runs["after"]
        calls = statistics.median(after[key]["calls"] / before[key]["calls"] for key in keys)
        tokens = statistics.median(after[key]["prompt_tokens"] / before[key]["prompt_tokens"] for key in keys)
        ratios.append(f"{mode}: questions {keys[0][1]}-{keys[-1][1]}; after/before per question (median): calls {calls:.2f}, prompt tokens {tokens:.2f}")
    print("", *ratios, sep="\n")


if __name__ == "__main__":
    main()
