"""How much a figure measured on n questions can be trusted: the Wilson interval of a proportion, and the
exact McNemar test of two systems answering the same questions."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Two-sided 95%: the normal quantile 0.975.
Z_95 = 1.959964


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def wilson(successes: float, n: float, z: float = Z_95) -> Interval:
    """Wilson score interval of successes / n (both may be means over runs). Unlike p ± z·se it stays
    inside 0..1 and is honest near 0% and 100%, where small evaluations often are."""
    if n <= 0:
        raise ValueError("an interval needs at least one question")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_p(only_first: int, only_second: int) -> float:
    """Exact two-sided McNemar p: under "no difference" the discordant questions (right for one system
    only) fall to either side with probability 1/2, so the smaller count is binomial(n, 1/2)."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_first, only_second) + 1)) / 2**n
    return min(1.0, 2 * tail)
