"""A strategy's training mix for one KG: pairs of the KG's own questions and a share replayed from the
shipped adapters' training domains, each drawn evenly over the kinds of decision they teach."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from arkg.llm.file_digest import file_sha256
from arkg.paths import write_atomically

MIX_FORMAT = "arkg-adapt-mix/1"
META_SUFFIX = ".meta.json"  # the provenance `arkg synth` writes beside its pairs, and this beside the mix


def read_records(path: Path) -> list[dict[str, object]]:
    """The pair records of an `arkg synth` file, as written (its own tool checked them)."""
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def draw_evenly(records: Sequence[dict[str, object]], count: int, rng: random.Random) -> list[dict[str, object]]:
    """Up to `count` records, taken in turn from each kind (decision, variant, mode) so that a kind with
    thousands of pairs (reasoning steps) does not crowd out one with tens (a final answer's refusal)."""
    groups: dict[tuple[object, ...], list[dict[str, object]]] = {}
    for record in records:
        groups.setdefault((record.get("decision"), record.get("variant"), record.get("mode")), []).append(record)
    for group in groups.values():
        rng.shuffle(group)
    queues = [groups[key] for key in sorted(groups, key=str)]
    drawn: list[dict[str, object]] = []
    while len(drawn) < count and any(queues):
        for queue in queues:
            if queue and len(drawn) < count:
                drawn.append(queue.pop())
    return drawn


def write_mix(own: Path, replay: Path | None, out: Path, *, pairs: int, replay_share: float, seed: int) -> tuple[int, int]:
    """Write the mix to `out` (whole or not at all); returns how many of its pairs are the KG's own and
    how many replayed. The KG's own pairs fill what the replay leaves when they are fewer than asked."""
    rng = random.Random(seed)
    replayed_wanted = round(pairs * replay_share) if replay is not None else 0
    mine = draw_evenly(read_records(own), pairs - replayed_wanted, rng)
    replayed = draw_evenly(read_records(replay), replayed_wanted, rng) if replay is not None else []
    mixed = mine + replayed
    rng.shuffle(mixed)
    write_atomically(out, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in mixed))
    # Beside the mix, as `arkg synth` leaves its provenance: `arkg tune` copies it into the sidecar.
    sources = [(own, len(mine))] + ([(replay, len(replayed))] if replay is not None else [])
    provenance = {
        "format": MIX_FORMAT,
        "sources": [{"file": path.name, "sha256": file_sha256(path), "drawn": drawn, "synth": _synth_meta(path)} for path, drawn in sources],
        "pairs": pairs,
        "replay_share": replay_share,
        "seed": seed,
    }
    write_atomically(out.with_name(out.name + META_SUFFIX), json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    return len(mine), len(replayed)


def _synth_meta(path: Path) -> object:
    meta = path.with_name(path.name + META_SUFFIX)
    return json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else None
