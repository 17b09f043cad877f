"""A training mix: a seeded sample of so many pairs per decision from `arkg synth` files.

`arkg tune --max-examples` samples the whole file evenly; a mix sets the share of each decision
instead, e.g. to give the reasoning step (where the stop is decided) more room than the anchor and
relation choices, which a tuned model learns first. Each --take names a decision, optionally a
variant (answers: gold, contradicting, unsettled), a mode, the question templates it comes from (a
geography question's id begins with its template, e.g. `born_in_country-83d99702ba`), a text the last
message of its prompt holds (`^{"relation": ""}`: the anchor chosen right after leaving one), a text its
reply holds (`~Enough to answer.`: the last step of a route), and how many pairs to draw from it. The
takes draw in order, without replacement, so a pair drawn by one take is not in a later one's group.
Several files pool their pairs (e.g. one `arkg synth` run per mode). Beside the mix goes its
provenance (OUT.meta.json: each source's digest and `arkg synth` provenance, the takes, the seed),
which `arkg tune` copies into the adapter's sidecar.

    python bench/tune_mix.py runs/pairs.jsonl --out runs/mix.jsonl --seed 0 \\
        --take reasoning@constrained=540 --take answer/gold=90 --take answer/contradicting=60 \\
        --take reasoning@free:born_in_country,birth_country_of=24 --take 'reasoning@free~Enough to answer.=40'
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

from arkg.llm.file_digest import file_sha256
from arkg.paths import write_atomically


TAKE_FORM = "decision[/variant][@mode][:template,...][^prompt text][~reply text]=N"


class Take(NamedTuple):
    decision: str
    variant: str | None
    mode: str | None
    templates: tuple[str, ...]
    prompt_holds: str | None
    reply_holds: str | None
    count: int

    def matches(self, record: dict[str, object]) -> bool:
        question_id = str(record.get("question_id", ""))
        return (
            record.get("decision") == self.decision
            and (self.variant is None or record.get("variant") == self.variant)
            and (self.mode is None or record.get("mode") == self.mode)
            and (not self.templates or any(question_id.startswith(template + "-") for template in self.templates))
            and (self.prompt_holds is None or self.prompt_holds in _message(record, -2))
            and (self.reply_holds is None or self.reply_holds in _message(record, -1))
        )

    def __str__(self) -> str:
        templates = ":" + ",".join(self.templates) if self.templates else ""
        prompt = f"^{self.prompt_holds}" if self.prompt_holds is not None else ""
        reply = f"~{self.reply_holds}" if self.reply_holds is not None else ""
        return f"{self.decision}/{self.variant or '*'}@{self.mode or '*'}{templates}{prompt}{reply}"


def parse_take(text: str) -> Take:
    """'decision[/variant][@mode][:template,...][^prompt text][~reply text]=N' -> Take."""
    key, _, count = text.rpartition("=")
    key, tilde, reply_holds = key.partition("~")
    key, caret, prompt_holds = key.partition("^")
    key, _, templates = key.partition(":")
    empty_text = (tilde and not reply_holds) or (caret and not prompt_holds)
    if not key or not count.isdigit() or (templates and not all(templates.split(","))) or empty_text:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {TAKE_FORM}")
    key, _, mode = key.partition("@")
    decision, _, variant = key.partition("/")
    templates_named = tuple(templates.split(",")) if templates else ()
    return Take(decision, variant or None, mode or None, templates_named, prompt_holds or None, reply_holds or None, int(count))


def _message(record: dict[str, object], at: int) -> str:
    """A message of the pair by position: -1 is its target (the reply), -2 the prompt's last."""
    messages = record.get("messages")
    if not isinstance(messages, list) or len(messages) < -at or not isinstance(messages[at], dict):
        return ""
    return str(messages[at].get("content", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path, nargs="+", help="arkg synth files")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--take", type=parse_take, action="append", required=True, help=TAKE_FORM)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    lines = [line for path in arguments.pairs for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    rng = random.Random(arguments.seed)
    chosen: list[str] = []
    drawn: set[int] = set()
    for take in arguments.take:
        group = [index for index, record in enumerate(records) if index not in drawn and take.matches(record)]
        if len(group) < take.count:
            raise SystemExit(f"{', '.join(map(str, arguments.pairs))}: {len(group)} pairs of {take}, {take.count} asked")
        picked = rng.sample(group, take.count)
        drawn.update(picked)
        chosen += [lines[index] for index in picked]
        print(f"{take}: {take.count} of {len(group)}")
    rng.shuffle(chosen)
    meta = {
        "format": "arkg-mix/2",
        "sources": [_provenance(path) for path in arguments.pairs],
        "takes": [
            {"decision": take.decision, "variant": take.variant, "mode": take.mode, "count": take.count}
            | ({"templates": list(take.templates)} if take.templates else {})
            | ({"prompt_holds": take.prompt_holds} if take.prompt_holds is not None else {})
            | ({"reply_holds": take.reply_holds} if take.reply_holds is not None else {})
            for take in arguments.take
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
