"""Comparisons re-done from the cited values: what "before", "more", "the oldest" make of them.

    direction("Was Lucia Marchetti born before Hana Sato?")     # "less": the first value must be smaller
    compared(["1977"], ["1976"], "less")                        # False
    extreme({"Fennox": ["2003"], "Ysker": ["2008"]}, "less")    # "Fennox"

Dates compare as dates, numbers as numbers; "older" and "younger" mean an earlier and a later date, and a
larger and a smaller number (an age). A value is read from a cited fact's tail or, where the tail is no
value, none is taken.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from arkg.graph.literals import as_date, as_number

Direction = Literal["less", "greater"]

# Words that compare in time (dates), and words that compare quantities (numbers): "more history" or "reach
# 60,000 before Ikast" mix the two, and no cited value settles them without commonsense.
_EARLIER = ("before", "earlier", "earliest", "first", "sooner", "prior")
_LATER = ("after", "later", "latest", "last", "newer", "newest", "recent")
_LESS = ("fewer", "fewest", "less", "least", "lower", "lowest", "smaller", "smallest", "shorter", "shortest", "cheaper",
         "cheapest", "south", "southern", "southernmost", "west", "western", "westernmost")
_GREATER = ("more", "most", "higher", "highest", "larger", "largest", "bigger", "biggest", "greater", "greatest", "longer",
            "longest", "exceed", "exceeds", "taller", "tallest", "north", "northern", "northernmost", "east", "eastern",
            "easternmost")
# Compare only before a number ("over 500 beds"); elsewhere they place ("released under a license").
_BEFORE_A_NUMBER = {"over": "greater", "above": "greater", "under": "less", "below": "less"}
_AGE = {"older": "greater", "oldest": "greater", "younger": "less", "youngest": "less"}
_WORD = re.compile(r"[a-z]+")


def direction(question: str, dated: bool | None = None) -> Direction | None:
    """Which way the question compares values that are dates (`dated`) or numbers (the first comparative
    word of their sort it writes); None where it writes none. With `dated` None: whether it compares at all."""
    words = _WORD.findall(question.lower())
    numbered = re.findall(r"\b(over|above|under|below)\s+(?:\d|(?:" + "|".join(_NUMBER_WORDS) + r")\b)", question.lower())
    for word in words:
        if word in numbered and not dated:
            return _BEFORE_A_NUMBER[word]  # type: ignore[return-value]
        if word in _AGE:
            age: Direction = _AGE[word]  # type: ignore[assignment]
            # An older thing has the earlier date, or the larger age.
            return ("less" if age == "greater" else "greater") if dated else age
        if dated is not False and word in _EARLIER + _LATER:
            return "less" if word in _EARLIER else "greater"
        if dated and word in ("longer", "longest"):
            return "less"  # in post longer: since an earlier date
        if not dated and word in _LESS + _GREATER:
            return "less" if word in _LESS else "greater"
    return None


def _key(value: str) -> tuple[int, float] | None:
    """A sortable key: (0, number) or (1, date as a number); None for a value that is neither. A bare
    year is a number: it sorts the same either way."""
    number = as_number(value)
    if number is not None:
        return (0, number)
    date = as_date(value)
    if date is None:
        return None
    year, month, day = date
    return (1, year * 400 + (month or 0) * 32 + (day or 0))


def _keys(values: Sequence[str]) -> list[tuple[int, float] | None]:
    """The keys of values compared together: a bare year among dates counts as the start of that year."""
    keys = [_key(value) for value in values]
    if any(key is not None and key[0] == 1 for key in keys):
        keys = [(1, key[1] * 400) if key is not None and key[0] == 0 and key[1] == int(key[1]) and 1000 <= key[1] <= 2100 else key for key in keys]
    return keys


def dated(values: Sequence[str]) -> bool:
    """Whether the values are dates (or years), so that "older" means earlier."""
    keys = [_key(value) for value in values]
    return bool(keys) and all(
        key is not None and (key[0] == 1 or (key[1] == int(key[1]) and 1000 <= key[1] <= 2100)) for key in keys
    )


def comparable(values: Sequence[str]) -> bool:
    keys = _keys(values)
    return bool(keys) and all(key is not None for key in keys) and len({key[0] for key in keys if key}) == 1


def compared(first: str, second: str, way: Direction) -> bool | None:
    """Whether `first` stands `way` of `second` (None: they do not compare)."""
    a, b = _keys([first, second])
    if a is None or b is None or a[0] != b[0]:
        return None
    return a[1] < b[1] if way == "less" else a[1] > b[1]


def extreme(values: Mapping[str, str], way: Direction) -> list[str]:
    """The names whose value is the smallest ("less") or largest; empty when the values do not compare."""
    keys = dict(zip(values, _keys(list(values.values()))))
    if not keys or any(key is None for key in keys.values()) or len({key[0] for key in keys.values() if key}) != 1:
        return []
    pick = min if way == "less" else max
    best = pick(key[1] for key in keys.values() if key)
    return [name for name, key in keys.items() if key is not None and key[1] == best]


_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "hundred": 100, "thousand": 1000,
}


def threshold(question: str, names: Sequence[str]) -> str | None:
    """A number or year the question writes itself ("over 500 beds", "before 2000", "more than ten"),
    outside its names; None when it writes none or several."""
    text = question
    for name in names:
        text = text.replace(name, " ")
    found = re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.])", text)
    if not found:
        # A number in words right after a comparative ("more than ten"), where "one" is a number, not a pronoun.
        found = [str(_NUMBER_WORDS[word]) for word in re.findall(r"\b(?:than|over|under|above|below|least|most)\s+([a-z]+)\b", text.lower()) if word in _NUMBER_WORDS]
    return found[0] if len(found) == 1 else None
