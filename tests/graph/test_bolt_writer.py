"""The Bolt backend's write path on a real FalkorDB server: a file is checked before anything is written,
props keep their types, a load that stopped takes up where it stopped, and a loaded file is skipped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bolt import falkordb

from arkg.errors import LoadError
from arkg.graph.bolt import BoltConnection, BoltGraph, BoltWriter
from arkg.graph.model import KGStats, Triple


@pytest.fixture
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with falkordb(tmp_path_factory.mktemp("falkordb")) as url:
        yield url


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return path


def _edge_count(url: str) -> int:
    with BoltConnection(url) as connection:
        return connection.read("MATCH ()-[r]->() RETURN count(r) AS edges")[0]["edges"]


def test_props_keep_their_types_and_odd_names_their_spelling(url: str, tmp_path: Path) -> None:
    records = [
        {"head": "it's", "relation": "date of birth", "tail": "back\\slash", "props": {"start time": "1880", "votes": -42, "share": 1e-09, "ok": True, "gone": None}},
        {"head": "Zoë 東京", "relation": "near", "tail": "it's", "props": {"weight": 0.1}},
    ]
    with BoltWriter(url) as writer:
        assert writer.load(_write_jsonl(tmp_path / "kg.jsonl", records)) == 2
    with BoltGraph(url) as graph:
        assert graph.triples("it's", "date of birth") == [
            Triple("it's", "date of birth", "back\\slash", {"ok": True, "share": 1e-09, "start time": "1880", "votes": -42})
        ]
        assert graph.triples("Zoë 東京", "near") == [Triple("Zoë 東京", "near", "it's", {"weight": 0.1})]


def test_a_bad_triple_anywhere_in_the_file_writes_nothing(url: str, tmp_path: Path) -> None:
    records = [{"head": f"h{i}", "relation": "r", "tail": f"t{i}"} for i in range(2_500)]
    records.append({"head": "a", "relation": "has `backtick`", "tail": "b"})
    with BoltWriter(url) as writer, pytest.raises(LoadError) as refused:
        writer.load(_write_jsonl(tmp_path / "kg.jsonl", records))
    assert "triple 2501" in str(refused.value) and "?relation=PROPERTY" in str(refused.value)
    assert _edge_count(url) == 0
    with pytest.raises(LoadError, match="NUL"), BoltWriter(url) as writer:
        writer.add_triples([Triple("a\x00b", "r", "c")])


def test_a_relation_property_holds_names_no_type_can(url: str, tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "kg.jsonl", [{"head": "a", "relation": "has `backtick`", "tail": "b"}])
    with BoltWriter(url + "?relation=rel") as writer:
        assert writer.load(path) == 1
    with BoltGraph(url + "?relation=rel") as graph:
        assert graph.triples("a", "has `backtick`") == [Triple("a", "has `backtick`", "b")]


def test_a_stopped_load_takes_up_where_it_stopped_and_a_loaded_file_is_skipped(url: str, tmp_path: Path) -> None:
    records = [{"head": f"head {i % 700}", "relation": f"r{i % 3}", "tail": f"tail {i}"} for i in range(2_600)]
    path = _write_jsonl(tmp_path / "kg.jsonl", records)

    def stop_after_the_first_batch(done: int) -> None:
        raise KeyboardInterrupt

    with BoltWriter(url) as writer:
        with pytest.raises(KeyboardInterrupt):
            writer.load(path, progress=stop_after_the_first_batch, skip_loaded=True)
        assert _edge_count(url) == 1_000
        seen: list[int] = []
        assert writer.load(path, progress=seen.append, skip_loaded=True) == 2_600
        assert seen == [1_000, 2_000, 2_600]
        assert writer.load(path, skip_loaded=True) is None
    assert _edge_count(url) == 2_600
    with BoltGraph(url) as graph:
        assert graph.stats() == KGStats(triples=2_600, entities=3_300, heads=700, relations=3)
        assert [t.tail for t in graph.triples("head 5", "r2")] == ["tail 5", "tail 2105"]
