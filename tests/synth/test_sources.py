"""Chains from each source: CoLoTa's reasoning steps, the geography questions, the sample questions;
every question either becomes a chain or is reported with why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.datasets.geo import read_questions, write_questions
from arkg.errors import ArkgError, LoadError
from arkg.graph.model import Direction, Triple
from arkg.synth import Reason, Source, colota_source, geo_source


def _holds(source: Source) -> bool:
    return all(
        triple in source.kg.triples(triple.head, triple.relation, Direction.OUT)
        for chain in source.chains
        for triple in chain.triples
    )


def test_colota_chains_are_the_facts_of_the_reasoning_steps_in_order(colota_dir: Path) -> None:
    source = colota_source(colota_dir / "CR-LT-QA.json")
    try:
        by_id = {chain.id: chain for chain in source.chains}
        assert len(source.chains) + len(source.unusable) == 200
        s3 = by_id["S3"]
        assert [fact.stated.as_dict()["relation"] for fact in s3.facts] == ["spouse", "occupation"]
        assert [step.text for step in s3.steps] == [
            "Leopold Lanner's wife is Stefanie Hertel.",
            "Stefanie Hertel's occupation is singer which is related to using voice.",
        ]
        assert s3.topic_entities == ("Leopold Lanner",) and s3.answer is True
        assert _holds(source)
    finally:
        source.close()


def test_colota_questions_without_a_chain_are_reported_with_the_fact_and_why(colota_dir: Path) -> None:
    source = colota_source(colota_dir / "CR-LT-QA.json")
    try:
        reasons = {item.id: (item.reason, item.detail) for item in source.unusable}
        assert set(reasons) == {"S15", "S39", "S108"}
        assert reasons["S15"][0] is Reason.UNGROUNDED and "405,161,334 United States dollar" in reasons["S15"][1]
        assert reasons["S39"] == (Reason.NOT_LOADED, "[answer] holds the question text instead of true/false")
        assert reasons["S108"][0] is Reason.UNPARSED_FACT and "sholezard, part of Iranian cuisine" in reasons["S108"][1]
        fuzzy = {chain.id for chain in source.chains for fact in chain.facts if not fact.exact}
        assert fuzzy == {"S76", "S135"}  # qualifiers written into the tail of a step's fact
    finally:
        source.close()


def test_a_colota_entry_with_unusable_steps_is_reported_not_dropped(tmp_path: Path) -> None:
    entries = [
        {"id": "A1", "query": "Is Horsens big?", "answer": True, "KG Entities": {"Horsens": "Q1"},
         "KG Triples": "1- (Horsens, population, 59,449)", "Reasoning Strategy": ["x"],
         "Reasoning Steps": "The population of Horsens is 59,449."},
        {"id": "A2", "query": "Is Ikast big?", "answer": False, "KG Entities": {"Ikast": "Q2"},
         "KG Triples": "1- (Ikast, population, 15,979)", "Reasoning Strategy": ["x"],
         "Reasoning Steps": [{"Step": "Ikast is small."}]},
        {"id": "A3", "query": "Is Ikast small?", "answer": True, "KG Entities": {"Ikast": "Q2"},
         "KG Triples": "1- (Ikast, population, 15,979)", "Reasoning Strategy": ["x"],
         "Reasoning Steps": [{"Step": "Ikast has 15,979 people.", "facts used in this step": "(Ikast, population, 15,979)"}]},
    ]  # fmt: skip
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    source = colota_source(path)
    try:
        assert [chain.id for chain in source.chains] == ["A3"]
        assert [(item.id, item.reason, item.detail) for item in source.unusable] == [
            ("A1", Reason.NO_FACTS, "'Reasoning Steps' is not a list of steps"),
            ("A2", Reason.NO_FACTS, "none of the 1 steps states a fact"),
        ]
    finally:
        source.close()


def test_an_unreadable_colota_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"id": "S1"}', encoding="utf-8")
    with pytest.raises(LoadError, match="broken.json: expected a JSON list of entries"):
        colota_source(path)


def test_geography_chains_are_the_gold_evidence_and_program(geo: Source) -> None:
    assert geo.unusable == [] and len(geo.chains) > 50
    assert all(chain.program and chain.program[-1].endswith(")") and "end(" in chain.program[-1] for chain in geo.chains)
    assert all(fact.exact for chain in geo.chains for fact in chain.facts)
    assert {chain.split for chain in geo.chains} == {"train", "dev", "test"}
    assert _holds(geo)


def test_geography_questions_of_another_kg_are_reported_as_ungrounded(small_geo: tuple[Path, Path], tmp_path: Path) -> None:
    db, questions = small_geo
    read = read_questions(questions)
    changed = read[0].model_copy(update={"evidence": [Triple("France", "capital", "Lyon")]})
    path = tmp_path / "other.jsonl"
    write_questions([changed, *read[1:]], path)
    source = geo_source(db, path)
    try:
        [item] = source.unusable
        assert item.id == changed.id and item.reason is Reason.UNGROUNDED and "(France, capital) leads to 'Paris'" in item.detail
    finally:
        source.close()


def test_a_bad_geography_question_file_names_the_file_and_line(small_geo: tuple[Path, Path], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(small_geo[1].read_text(encoding="utf-8").splitlines()[0] + "\n{}\n", encoding="utf-8")
    with pytest.raises(ArkgError, match=r"bad.jsonl, line 2: not a geography question"):
        geo_source(small_geo[0], path)
    with pytest.raises(ArkgError, match="no such KG store"):
        geo_source(tmp_path / "missing.db", small_geo[1])


def test_sample_chains_follow_the_gold_paths(sample: Source) -> None:
    assert [chain.id for chain in sample.chains] == ["sample-1", "sample-2", "sample-3", "sample-4"]
    chain = sample.chains[2]
    assert chain.question == "Was Pierre Curie born in Poland?" and chain.answer is False
    assert [(t.head, t.relation, t.tail) for t in chain.triples] == [
        ("Pierre Curie", "place of birth", "Paris"),
        ("Paris", "country", "France"),
    ]
    assert chain.topic_entities == ("Pierre Curie", "Poland")
    # The path names an award edge without its props: grounded, with a note.
    assert sample.chains[3].facts[1].notes == ("props point in time, source not stated",)
