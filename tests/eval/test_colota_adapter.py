"""The CoLoTa adapter on small files written by the tests and on the published file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.errors import LoadError
from arkg.eval.colota import Effect, build_graph, load_dataset
from arkg.graph.model import Triple


def entry(entry_id: str, **overrides: object) -> dict:
    fields = {
        "id": entry_id,
        "query": f"Question {entry_id}?",
        "answer": True,
        "KG Entities": {"A": "Q1"},
        "Inference Rule": "...",
        "KG Triples": "1- (A, population, 59,449), 2- (A, description, city in Ontario, Canada)",
        "Reasoning Steps": [],
        "Reasoning Strategy": ["number comparison"],
    }
    fields.update(overrides)
    return fields


def write(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_questions_carry_their_fields_and_gold_triples(tmp_path: Path) -> None:
    dataset = load_dataset(write(tmp_path, [entry("C1"), entry("C2", answer=False, **{"KG Triples": "1- (A, population, 59,449)"})]))
    assert dataset.problems == []
    first = dataset.question("C1")
    assert (first.text, first.answer, first.entities, first.strategies) == ("Question C1?", True, {"A": "Q1"}, ("number comparison",))
    assert first.triples == (Triple("A", "population", "59,449"), Triple("A", "description", "city in Ontario, Canada"))
    assert dataset.question("C2").answer is False
    assert dataset.items_parsed == 3
    assert len(dataset.triples) == 2  # the repeated triple is stored once


def test_unusable_entries_are_reported_with_id_field_and_reason(tmp_path: Path) -> None:
    entries = [
        entry("C1", answer="Question C1?"),
        entry("C2", answer="yes"),
        entry("C3", **{"KG Triples": "1- (only, two)"}),
        {k: v for k, v in entry("C4").items() if k != "Reasoning Strategy"},
        entry("C5", **{"KG Entities": {"Missing Name": "Q9", "A": "Q1"}}),
        entry("C5"),
        entry("C6"),
    ]
    dataset = load_dataset(write(tmp_path, entries))
    assert [q.id for q in dataset.questions] == ["C5", "C6"]
    reported = {(p.id, p.field, p.effect) for p in dataset.problems}
    assert reported == {
        ("C1", "answer", Effect.QUESTION_SKIPPED),
        ("C2", "answer", Effect.QUESTION_SKIPPED),
        ("C3", "KG Triples", Effect.ITEM_SKIPPED),
        ("C3", "KG Triples", Effect.QUESTION_SKIPPED),
        ("C4", "Reasoning Strategy", Effect.QUESTION_SKIPPED),
        ("C5", "KG Entities", Effect.NOTE),
        ("C5", "id", Effect.QUESTION_SKIPPED),
    }
    reasons = {(p.id, p.field): p.reason for p in dataset.problems}
    assert reasons["C1", "answer"] == "holds the question text instead of true/false"
    assert "'yes'" in reasons["C2", "answer"]
    assert reasons["C4", "Reasoning Strategy"] == "field is missing"
    # Entries skipped as questions still contribute their gold facts to the KG.
    assert Triple("A", "population", "59,449") in dataset.triples


@pytest.mark.parametrize(
    ("content", "where", "reason"),
    [
        ('[{"id": "S1",}]', "line 1, column 14", "malformed JSON"),
        ('{"id": "S1"}', None, "expected a JSON list"),
        ('[{"id": "S1"}, 3]', "entry #2", "expected a JSON object"),
    ],
)
def test_unreadable_files_raise_load_error_naming_where(tmp_path: Path, content: str, where: str | None, reason: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LoadError) as raised:
        load_dataset(path)
    assert raised.value.where == where
    assert reason in raised.value.reason
    assert str(path) in str(raised.value)


def test_missing_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="cannot read"):
        load_dataset(tmp_path / "absent.json")


def test_published_file_reports_every_unusable_entry(colota_dir: Path) -> None:
    dataset = load_dataset(colota_dir / "CR-LT-QA.json")
    summary = dataset.summary()
    print(summary)
    assert dataset.entries == 200
    skipped = [(p.id, p.field, p.reason) for p in dataset.problems if p.effect is Effect.QUESTION_SKIPPED]
    assert skipped == [("S39", "answer", "holds the question text instead of true/false")]
    items_skipped = [(p.id, p.field) for p in dataset.problems if p.effect is Effect.ITEM_SKIPPED]
    assert items_skipped == [("S108", "KG Triples")]
    assert len(dataset.questions) == 199
    assert dataset.items_parsed == 510
    assert "S39 [answer] question skipped" in summary
    # Spot checks on the README's tricky items.
    assert Triple("Jordan Motor Car Company", "dissolved, abolished or demolished date", "April 1931") in dataset.question("S33").triples
    assert dataset.question("S90").triples[0].relation == "languages spoken, written or signed"
    assert dataset.question("S13").triples[0].tail == "city in Ontario, Canada"
    assert [t.props for t in dataset.question("S76").triples[1:]][-1] == {"start time": "11 October 2002", "end time": "5 June 2003"}
    assert len(dataset.question("S150").triples) == 3
    # The two entries without item numbers still parse.
    assert len(dataset.question("S97").triples) == 2
    assert len(dataset.question("S147").triples) == 2


def test_build_graph_holds_the_gold_triples(tmp_path: Path) -> None:
    dataset = load_dataset(write(tmp_path, [entry("C1")]))
    graph = build_graph(dataset)
    try:
        assert graph.is_head("A")
        assert graph.relations("A") == ["description", "population"]
        assert [t.tail for t in graph.triples("A", "population")] == ["59,449"]
    finally:
        graph.close()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 5000 + "]" * 5000, "nested"),
        ('[{"id": "S1", "id": "S2"}]', "duplicate key"),
        ('[{"id": "S1", "answer": NaN}]', "NaN"),
        ('[{"id": ' + "9" * 5000 + "}]", "digits"),
    ],
)
def test_hostile_dataset_files_are_clear_errors(tmp_path, text, reason):
    """A data set file gets the loaders' strict JSON reading: no traceback, the file and place named."""
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError, match=reason) as caught:
        load_dataset(path)
    assert str(path) in str(caught.value)
