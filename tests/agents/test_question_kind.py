from __future__ import annotations

import pytest

from arkg.agents.question import is_claim, is_yes_no_question


@pytest.mark.parametrize(
    "question",
    [
        "Is Yui Yuigahama's pet a corgi?",
        "Could Maria de Ventadorn speak to someone 100 miles away?",
        "If both places have equal population growth, is the population in Horsens going to reach 60000 before Ikast?",
        "If someone loves Fesenjān do they enjoy pomegranate juice?",
        "Tell me whether Marie Curie was born in Warsaw.",
    ],
)
def test_yes_no_questions(question):
    assert is_yes_no_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "Who was Marie Curie's spouse?",
        "In which year was Horsens founded?",
        "How many children did Marie Curie have?",
        "Name the pet of Yui Yuigahama.",
    ],
)
def test_open_questions(question):
    assert not is_yes_no_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "Marie Curie est-elle née à Varsovie ?",
        "Est-ce que Marie Curie est née à Varsovie ?",
        "Marie Curie a-t-elle reçu un prix Nobel ?",
        "Ist Marie Curie in Warschau geboren?",
        "Hat Marie Curie einen Nobelpreis erhalten?",
        "Is Marie Curie in Warschau geboren?",
    ],
)
def test_yes_no_questions_in_other_languages(question):
    """A French or German yes/no question takes the yes/no path."""
    assert is_yes_no_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "Où Marie Curie est-elle née ?",
        "Qui est Marie Curie ?",
        "Quel prix Marie Curie a-t-elle reçu ?",
        "Wo wurde Marie Curie geboren?",
    ],
)
def test_open_questions_in_other_languages(question):
    assert not is_yes_no_question(question)


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Marie Curie was born in Warsaw.", True),
        ("The population of Horsens will reach 60000 before Ikast's", True),
        ("Was Marie Curie born in Warsaw?", False),
        ("Was the 2022 South Korean presidential election won by a member of the People Power Party", False),
        ("Tell me whether Marie Curie was born in Warsaw.", False),
        ("Name the pet of Yui Yuigahama.", False),
    ],
)
def test_claims_are_statements(text, claim):
    assert is_claim(text) is claim
