"""The one retry policy of model servers and SPARQL endpoints: backoff, Retry-After in both forms, and
the time limit of a call (the clients' own tests run it against real servers on 127.0.0.1)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from arkg.retry import CallBudget, RetryPolicy, retry_after_s


class Busy(Exception):
    """A transient failure, with the response headers an HTTP error carries."""

    def __init__(self, headers: dict[str, str] | None = None) -> None:
        super().__init__("busy")
        self.response = type("Response", (), {"headers": headers or {}})()


def flaky(failures: list[Exception]) -> Callable[[], str]:
    """A request that raises each of `failures` in turn, then answers "ok"."""

    def send() -> str:
        if failures:
            raise failures.pop(0)
        return "ok"

    return send


def http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now), usegmt=True)


def test_waits_double_up_to_the_backoff_cap() -> None:
    policy = RetryPolicy(first_wait_s=0.5, max_backoff_s=3)
    assert [policy.wait_s(failures) for failures in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3]


def test_jitter_only_shortens_a_wait() -> None:
    waits = {RetryPolicy(first_wait_s=1, jitter=0.25).wait_s(1) for _ in range(200)}
    assert all(0.75 <= wait <= 1 for wait in waits) and len(waits) > 1


def test_a_retry_after_lengthens_the_wait_up_to_the_cap() -> None:
    policy = RetryPolicy(first_wait_s=0.5, max_wait_s=20)
    assert policy.wait_s(1, asked=7) == 7
    assert policy.wait_s(1, asked=0.1) == 0.5  # never shorter than the backoff
    assert policy.wait_s(1, asked=999) == 20


def test_transient_failures_are_retried_with_the_servers_wait_then_the_last_one_is_raised() -> None:
    sleeps: list[float] = []
    policy = RetryPolicy(retries=2, first_wait_s=0.25, max_wait_s=10)
    send = flaky([Busy({"retry-after": "4"}), Busy({"retry-after": http_date(60)})])
    assert policy.retrying(lambda error: isinstance(error, Busy), sleep=sleeps.append)(send) == "ok"
    assert sleeps == [4.0, 10]

    send = flaky([Busy(), Busy(), Busy(), Busy()])
    with pytest.raises(Busy):
        policy.retrying(lambda error: isinstance(error, Busy), sleep=sleeps.append)(send)


def test_a_failure_that_is_not_transient_is_raised_at_once() -> None:
    sleeps: list[float] = []
    with pytest.raises(ValueError):
        RetryPolicy().retrying(lambda error: isinstance(error, Busy), sleep=sleeps.append)(flaky([ValueError("bad")]))
    assert sleeps == []


def test_a_budget_refuses_a_wait_it_has_no_time_for_and_says_why() -> None:
    budget = CallBudget(timeout=1, retries=3)
    retrying = RetryPolicy(retries=3).retrying(lambda error: isinstance(error, Busy), budget=budget)

    def send() -> str:
        budget.start()
        raise Busy({"retry-after": "30"})

    started = time.monotonic()
    with pytest.raises(Busy):
        retrying(send)
    assert time.monotonic() - started < 1
    assert re.fullmatch(r"1 attempt in [\d.]+ s; the server asked to wait 30\.0 s, more than the [\d.]+ s left of the call's limit", budget.summary())


def test_the_last_attempt_gets_only_the_time_left() -> None:
    budget = CallBudget(timeout=0.4, retries=1)
    assert budget.start() == 0.4
    time.sleep(0.45)  # the first attempt ran past its share of the 0.8 s limit
    assert budget.start() == pytest.approx(0.35, abs=0.05)
    time.sleep(0.4)
    assert budget.start() is None
    assert budget.summary().startswith("2 attempts in ")


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
    assert retry_after_s({"retry-after": http_date(30)}) == pytest.approx(30, abs=1.5)
    assert retry_after_s({"retry-after": http_date(-30)}) == 0.0  # a date gone by: no wait
