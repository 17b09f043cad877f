"""The value rules' sorts: which comparisons can be decided on the values rather than on their sorts."""

from __future__ import annotations

import pytest

from arkg.graph.literals import comparable, is_text


@pytest.mark.parametrize(
    ("value", "text"),
    [("Warsaw", True), ("1,234,567", False), ("7 November 1867", False), ("1867-11-07", False), (3.5, False), (True, True)],
)
def test_is_text(value, text):
    assert is_text(value) is text


@pytest.mark.parametrize(
    ("left", "op", "right", "expected"),
    [
        ("38,000,000", ">", "2,100,000", True),  # two numbers
        ("7 November 1867", "<", "1859-05-15", True),  # two dates, written differently
        ("Asia", "=", "Africa", True),  # two texts: equality is a fair question
        ("Asia", ">", "Africa", False),  # two texts have no order
        ("Damascus", "=", "21,324,367", False),  # a text is never a number
        ("Damascus", ">", "21,324,367", False),
        ("1867", "=", "7 November 1867", True),  # a year and a date are both dates
    ],
)
def test_comparable(left, op, right, expected):
    assert comparable(left, op, right) is expected
