from __future__ import annotations

from ark_helpers import sample_kg

from arkg.agents.candidates import entities_in_question, question_ngrams, rank_by_question


def test_ngrams_drop_punctuation_and_possessives():
    grams = question_ngrams("Is Yui Yuigahama's pet a corgi?")
    assert "Yui Yuigahama" in grams and "corgi" in grams
    assert grams.index("Yui Yuigahama's pet") < grams.index("Yui Yuigahama")  # longest first


def test_entities_named_in_the_question_come_first_and_are_explorable():
    kg = sample_kg()
    found = entities_in_question(kg, "Is Yui Yuigahama's pet a dachshund?", kg.is_head, limit=3)
    assert found[0] == "Yui Yuigahama"
    assert "dachshund" not in found  # named, but a tail only
    assert len(found) <= 3


def test_fuzzy_matches_fill_in_when_the_question_misspells_a_name():
    kg = sample_kg()
    assert entities_in_question(kg, "Is Yui Yuigahamas pet a corgi?", kg.is_head, limit=2)[0] == "Yui Yuigahama"


def test_relations_are_ranked_by_the_question():
    ranked = rank_by_question(["occupation", "educated at", "has pet"], "Is Yui Yuigahama's pet a corgi?")
    assert ranked[0] == "has pet"
