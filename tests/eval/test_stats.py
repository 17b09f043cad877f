"""Wilson intervals and the exact McNemar test against published and hand-computed values."""

from __future__ import annotations

import pytest

from arkg.eval.stats import mcnemar_p, wilson


@pytest.mark.parametrize(
    ("only_first", "only_second", "p"),
    [
        (1, 9, 0.021484375),  # 2 · (1 + 10) / 2^10
        (9, 1, 0.021484375),  # two-sided: the order does not matter
        (0, 6, 0.03125),  # 2 / 2^6
        (0, 5, 0.0625),  # five discordant questions can never reach 0.05
        (3, 3, 1.0),
        (0, 0, 1.0),  # no discordant question: no evidence of a difference
        (10, 20, 0.09873714),  # R: binom.test(10, 30)$p.value
    ],
)
def test_exact_mcnemar(only_first: int, only_second: int, p: float) -> None:
    assert mcnemar_p(only_first, only_second) == pytest.approx(p, abs=1e-8)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (5, 10, 0.2366, 0.7634),  # symmetric around one half
        (0, 10, 0.0, 0.2775),  # stays inside 0..1, unlike p ± 1.96·se = 0 ± 0
        (10, 10, 0.7225, 1.0),
        (59, 100, 0.4920, 0.6813),
    ],
)
def test_wilson_interval(successes: float, n: int, low: float, high: float) -> None:
    interval = wilson(successes, n)
    assert (interval.low, interval.high) == (pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))


def test_an_interval_over_no_question_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one question"):
        wilson(0, 0)
