"""arkg's geography questions as an evaluation data set: the held-out split, every kind of gold answer,
and a balanced first N."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arkg.datasets.geo import build_geo_kg, generate_questions, write_questions
from arkg.eval.datasets import open_dataset
from arkg.graph.sqlite_store import SQLiteGraph


@pytest.fixture(scope="module")
def questions_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("geo")
    build_geo_kg(folder / "geo.db")
    with SQLiteGraph(folder / "geo.db", create=False) as kg:
        questions = generate_questions(kg.iter_triples(), seed=0, per_template=20)
    write_questions(questions, folder / "geo.jsonl")
    return folder / "geo.jsonl"


def test_only_the_held_out_split_is_evaluated_with_its_gold_answers_and_evidence(questions_file: Path):
    dataset = open_dataset(questions_file)
    assert dataset.questions and dataset.entries > len(dataset.questions)
    kinds = {type(question.answer) for question in dataset.questions}
    assert kinds <= {bool, int, tuple} and bool in kinds and tuple in kinds
    # Gold evidence comes with every question except counts of nothing (no triple shows an absence).
    assert all(question.triples or question.answer == 0 for question in dataset.questions)
    assert all(question.strategies[1].endswith(("hop", "hops")) for question in dataset.questions)


def test_the_first_questions_cover_the_templates_in_turn(questions_file: Path):
    dataset = open_dataset(questions_file)
    templates = {question.strategies[0] for question in dataset.questions}
    first = [question.strategies[0] for question in dataset.select(limit=len(templates))]
    assert Counter(first) == Counter(dict.fromkeys(templates, 1))
