"""The attempts of one model call to a server, within limits the user sets and can predict.

A call may wait `timeout` seconds per attempt, retry a failed attempt `retries` times, and takes at
most `timeout × (retries + 1)` seconds in all: waits between attempts and further requests of the
same call (re-asks) come out of that budget too. Waits grow exponentially (0.5 s doubling, at most
8 s, up to 25 % shorter at random so that clients do not retry in step), or last what the server's
Retry-After header asks, when that fits in the time left.

The openai SDK retries by itself, but it knows no budget for a whole call, honours Retry-After up to
two minutes per retry, and does not say how many attempts it made; so its own retries are off.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

INITIAL_WAIT_S = 0.5
MAX_WAIT_S = 8.0


class Attempts:
    """Counts the attempts of one call and the time it took; decides whether, and when, to retry."""

    def __init__(self, timeout: float, retries: int) -> None:
        self.timeout = timeout
        self.retries = retries
        self.limit_s = timeout * (retries + 1)
        self.made = 0
        self.failed = 0
        self.started = time.monotonic()
        self.deadline = self.started + self.limit_s
        # Why the last retry() refused, when it was for want of time rather than of retries.
        self.refusal = ""

    def start(self) -> float | None:
        """Begin an attempt: the seconds it may wait for the server, or None when the call's time is up."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return None
        self.made += 1
        return min(self.timeout, left)

    def retry(self, retry_after: float | None = None) -> bool:
        """After a failed attempt: sleep until the next one may start and return True, or return
        False when the retries or the time are used up."""
        self.failed += 1
        if self.failed > self.retries:
            return False
        wait = retry_after if retry_after is not None else _backoff(self.failed)
        left = self.deadline - time.monotonic()
        if wait >= left:
            asked = "the server asked to wait" if retry_after is not None else "the next retry would start after"
            self.refusal = f"{asked} {wait:.1f} s, more than the {max(left, 0):.1f} s left of the call's limit"
            return False
        time.sleep(wait)
        return True

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def summary(self) -> str:
        """E.g. '3 attempts in 92.4 s', and why no further one was made when time was short."""
        plural = "" if self.made == 1 else "s"
        refusal = f"; {self.refusal}" if self.refusal else ""
        return f"{self.made} attempt{plural} in {self.elapsed_s:.1f} s{refusal}"


def _backoff(failures: int) -> float:
    return min(INITIAL_WAIT_S * 2 ** (failures - 1), MAX_WAIT_S) * (1 - 0.25 * random.random())


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """The wait a server asks for: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            try:
                seconds = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError):
                continue
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    return None
