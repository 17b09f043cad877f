"""One retry policy for the HTTP services arkg calls: model servers (arkg.llm.openai_compat) and
SPARQL endpoints (arkg.graph.sparql.client), built on tenacity.

A failed request is tried again when the failure is transient: the caller says which (a connection
error, a timeout, a status in TRANSIENT_STATUSES). Waits grow exponentially from `first_wait_s`,
doubling up to `max_backoff_s`, and may be up to `jitter` shorter at random so that clients do not
retry in step. A server's Retry-After, in seconds or as an HTTP date, lengthens the wait, never
beyond `max_wait_s`. With a CallBudget, a wait that would not end within the call's time limit is
not started: the call fails at once, saying why. The last failure is re-raised as it came, for the
caller to turn into its own error.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import tenacity

# Worth another attempt: request timeout, conflict, rate limit, and server or gateway failures.
# (501 Not Implemented and 505 and up will answer the same again.)
TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


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


def requested_wait_s(error: BaseException | None) -> float | None:
    """The Retry-After of an HTTP error that carries its response (httpx's HTTPStatusError and
    openai's APIStatusError both do as `.response`); None for any other failure."""
    response = getattr(error, "response", None)
    return retry_after_s(getattr(response, "headers", None))


class CallBudget:
    """The time limit of one call that may send several requests (retries, re-asks): each attempt
    waits at most `timeout` seconds for the server, and the call takes at most
    `timeout × (retries + 1)` seconds in all, the waits between attempts included."""

    def __init__(self, timeout: float, retries: int) -> None:
        self.timeout = timeout
        self.limit_s = timeout * (retries + 1)
        self.made = 0
        self.started = time.monotonic()
        self.deadline = self.started + self.limit_s
        # Why the call stopped before its retries were used up, when it was for want of time.
        self.refusal = ""

    def start(self) -> float | None:
        """Begin an attempt: the seconds it may wait for the server, or None when the call's time is up."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return None
        self.made += 1
        return min(self.timeout, left)

    def stop(self, state: tenacity.RetryCallState) -> bool:
        """A tenacity stop condition: the wait before the next attempt would use up the time left."""
        wait = state.upcoming_sleep
        left = self.deadline - time.monotonic()
        if wait < left:
            return False
        asked = requested_wait_s(state.outcome.exception() if state.outcome else None)
        who = "the server asked to wait" if asked is not None and asked >= wait else "the next retry would start after"
        self.refusal = f"{who} {wait:.1f} s, more than the {max(left, 0):.1f} s left of the call's limit"
        return True

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def summary(self) -> str:
        """E.g. '3 attempts in 92.4 s', and why no further one was made when time was short."""
        plural = "" if self.made == 1 else "s"
        refusal = f"; {self.refusal}" if self.refusal else ""
        return f"{self.made} attempt{plural} in {self.elapsed_s:.1f} s{refusal}"


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 3  # further attempts after the first
    first_wait_s: float = 0.5
    max_backoff_s: float = 8.0  # the longest wait of our own choosing
    max_wait_s: float = math.inf  # the longest wait at all, a server's Retry-After included
    jitter: float = 0.0  # each backoff is up to this fraction shorter, at random

    def wait_s(self, failures: int, asked: float | None = None) -> float:
        """The wait after the `failures`-th failed attempt, when the server asked for `asked` seconds."""
        backoff = min(self.first_wait_s * 2 ** (failures - 1), self.max_backoff_s) * (1 - self.jitter * random.random())
        return min(max(backoff, asked or 0.0), self.max_wait_s)

    def retrying(
        self,
        transient: Callable[[BaseException], bool],
        *,
        budget: CallBudget | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> tenacity.Retrying:
        """A tenacity Retrying for one request: `retrying(send, *args)` returns what `send` returns, or
        re-raises its last failure once that is not transient, the retries are used up, or (with a
        budget) the next wait would not fit in the time left."""
        stop = tenacity.stop_after_attempt(self.retries + 1)
        return tenacity.Retrying(
            retry=tenacity.retry_if_exception(transient),
            wait=self._wait,
            stop=stop | budget.stop if budget is not None else stop,
            sleep=sleep,
            reraise=True,
        )

    def _wait(self, state: tenacity.RetryCallState) -> float:
        return self.wait_s(state.attempt_number, requested_wait_s(state.outcome.exception() if state.outcome else None))
