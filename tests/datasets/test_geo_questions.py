"""Generated geography questions: schema, determinism, no ambiguity or giveaway, and gold programs
that the KG-Agent executor replays on the built KG to the gold answer and evidence (a sample per
template by default; ARKG_GEO_REPLAY=all replays every question), questions about people included."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from arkg.agents.kg_agent import Boolean, Entities, Executor, Number, next_calls
from arkg.agents.kg_agent.settings import KgAgentSettings
from arkg.agents.retrieval import link_entities
from arkg.graph.model import triple_key
from arkg.datasets.geo import GeoQuestion, generate_questions, read_questions, write_questions
from arkg.datasets.geo.summary import summary_table
from arkg.datasets.geo.templates import TEMPLATES as GEOGRAPHY_TEMPLATES
from arkg.datasets.geo.toolbox_templates import TOOLBOX_TEMPLATES
from arkg.errors import ArkgError
from arkg.graph import SQLiteGraph
from arkg.graph.matching import fold

PER_TEMPLATE_REPLAYED = 6


def test_a_few_thousand_questions_of_every_template_kind_and_hop_count(geo_questions: list[GeoQuestion]) -> None:
    assert len(geo_questions) > 3_000
    assert set(Counter(q.template for q in geo_questions)) == {template.name for template in GEOGRAPHY_TEMPLATES + TOOLBOX_TEMPLATES}
    assert set(Counter(q.kind for q in geo_questions)) == {"lookup", "verification", "comparison", "count", "superlative"}
    assert set(Counter(q.hops for q in geo_questions)) == {1, 2, 3}
    assert set(Counter(q.answer_type for q in geo_questions)) == {"boolean", "number", "entities"}
    answers = Counter(q.answer for q in geo_questions if q.answer_type == "boolean")
    assert answers[True] > 200 and answers[False] > 200
    assert len({q.id for q in geo_questions}) == len({q.question for q in geo_questions}) == len(geo_questions)


def test_the_summary_counts_every_question_once_by_hops_and_once_by_split(geo_questions: list[GeoQuestion]) -> None:
    table = summary_table(geo_questions)
    assert table.header == ["kind", "1 hop", "2 hops", "3 hops", "train", "dev", "test", "total"]
    *kinds, total = table.rows
    assert [row[0] for row in kinds] == ["comparison", "count", "lookup", "superlative", "verification"]
    counts = [[int(cell.replace(",", "")) for cell in row[1:]] for row in table.rows]
    for row in counts:
        assert sum(row[:3]) == sum(row[3:6]) == row[6]
    assert counts[-1] == [sum(column) for column in zip(*counts[:-1], strict=True)]
    assert total[0] == "all" and counts[-1][-1] == len(geo_questions)
    assert counts[-1][5] == sum(q.split == "test" for q in geo_questions)


def test_splits_hold_out_about_a_tenth_each_and_follow_the_id(geo_questions: list[GeoQuestion]) -> None:
    splits = Counter(q.split for q in geo_questions)
    assert 0.07 < splits["test"] / len(geo_questions) < 0.13 and 0.07 < splits["dev"] / len(geo_questions) < 0.13
    again = generate_questions(_triples_of(geo_questions), seed=5, per_template=1000)
    by_id = {q.id: q.split for q in geo_questions}
    assert all(q.split == by_id[q.id] for q in again if q.id in by_id)


def _triples_of(questions: list[GeoQuestion]):  # type: ignore[no-untyped-def]
    return [t for q in questions for t in q.evidence]


def test_generation_is_deterministic_by_seed(geo_kg: SQLiteGraph, geo_questions: list[GeoQuestion]) -> None:
    taken: Counter[str] = Counter()
    first_ten = []
    for q in geo_questions:
        taken[q.template] += 1
        if taken[q.template] <= 10:
            first_ten.append(q)
    assert generate_questions(geo_kg.iter_triples(), seed=0, per_template=10) == first_ten
    other = generate_questions(geo_kg.iter_triples(), seed=1, per_template=10)
    assert [q.question for q in other] != [q.question for q in geo_questions][: len(other)]


def test_no_answer_entity_is_given_away_by_the_question(geo_questions: list[GeoQuestion]) -> None:
    for q in geo_questions:
        if isinstance(q.answer, list):
            assert q.answer, q.id
            assert not any(fold(a) in fold(q.question) for a in q.answer if a not in q.entities), q.id
            assert all(entity in q.question for entity in q.entities), q.id


def _replayed(questions: list[GeoQuestion]) -> list[GeoQuestion]:
    if os.environ.get("ARKG_GEO_REPLAY") == "all":
        return questions
    taken: Counter[str] = Counter()
    sample = []
    for q in questions:
        if taken[q.template] < PER_TEMPLATE_REPLAYED:
            taken[q.template] += 1
            sample.append(q)
    return sample


@pytest.mark.parametrize("dataset", ["geo", "people"])
def test_gold_programs_replay_to_the_gold_answer_and_evidence(dataset: str, request: pytest.FixtureRequest) -> None:
    kg: SQLiteGraph = request.getfixturevalue(f"{dataset}_kg")
    questions: list[GeoQuestion] = request.getfixturevalue(f"{dataset}_questions")
    executor = Executor(kg)
    for q in _replayed(questions):
        # The topic entities as KG-Agent links them (its order, not the question's), so that constrained
        # decoding is checked as a run meets it.
        memory = executor.start(q.question, link_entities(kg, q.question, KgAgentSettings().max_topic_entities))
        for line in q.program:
            assert line in next_calls(executor, memory), (q.id, line)  # constrained decoding can write it
            executor.execute(memory, line)
        answer = memory.answer
        if isinstance(answer, Entities):
            assert sorted(answer.items) == sorted(q.answer), q.id  # type: ignore[arg-type]
        else:
            assert isinstance(answer, (Number, Boolean)) and answer.value == q.answer and type(answer.value) is type(q.answer), q.id
        assert {triple_key(t) for t in answer.triples()} == {triple_key(t) for t in q.evidence}, q.id


def test_questions_round_trip_through_json_lines(tmp_path: Path, geo_questions: list[GeoQuestion]) -> None:
    path = tmp_path / "questions.jsonl"
    assert write_questions(geo_questions[:50], path) == 50
    assert read_questions(path) == geo_questions[:50]
    line = path.read_text(encoding="utf-8").splitlines()[0]
    assert list(__import__("json").loads(line)) == [
        "id", "question", "answer", "answer_type", "program", "evidence", "hops", "template", "kind", "entities", "split",
    ]  # fmt: skip
    path.write_text(line + "\n{}\n", encoding="utf-8")
    with pytest.raises(ArkgError, match=r"questions.jsonl, line 2: not a geography question"):
        read_questions(path)
