from __future__ import annotations

import pytest

from arkg.agents.question import is_yes_no_question


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
