"""Data sets of every published format, per-question KGs, snapshots of an endpoint, perturbations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.errors import LoadError
from arkg.eval.datasets import open_dataset
from arkg.eval.dataset import Question
from arkg.eval.question_graphs import Perturbation, QuestionSetup, perturb
from arkg.eval.scoring import is_correct
from arkg.graph.model import Direction, Triple

ARKV1_LINES = [
    {
        "id": "S2",
        "question": "Is Yui Yuigahama's pet a corgi?",
        "q_entity": {"Yui Yuigahama": "Q97644811"},
        "a_entity": False,
        "graph": [
            ["Yui Yuigahama", "Sablé", {"relation": "has pet"}],
            ["Yui Yuigahama", "female", {"relation": "sex or gender"}],
            ["Sablé", "dachshund", {"relation": "animal breed"}],
        ],
    },
    {
        "id": "S9",
        "question": "Was Horsens founded before 1500?",
        "q_entity": {"Horsens": "Q190235"},
        "a_entity": True,
        "graph": [["Horsens", "1442", {"relation": "inception", "source": "wikidata"}]],
    },
]


def write_lines(path: Path, values: list) -> Path:
    path.write_text("\n".join(json.dumps(value, ensure_ascii=False) for value in values) + "\n", encoding="utf-8")
    return path


def test_the_ark_v1_per_question_format_gives_each_question_its_own_graph(tmp_path):
    dataset = open_dataset(write_lines(tmp_path / "arkv1.jsonl", ARKV1_LINES))
    first, second = dataset.questions
    assert (first.id, first.answer, first.entities) == ("S2", False, {"Yui Yuigahama": "Q97644811"})
    assert first.graph[0] == Triple("Yui Yuigahama", "has pet", "Sablé")
    assert second.graph == (Triple("Horsens", "inception", "1442", {"source": "wikidata"}),)


def test_the_published_ark_v1_example_is_a_data_set_of_one(colota_dir):
    [question] = open_dataset(colota_dir / "ark-v1-example.json").questions
    assert question.answer is False and len(question.graph) == 32


def test_a_bad_graph_edge_names_the_line_and_the_record(tmp_path):
    bad = [{**ARKV1_LINES[0], "graph": [["A", "B", {"relation": "r"}], ["A", "B"]]}]
    with pytest.raises(LoadError, match=r"line 1, graph record 2: expected \[head, tail"):
        open_dataset(write_lines(tmp_path / "bad.jsonl", bad))


def test_an_unknown_jsonl_file_says_which_formats_are_known(tmp_path):
    with pytest.raises(LoadError, match="not a data set arkg knows"):
        open_dataset(write_lines(tmp_path / "x.jsonl", [{"head": "a", "relation": "r", "tail": "b"}]))


@pytest.mark.parametrize(
    ("answer", "gold", "correct"),
    [
        (True, True, True),
        ("yes", True, False),
        ("Paris", ("Paris",), True),
        ("paris", ("Paris",), True),
        ("Lyon, Paris", ("Paris", "Lyon"), True),
        ("Paris and Lyon", ("Paris", "Lyon"), True),
        ("Paris", ("Paris", "Lyon"), False),
        ("Senegal, Senegal", ("Senegal",), True),
        ("Paris, paris", ("Paris", "Lyon"), False),
        ("Bosnia and Herzegovina", ("Bosnia and Herzegovina",), True),
        ("Tripoli, Libya; Abuja", ("Abuja", "Tripoli, Libya"), True),
        ("Croatia; Bosnia and Herzegovina", ("Croatia", "Bosnia and Herzegovina"), True),
        ("Tripoli, Libya; Abuja", ("Abuja", "Tripoli"), False),
        ("Tripoli, Libya, Abuja", ("Abuja", "Tripoli", "Libya"), True),
        ("59449", 59449, True),
        ("59,449", 59449, True),
        ("12", 13, False),
        (None, ("Paris",), False),
    ],
)
def test_answers_are_scored_by_the_kind_of_gold_answer(answer, gold, correct):
    assert is_correct(answer, gold) is correct


QUESTION = Question(
    id="S2",
    text="Is Yui Yuigahama's pet a corgi?",
    answer=False,
    entities={"Yui Yuigahama": ""},
    strategies=(),
    triples=(Triple("Yui Yuigahama", "has pet", "Sablé"), Triple("Sablé", "animal breed", "dachshund")),
)
KG = [
    Triple("Yui Yuigahama", "has pet", "Sablé"),
    Triple("Sablé", "animal breed", "dachshund"),
    Triple("Kamakura", "animal breed", "Scottish Fold"),
]


def test_remove_gold_takes_out_every_gold_triple():
    triples, changes = perturb(KG, QUESTION, Perturbation.REMOVE_GOLD)
    assert triples == KG[2:]
    assert changes == ["removed (Yui Yuigahama, has pet, Sablé)", "removed (Sablé, animal breed, dachshund)"]


def test_replace_tail_swaps_the_last_gold_tail_for_another_value_of_the_relation():
    triples, changes = perturb(KG, QUESTION, Perturbation.REPLACE_TAIL)
    assert Triple("Sablé", "animal breed", "Scottish Fold") in triples and KG[1] not in triples
    assert changes == ["replaced (Sablé, animal breed, dachshund) by (Sablé, animal breed, Scottish Fold)"]


def test_add_conflict_keeps_the_gold_triple_and_adds_a_contradiction():
    triples, changes = perturb(KG, QUESTION, Perturbation.ADD_CONFLICT)
    assert KG[1] in triples and Triple("Sablé", "animal breed", "Scottish Fold") in triples
    assert len(triples) == 4 and changes[0].startswith("added (Sablé, animal breed, Scottish Fold)")


def test_a_number_without_another_value_is_changed_in_place_and_no_gold_means_no_change():
    horsens = Question("S1", "q", True, {}, (), (Triple("Horsens", "population", "59,449"),))
    triples, changes = perturb([Triple("Horsens", "population", "59,449")], horsens, Perturbation.REPLACE_TAIL)
    assert triples == [Triple("Horsens", "population", "59,444")]
    unrelated = Question("S3", "q", True, {}, (), (Triple("X", "r", "Y"),))
    assert perturb(KG, unrelated, Perturbation.REMOVE_GOLD) == (KG, [])


def test_each_question_gets_a_strategy_over_its_own_kg():
    built = []
    setup = QuestionSetup(lambda kg: built.append(kg) or kg, base=KG, perturbation=Perturbation.REMOVE_GOLD)
    with setup.assign(QUESTION) as assignment:
        assert assignment.kg.relations("Yui Yuigahama", Direction.OUT) == []
        assert assignment.kg.has_entity("Kamakura")
        assert len(assignment.changes) == 2
    own = Question("S9", "q", True, {}, (), (), graph=(Triple("Horsens", "inception", "1442"),))
    with QuestionSetup(lambda kg: kg).assign(own) as assignment:
        assert assignment.kg.triples("Horsens", "inception") == [Triple("Horsens", "inception", "1442")]
