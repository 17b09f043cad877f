"""A training mix: a seeded sample of so many pairs per decision from `arkg synth` files.

`arkg tune --max-examples` samples the whole file evenly; a mix sets the share of each decision
instead, e.g. to give the reasoning step (where the stop is decided) more room than the anchor and
relation choices, which a tuned model learns first. Each --take names a decision, optionally a
variant (answers: gold, contradicting, unsettled) and a mode, and how many pairs to draw from it;
the takes draw in order, without replacement, so a pair drawn by one take is not in a later one's group.
Several files pool their pairs (e.g. one `arkg synth` run per mode). Beside the mix goes its provenance
(OUT.meta.json: each source's digest and `arkg synth` provenance, the takes, the seed), which `arkg tune`
copies into the adapter's sidecar.

    python bench/tune_mix.py runs/pairs.jsonl --out runs/mix.jsonl --seed 0 \\
        --take reasoning@constrained=540 --take answer/gold=90 --take answer/contradicting=60
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path

from arkg.llm.file_digest import file_sha256
from arkg.paths import write_atomically


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
    parser.add_argument("pairs", type=Path, nargs="+", help="arkg synth files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--take", type=parse_take, action="append", required=True, help="decision[/variant][@mode]=N")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    lines = [line for path in arguments.pairs for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
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
            raise SystemExit(f"{', '.join(map(str, arguments.pairs))}: {len(group)} pairs of {decision}/{variant or '*'}@{mode or '*'}, {count} asked")
        picked = rng.sample(group, count)
        drawn.update(picked)
        chosen += [lines[index] for index in picked]
        print(f"{decision}/{variant or '*'}@{mode or '*'}: {count} of {len(group)}")
    rng.shuffle(chosen)
    meta = {
        "format": "arkg-mix/2",
        "sources": [_provenance(path) for path in arguments.pairs],
        "takes": [
            {"decision": decision, "variant": variant, "mode": mode, "count": count}
            for decision, variant, mode, count in arguments.take
        ],
        "seed": arguments.seed,
        "command": shlex.join(["python", "bench/tune_mix.py", *sys.argv[1:]]),
    }
    write_atomically(arguments.out.with_name(arguments.out.name + ".meta.json"), json.dumps(meta, indent=2) + "\n")
    write_atomically(arguments.out, "".join(line + "\n" for line in chosen))
    print(f"{len(chosen)} pairs -> {arguments.out}")


def _provenance(pairs: Path) -> dict[str, object]:
    synth_meta = pairs.with_name(pairs.name + ".meta.json")
    return {
        "file": pairs.name,
        "sha256": file_sha256(pairs),
        "synth": json.loads(synth_meta.read_text(encoding="utf-8")) if synth_meta.is_file() else None,
    }


if __name__ == "__main__":
    main()
