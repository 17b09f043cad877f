"""The attempt budget of one call to a server."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from arkg.llm.attempts import Attempts, retry_after_s


def test_retries_stop_at_the_count_and_waits_back_off() -> None:
    attempts = Attempts(timeout=5, retries=2)
    assert attempts.start() == 5
    started = time.monotonic()
    assert attempts.retry()
    assert attempts.start() is not None and attempts.retry()
    assert 0.375 + 0.75 <= time.monotonic() - started < 1.5 + 0.5  # 0.5 s then 1 s, up to 25 % shorter
    assert attempts.start() is not None and not attempts.retry()
    assert attempts.summary().startswith("3 attempts in 1.")


def test_the_last_attempt_gets_only_the_time_left() -> None:
    attempts = Attempts(timeout=0.4, retries=1)
    assert attempts.start() == 0.4
    time.sleep(0.45)  # the first attempt ran past its share of the 0.8 s limit
    assert attempts.retry(retry_after=0)
    assert attempts.start() == pytest.approx(0.35, abs=0.05)
    time.sleep(0.4)
    assert attempts.start() is None


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, None),
        (None, None),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "inf"}, None),
    ],
)
def test_retry_after_header(headers: dict[str, str] | None, seconds: float | None) -> None:
    assert retry_after_s(headers) == seconds


def test_retry_after_as_an_http_date() -> None:
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert retry_after_s({"retry-after": later}) == pytest.approx(30, abs=1.5)
