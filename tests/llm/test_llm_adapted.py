"""The record `arkg adapt` leaves beside a KG: where it lives, what a run naming no model takes from it,
and the clear refusal of one that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest
from adapted_records import write_record

from arkg.errors import ModelError
from arkg.llm.adapted import (
    BaseModelFile,
    adapted_default_strategy,
    adapted_folder,
    kg_model_spec,
    read_adapted,
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "kg.db"
    path.write_bytes(b"")
    return path


def test_where_adapters_live(store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "cache"))
    assert adapted_folder(str(store)) == adapted_folder(store) == tmp_path / "kg.db.adapted"
    assert adapted_folder(None) == adapted_folder("sample") == tmp_path / "cache" / "adapted" / "sample"
    remote = adapted_folder("wikidata:https://query.wikidata.org/sparql")
    assert remote.parent == tmp_path / "cache" / "adapted" and remote != adapted_folder("bolt://localhost:7687")


def test_a_kg_without_a_record_keeps_the_shipped_adapters(store: Path) -> None:
    assert read_adapted(str(store)) is None and adapted_default_strategy(str(store)) is None
    assert kg_model_spec(str(store), read_adapted(str(store)), "ark", "tuned") == "llamacpp:tuned"
    assert kg_model_spec(str(store), read_adapted(str(store)), "cot", None) == "llamacpp"


def test_a_record_gives_its_adapters_and_best_strategy(store: Path) -> None:
    written = write_record(store.parent / "kg.db.adapted", best="ark")
    assert read_adapted(str(store)) == written and adapted_default_strategy(str(store)) == "ark"
    assert kg_model_spec(str(store), read_adapted(str(store)), "ark", "tuned") == f"llamacpp:+{store.parent / 'kg.db.adapted' / 'adapted-ark.gguf'}"
    # A strategy adapt made no adapter for keeps its shipped one.
    assert kg_model_spec(str(store), read_adapted(str(store)), "kg-agent", "tuned-kg-agent") == "llamacpp:tuned-kg-agent"


def test_an_adapter_that_scored_lower_is_not_used(store: Path) -> None:
    write_record(store.parent / "kg.db.adapted", used=False)
    assert kg_model_spec(str(store), read_adapted(str(store)), "ark", "tuned") == "llamacpp:tuned"


def test_a_record_made_for_another_base_model_is_refused(store: Path) -> None:
    write_record(store.parent / "kg.db.adapted", base=BaseModelFile(file="other-360M.gguf", bytes=123, sha256="1" * 64))
    with pytest.raises(ModelError, match=r"kg\.db\.adapted/adapted\.json: its adapters were tuned on other-360M\.gguf \(123 bytes\), not on the bundled"):
        read_adapted(str(store))


def test_a_damaged_record_or_a_missing_adapter_is_refused_by_name(store: Path) -> None:
    folder = store.parent / "kg.db.adapted"
    write_record(folder)
    (folder / "adapted-ark.gguf").unlink()
    with pytest.raises(ModelError, match=r"the adapter of ark, .*adapted-ark\.gguf, is missing; run `arkg adapt` again"):
        read_adapted(str(store))
    (folder / "adapted.json").write_text('{"format": "arkg-adapted/1", "kg": 3}', encoding="utf-8")
    with pytest.raises(ModelError, match=r"adapted\.json: not an arkg adapt record \(kg: "):
        read_adapted(str(store))
