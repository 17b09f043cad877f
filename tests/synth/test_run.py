"""The whole run: chat-format JSONL, the split, provenance beside it, the same bytes for the same seed,
an output never half-written, and an interrupted run that goes on where it stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arkg.errors import ArkgError
from arkg.synth import Progress, Source, SynthOptions, Variant, parse_split, synthesize
from arkg.llm.file_digest import file_sha256
from arkg.synth.provenance import kg_digest

FAST = SynthOptions(variants=(Variant.GOLD, Variant.UNSETTLED))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_line_is_a_chat_with_the_reply_last_and_says_where_it_came_from(sample: Source, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    report = synthesize([sample], out, SynthOptions(), parse_split("all"))
    lines = _lines(out)
    assert len(lines) == report.pairs == 82
    for line in lines:
        assert set(line) == {"messages", "source", "question_id", "strategy", "decision", "mode", "variant"}
        assert line["messages"][-1]["role"] == "assistant"
        assert all(set(m) == {"role", "content"} and m["content"] for m in line["messages"])
        roles = [m["role"] for m in line["messages"]]
        if line["strategy"] == "kg-agent":
            assert roles == ["user", "assistant"]  # the planner's one message (the memory), then the line
        else:
            assert roles[0] == "system" and set(roles[1:-1]) <= {"user", "assistant"}
    first = lines[0]
    assert (first["source"], first["question_id"], first["strategy"], first["decision"], first["mode"], first["variant"]) == (
        "sample", "sample-1", "ark", "anchor", "constrained", "gold",
    )
    assert first["messages"][-1]["content"] == "Marie Curie"


def test_the_provenance_names_the_data_the_split_and_the_counts(sample: Source, geo: Source, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    report = synthesize([geo, sample], out, FAST, parse_split("all"), command="arkg synth ...")
    meta = json.loads(report.meta.read_text(encoding="utf-8"))
    assert report.meta == tmp_path / "pairs.jsonl.meta.json"
    assert meta["seed"] == 0 and meta["split"] == {"rule": "all"} and meta["command"] == "arkg synth ..."
    assert meta["arkg_version"] and meta["options"]["variants"] == ["gold", "unsettled"]
    geo_meta, sample_meta = meta["sources"]
    assert [f["sha256"] for f in geo_meta["files"]] == [file_sha256(path) for path in geo.files]
    digest, triples = kg_digest(geo.kg)
    assert geo_meta["kg"] == {"digest": digest, "triples": triples, "file": str(geo.kg_file)}
    assert sample_meta["programs"] == 3 and sample_meta["unusable"]["program"] == {"commonsense about a value is needed": ["sample-4"]}
    assert meta["pairs"]["total"] == report.pairs == len(_lines(out)) == geo_meta["pairs"] + sample_meta["pairs"]
    assert meta["output"]["sha256"] == file_sha256(out) and meta["output"]["lines"] == report.pairs
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == report.meta.stat().st_mode & 0o777 == 0o666 & ~mask
    assert sum(meta["pairs"]["by_variant"].values()) == report.pairs


def test_the_default_split_keeps_no_evaluation_question(sample: Source, geo: Source, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    synthesize([geo, sample], out, FAST, parse_split("default"))
    splits = {chain.id: chain.split for chain in geo.chains}
    used = {line["question_id"] for line in _lines(out)}
    assert used and all(splits.get(question_id) in ("train", "dev") for question_id in used)
    meta = json.loads((tmp_path / "pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["sources"][1]["kept_by_split"] == 0 and meta["sources"][0]["kept_by_split"] == sum(
        split != "test" for split in splits.values()
    )


def test_an_ids_file_keeps_only_its_questions_and_an_exclude_file_drops_its_own(geo: Source, tmp_path: Path) -> None:
    keep, drop = tmp_path / "keep.txt", tmp_path / "drop.txt"
    wanted = [chain.id for chain in geo.chains[:3]]
    keep.write_text("# three questions\n" + "\n".join(wanted) + "\n\n", encoding="utf-8")
    drop.write_text(wanted[0] + "  # not this one\n", encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    synthesize([geo], out, FAST, parse_split(f"ids:{keep}", drop))
    assert {line["question_id"] for line in _lines(out)} == set(wanted[1:])
    meta = json.loads((tmp_path / "pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["split"] == {
        "rule": "ids",
        "keep_only": {"path": str(keep), "sha256": file_sha256(keep), "ids": 3},
        "exclude": {"path": str(drop), "sha256": file_sha256(drop), "ids": 1},
    }


def test_bad_splits_are_errors_that_name_them(tmp_path: Path) -> None:
    with pytest.raises(ArkgError, match="unknown split 'tests'; choose one of: default, train, all, ids:FILE"):
        parse_split("tests")
    with pytest.raises(ArkgError, match="missing.txt: cannot read the ids file"):
        parse_split(f"ids:{tmp_path / 'missing.txt'}")
    (tmp_path / "empty.txt").write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ArkgError, match="empty.txt: lists no question id"):
        parse_split("all", tmp_path / "empty.txt")


def test_a_split_that_keeps_nothing_is_an_error_before_any_work(sample: Source, tmp_path: Path) -> None:
    with pytest.raises(ArkgError, match=r"the split 'default' keeps no usable question of the sources \(sample\)"):
        synthesize([sample], tmp_path / "pairs.jsonl", FAST, parse_split("default"))
    assert list(tmp_path.iterdir()) == []


def test_the_same_inputs_and_seed_give_the_same_bytes(sample: Source, geo: Source, tmp_path: Path) -> None:
    some = tmp_path / "some.txt"
    some.write_text("\n".join(chain.id for chain in [*geo.chains[::6], *sample.chains]), encoding="utf-8")
    first, second, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    synthesize([geo, sample], first, SynthOptions(seed=7), parse_split(f"ids:{some}"))
    synthesize([geo, sample], second, SynthOptions(seed=7), parse_split(f"ids:{some}"))
    synthesize([geo, sample], other, SynthOptions(seed=8), parse_split(f"ids:{some}"))
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()  # the contradicting facts are drawn by seed


def test_an_existing_output_is_kept_unless_overwriting(sample: Source, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    out.write_text("mine\n", encoding="utf-8")
    with pytest.raises(ArkgError, match="pairs.jsonl already exists"):
        synthesize([sample], out, FAST, parse_split("all"))
    assert out.read_text(encoding="utf-8") == "mine\n"
    synthesize([sample], out, FAST, parse_split("all"), overwrite=True)
    assert len(_lines(out)) > 10


class _Stop(Exception):
    pass


def _stop_after(count: int):  # type: ignore[no-untyped-def]
    def progress(update: Progress) -> None:
        if update.done == count and update.source == "geo":
            raise KeyboardInterrupt

    return progress


def test_an_interrupted_run_writes_no_output_and_the_next_run_goes_on(geo: Source, tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    synthesize([geo], whole, FAST, parse_split("all"))
    out = tmp_path / "pairs.jsonl"
    with pytest.raises(KeyboardInterrupt):
        synthesize([geo], out, FAST, parse_split("all"), progress=_stop_after(5))
    journal = tmp_path / "pairs.jsonl.partial"
    assert not out.exists() and len(journal.read_text(encoding="utf-8").splitlines()) == 1 + 5
    # A run stopped while writing a line leaves it cut short: that line is dropped and redone.
    with journal.open("a", encoding="utf-8") as file:
        file.write('{"source": "geo", "id": "cut')
    report = synthesize([geo], out, FAST, parse_split("all"))
    assert report.resumed == 5 and not journal.exists()
    assert out.read_bytes() == whole.read_bytes()


def test_an_unfinished_run_of_other_settings_is_not_mixed_in(geo: Source, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    with pytest.raises(KeyboardInterrupt):
        synthesize([geo], out, FAST, parse_split("all"), progress=_stop_after(2))
    with pytest.raises(ArkgError, match="holds an unfinished synthesis with other inputs or settings"):
        synthesize([geo], out, SynthOptions(seed=1), parse_split("all"))
    report = synthesize([geo], out, SynthOptions(seed=1, variants=(Variant.GOLD,)), parse_split("all"), overwrite=True)
    assert report.resumed == 0 and out.exists()
