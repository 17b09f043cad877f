"""bench/tune_mix.py: so many pairs per decision, drawn with a seed, or a refusal that names the group."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

MIX = Path(__file__).resolve().parents[2] / "bench" / "tune_mix.py"


def _pairs(path: Path) -> Path:
    kinds = [("reasoning", "constrained", "gold")] * 6 + [("reasoning", "free", "gold")] * 3 + [("answer", "any", "gold")] * 4
    kinds += [("answer", "any", "contradicting")] * 2
    lines = [
        json.dumps({"messages": [{"role": "user", "content": f"q{i}"}], "decision": d, "mode": m, "variant": v})
        for i, (d, m, v) in enumerate(kinds)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.with_name("pairs.jsonl.meta.json").write_text('{"split": "train"}', encoding="utf-8")
    return path


def _mix(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, MIX, *map(str, arguments)], capture_output=True, text=True, check=False)


def test_each_take_draws_its_count_from_its_group_and_the_seed_fixes_the_draw(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path / "pairs.jsonl")
    takes = ["--take", "reasoning@constrained=4", "--take", "answer/contradicting=2", "--take", "answer=1"]
    first = _mix(pairs, "--out", tmp_path / "a.jsonl", "--seed", "3", *takes)
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = Counter((r["decision"], r["mode"], r["variant"]) for r in records)
    assert kinds[("reasoning", "constrained", "gold")] == 4 and kinds[("answer", "any", "contradicting")] >= 2
    assert sum(kinds.values()) == 7 and ("reasoning", "free", "gold") not in kinds
    assert len({json.dumps(r) for r in records}) == 7  # the later "answer" take draws from what is left
    meta = json.loads((tmp_path / "a.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["sources"] == [
        {"file": "pairs.jsonl", "sha256": hashlib.sha256(pairs.read_bytes()).hexdigest(), "synth": {"split": "train"}}
    ]
    assert meta["seed"] == 3 and meta["takes"][0] == {"decision": "reasoning", "variant": None, "mode": "constrained", "count": 4}
    _mix(pairs, "--out", tmp_path / "b.jsonl", "--seed", "3", *takes)
    assert (tmp_path / "a.jsonl").read_text(encoding="utf-8") == (tmp_path / "b.jsonl").read_text(encoding="utf-8")


def test_asking_more_than_a_group_holds_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path / "pairs.jsonl")
    refused = _mix(pairs, "--out", tmp_path / "mix.jsonl", "--take", "reasoning@free=5")
    assert refused.returncode != 0 and "3 pairs of reasoning/*@free, 5 asked" in refused.stderr
    assert not (tmp_path / "mix.jsonl").exists() and not (tmp_path / "mix.jsonl.meta.json").exists()
    malformed = _mix(pairs, "--out", tmp_path / "mix.jsonl", "--take", "reasoning")
    assert malformed.returncode == 2 and "expected decision[/variant][@mode][:template,...][^prompt text][~reply text]=N" in malformed.stderr


def test_several_files_pool_their_pairs_and_each_is_in_the_provenance(tmp_path: Path) -> None:
    first = _pairs(tmp_path / "pairs.jsonl")
    second = tmp_path / "free.jsonl"
    second.write_text(
        "".join(json.dumps({"messages": [{"role": "user", "content": f"f{i}"}], "decision": "anchor", "mode": "free"}) + "\n" for i in range(3)),
        encoding="utf-8",
    )
    mixed = _mix(first, second, "--out", tmp_path / "mix.jsonl", "--take", "anchor@free=3", "--take", "answer/gold=4")
    assert mixed.returncode == 0, mixed.stderr
    records = [json.loads(line) for line in (tmp_path / "mix.jsonl").read_text(encoding="utf-8").splitlines()]
    assert Counter((r["decision"], r["mode"]) for r in records) == {("anchor", "free"): 3, ("answer", "any"): 4}
    meta = json.loads((tmp_path / "mix.jsonl.meta.json").read_text(encoding="utf-8"))
    assert [(source["file"], source["synth"]) for source in meta["sources"]] == [("pairs.jsonl", {"split": "train"}), ("free.jsonl", None)]


def test_a_take_can_keep_to_question_templates_named_by_the_id_prefix(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    ids = ["born_in_country-0a", "born_in_country-0b", "birth_country_of-1a", "born_in_city-2a", "born_in_country_x-3a"]
    pairs.write_text(
        "".join(json.dumps({"messages": [], "decision": "reasoning", "mode": "free", "question_id": i}) + "\n" for i in ids),
        encoding="utf-8",
    )
    mixed = _mix(pairs, "--out", tmp_path / "mix.jsonl", "--take", "reasoning@free:born_in_country,birth_country_of=3")
    assert mixed.returncode == 0, mixed.stderr
    assert "reasoning/*@free:born_in_country,birth_country_of: 3 of 3" in mixed.stdout
    drawn = {json.loads(line)["question_id"] for line in (tmp_path / "mix.jsonl").read_text(encoding="utf-8").splitlines()}
    assert drawn == {"born_in_country-0a", "born_in_country-0b", "birth_country_of-1a"}
    meta = json.loads((tmp_path / "mix.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["takes"] == [
        {"decision": "reasoning", "variant": None, "mode": "free", "count": 3, "templates": ["born_in_country", "birth_country_of"]}
    ]
    # A template that is only a prefix of another's name does not take the other's pairs.
    refused = _mix(pairs, "--out", tmp_path / "more.jsonl", "--take", "reasoning:born_in=1")
    assert refused.returncode != 0 and "0 pairs of reasoning/*@*:born_in, 1 asked" in refused.stderr
    for malformed in ("reasoning:born_in_city,=1", "reasoning~=1", "reasoning^=1"):
        refused = _mix(pairs, "--out", tmp_path / "more.jsonl", "--take", malformed)
        assert refused.returncode == 2 and "expected decision[/variant][@mode][:template,...][^prompt text][~reply text]=N" in refused.stderr


def test_a_take_can_keep_to_pairs_whose_reply_holds_a_text(tmp_path: Path) -> None:
    """The last step of a route is the reasoning reply that says it is enough; the text may hold '=' and ':'."""
    pairs = tmp_path / "pairs.jsonl"
    replies = {"b-1": "Next: Chad, area.", "b-2": "Enough to answer.", "c-1": "Next: x=1: y.", "c-2": "Enough to answer."}
    records = [
        {
            "messages": [{"role": "user", "content": "Enough to answer."}, {"role": "assistant", "content": reply}],
            "decision": "reasoning",
            "mode": "free",
            "question_id": question_id,
        }
        for question_id, reply in replies.items()
    ]
    pairs.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    mixed = _mix(pairs, "--out", tmp_path / "mix.jsonl", "--take", "reasoning:b~Enough to answer.=1", "--take", "reasoning~x=1: y=1")
    assert mixed.returncode == 0, mixed.stderr
    assert "reasoning/*@*:b~Enough to answer.: 1 of 1" in mixed.stdout and "reasoning/*@*~x=1: y: 1 of 1" in mixed.stdout
    drawn = {json.loads(line)["question_id"] for line in (tmp_path / "mix.jsonl").read_text(encoding="utf-8").splitlines()}
    assert drawn == {"b-2", "c-1"}
    meta = json.loads((tmp_path / "mix.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["takes"][0]["reply_holds"] == "Enough to answer." and meta["takes"][1]["reply_holds"] == "x=1: y"


def test_a_take_can_keep_to_pairs_whose_prompt_ends_in_a_text(tmp_path: Path) -> None:
    """The anchor chosen right after the reply "" that left one: the prompt's last message is that reply."""
    pairs = tmp_path / "pairs.jsonl"
    prompts = {"a-1": "Not found: ...", "a-2": '{"relation": ""}', "a-3": '{"relation": ""} earlier'}
    records = [
        {
            "messages": [{"role": "user", "content": '{"relation": ""}'}, {"role": "assistant", "content": last},
                         {"role": "assistant", "content": '{"anchor_entity": "Paris"}'}],
            "decision": "anchor-retry",
            "mode": "free",
            "question_id": question_id,
        }
        for question_id, last in prompts.items()
    ]  # fmt: skip
    pairs.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    mixed = _mix(pairs, "--out", tmp_path / "mix.jsonl", "--take", 'anchor-retry^{"relation": ""}~Paris=2')
    assert mixed.returncode == 0, mixed.stderr
    assert 'anchor-retry/*@*^{"relation": ""}~Paris: 2 of 2' in mixed.stdout
    drawn = {json.loads(line)["question_id"] for line in (tmp_path / "mix.jsonl").read_text(encoding="utf-8").splitlines()}
    assert drawn == {"a-2", "a-3"}  # not a-1, whose earlier message alone holds the text
    meta = json.loads((tmp_path / "mix.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["takes"][0]["prompt_holds"] == '{"relation": ""}' and meta["takes"][0]["reply_holds"] == "Paris"
