"""Write the held-out domains (docs/synth-domains.md) as a KG file and a question file each.

    python bench/heldout_domains.py --out heldout          # heldout/<domain>/kg.jsonl, questions.jsonl
    python bench/heldout_domains.py --out heldout --seed 1 --per-template 20

The same seed gives the same files. No training pair comes from these domains, and none of their
relation or entity type names is a training domain's. Prints, per domain, the triples and the mix of
questions (yes/no true and false, open; hops; kinds). Evaluate them with bench/heldout_eval.py.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from arkg.synth.domains import DEFAULT_PER_TEMPLATE
from arkg.synth.domains.export import KG_FILE, QUESTIONS_FILE, write_held_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="Folder to write <domain>/kg.jsonl and questions.jsonl into.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-template", type=int, default=DEFAULT_PER_TEMPLATE, help="Questions per template and domain.")
    args = parser.parse_args()
    print("| domain | triples | questions | yes | no | open | 1 hop | 2 hops | 3 hops | kinds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in write_held_out(args.out, args.seed, args.per_template):
        triples = sum(1 for _ in (folder / KG_FILE).open(encoding="utf-8"))
        questions = [json.loads(line) for line in (folder / QUESTIONS_FILE).open(encoding="utf-8")]
        answers = Counter("yes" if q["answer"] is True else "no" if q["answer"] is False else "open" for q in questions)
        hops = Counter(q["hops"] for q in questions)
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(Counter(q["kind"] for q in questions).items()))
        print(
            f"| {folder.name} | {triples} | {len(questions)} | {answers['yes']} | {answers['no']} | {answers['open']} "
            f"| {hops[1]} | {hops[2]} | {hops[3]} | {kinds} |"
        )


if __name__ == "__main__":
    main()
