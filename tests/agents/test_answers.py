"""Reading a final answer's text: yes / no / unknown, open text, and replies that name nothing."""

from __future__ import annotations

import pytest

from arkg.agents.answers import read_answer


@pytest.mark.parametrize(
    ("text", "yes_no", "expected"),
    [
        ("yes", True, True),
        (" No ", True, False),
        ("unknown", True, None),
        ("Vienna", False, "Vienna"),
        ("Yes.", False, True),
        ("unknown", False, None),
        ("", False, None),
        (",", False, None),
        (" ... ", False, None),
        ("42", False, "42"),
    ],
)
def test_reading_an_answer(text: str, yes_no: bool, expected: object) -> None:
    assert read_answer(text, yes_no) == expected
