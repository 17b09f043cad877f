"""A strategy's training mix for one KG: every kind of decision drawn in turn, the replayed share kept,
and the provenance `arkg tune` copies into the adapter's sidecar."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from arkg.tune.adapt.mix import draw_evenly, write_mix


def _records(source: str, kinds: dict[tuple[str, str], int]) -> list[dict[str, object]]:
    return [
        {"source": source, "question_id": f"{source}-{decision}-{index}", "decision": decision, "mode": mode, "variant": "gold", "messages": []}
        for (decision, mode), count in kinds.items()
        for index in range(count)
    ]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    path.with_name(path.name + ".meta.json").write_text(json.dumps({"command": f"arkg synth --out {path.name}"}), encoding="utf-8")
    return path


def test_a_rare_decision_is_not_crowded_out() -> None:
    records = _records("kg", {("reasoning", "free"): 500, ("answer", "free"): 5, ("anchor", "constrained"): 50})
    drawn = draw_evenly(records, 30, random.Random(0))
    counts = Counter(record["decision"] for record in drawn)
    assert counts == {"answer": 5, "anchor": 13, "reasoning": 12}  # in turn: anchor, answer, reasoning
    assert len({record["question_id"] for record in drawn}) == 30  # without replacement
    assert len(draw_evenly(records, 10_000, random.Random(0))) == len(records)


def test_the_mix_keeps_the_replayed_share_and_its_provenance(tmp_path: Path) -> None:
    own = _write(tmp_path / "pairs.jsonl", _records("kg", {("line", "free"): 40, ("line", "constrained"): 40}))
    replay = _write(tmp_path / "replay.jsonl", _records("domains", {("line", "free"): 100}))
    out = tmp_path / "mix.jsonl"
    assert write_mix(own, replay, out, pairs=40, replay_share=0.25, seed=1) == (30, 10)
    mixed = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert Counter(record["source"] for record in mixed) == {"kg": 30, "domains": 10}
    assert [record["source"] for record in mixed] != sorted(record["source"] for record in mixed)  # shuffled
    meta = json.loads((tmp_path / "mix.jsonl.meta.json").read_text(encoding="utf-8"))
    assert [(source["file"], source["drawn"]) for source in meta["sources"]] == [("pairs.jsonl", 30), ("replay.jsonl", 10)]
    assert meta["sources"][1]["synth"] == {"command": "arkg synth --out replay.jsonl"}
    # The same inputs and seed give the same file.
    first = out.read_bytes()
    write_mix(own, replay, out, pairs=40, replay_share=0.25, seed=1)
    assert out.read_bytes() == first


def test_fewer_own_pairs_than_asked_are_all_used(tmp_path: Path) -> None:
    own = _write(tmp_path / "pairs.jsonl", _records("kg", {("line", "free"): 5}))
    assert write_mix(own, None, tmp_path / "mix.jsonl", pairs=40, replay_share=0.0, seed=0) == (5, 0)
