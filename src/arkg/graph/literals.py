"""How values compare: as numbers when both read as numbers ("59,449" -> 59449), as dates when
both read as dates or years ("7 November 1867", "1867-11-07", "1867"), otherwise as case- and
accent-folded text, which only = and != can compare.

Two dates of different precision compare at the coarser one: "1867" = "7 November 1867".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from arkg.graph.matching import fold

COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
Scalar = str | int | float | bool

_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+|[+-]?\d+(?:\.\d+)?[eE][+-]?\d+")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
            ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
            ("november", "nov"), ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_ISO_DATE = re.compile(r"(\d{1,4})-(\d{1,2})(?:-(\d{1,2}))?(?:T[\d:.]+Z?)?")
_DAY_MONTH_YEAR = re.compile(r"(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{1,4})")
_MONTH_DAY_YEAR = re.compile(r"([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{1,4})")
_MONTH_YEAR = re.compile(r"([a-z]+)\.?\s+(\d{1,4})")
_YEAR = re.compile(r"\d{1,4}")

# A date as (year, month, day); month and day are None when the text does not give them.
DateKey = tuple[int, int | None, int | None]


def as_number(value: Scalar) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = value.strip()
    if not _NUMBER.fullmatch(text):
        return None
    return float(text.replace(",", ""))


def as_date(value: Scalar) -> DateKey | None:
    if isinstance(value, bool) or isinstance(value, float):
        return None
    text = str(value).strip().lower()
    if _YEAR.fullmatch(text):
        return (int(text), None, None)
    if match := _ISO_DATE.fullmatch(text):
        year, month, day = match.groups()
        return _checked(int(year), int(month), int(day) if day else None)
    if match := _DAY_MONTH_YEAR.fullmatch(text):
        day, month, year = match.groups()
        return _checked(int(year), _MONTHS.get(month), int(day))
    if match := _MONTH_DAY_YEAR.fullmatch(text):
        month, day, year = match.groups()
        return _checked(int(year), _MONTHS.get(month), int(day))
    if match := _MONTH_YEAR.fullmatch(text):
        month, year = match.groups()
        return _checked(int(year), _MONTHS.get(month), None)
    return None


def _checked(year: int, month: int | None, day: int | None) -> DateKey | None:
    if month is None or not 1 <= month <= 12:
        return None
    try:
        date(max(year, 1), month, day or 1)
    except ValueError:
        return None
    return (year, month, day)


def _precision(key: DateKey) -> int:
    return 1 if key[1] is None else 2 if key[2] is None else 3


def _cut(key: DateKey, precision: int) -> tuple[int, ...]:
    return tuple(part or 0 for part in key[:precision])


def compare(left: Scalar, op: str, right: Scalar) -> bool | None:
    """`left op right` by the value rules; None when the two cannot be compared with that op."""
    numbers = as_number(left), as_number(right)
    if numbers[0] is not None and numbers[1] is not None:
        return _apply(numbers[0], op, numbers[1])
    dates = as_date(left), as_date(right)
    if dates[0] is not None and dates[1] is not None:
        precision = min(_precision(dates[0]), _precision(dates[1]))
        return _apply(_cut(dates[0], precision), op, _cut(dates[1], precision))
    if op in ("=", "!="):
        return (fold(str(left)) == fold(str(right))) == (op == "=")
    return None


def _apply(left: object, op: str, right: object) -> bool:
    if op == "=":
        return left == right
    if op == "!=":
        return left != right
    if op == "<":
        return left < right  # type: ignore[operator]
    if op == "<=":
        return left <= right  # type: ignore[operator]
    if op == ">":
        return left > right  # type: ignore[operator]
    if op == ">=":
        return left >= right  # type: ignore[operator]
    raise ValueError(f"not a comparison: {op!r}")


def is_text(value: Scalar) -> bool:
    """Whether the value rules read a value as plain text: neither a number nor a date."""
    return as_number(value) is None and as_date(value) is None


def comparable(left: Scalar, op: str, right: Scalar) -> bool:
    """Whether the value rules can decide `left op right` on its merits: orderings need two numbers or
    two dates; (in)equality also takes two texts, but not a text and a number or date, which would
    be unequal whatever they stand for."""
    return compare(left, op, right) is not None and (op not in ("=", "!=") or is_text(left) == is_text(right))


def same(left: Scalar, right: Scalar) -> bool:
    """Equality by the value rules (what `contains` and `overlaps` use)."""
    return compare(left, "=", right) is True


def order_keys(values: Sequence[Scalar]) -> list[tuple[float | int, ...] | None]:
    """Sort keys for argmax / argmin over `values`: numbers when most of them read as numbers, else
    dates (cut to the coarsest precision among them); a value of the other sort gets None."""
    numbers = [as_number(value) for value in values]
    dates = [as_date(value) for value in values]
    number_count = sum(key is not None for key in numbers)
    date_count = sum(key is not None for key in dates)
    if number_count and number_count >= date_count:
        return [None if key is None else (key,) for key in numbers]
    if not date_count:
        return [None] * len(values)
    precision = min(_precision(key) for key in dates if key is not None)
    return [None if key is None else _cut(key, precision) for key in dates]
