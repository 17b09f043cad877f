"""A small SPARQL 1.1 protocol client: POSTed queries, JSON results, timeouts, retries, a result cache."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import httpx2
from cachetools import LRUCache, cachedmethod

from arkg import __version__
from arkg.errors import ArkgError
from arkg.graph.sparql.terms import Term, is_valid_iri
from arkg.retry import TRANSIENT_STATUSES, RetryPolicy

USER_AGENT = f"arkg/{__version__} (https://pypi.org/project/arkg/; knowledge-graph question answering)"
RESULTS_JSON = "application/sparql-results+json"

Row = dict[str, Term]


class SparqlError(ArkgError):
    """The endpoint could not answer a query (unreachable, timed out, rejected the query)."""

    def __init__(self, endpoint: str, reason: str) -> None:
        self.endpoint = endpoint
        self.reason = reason
        super().__init__(f"SPARQL endpoint {endpoint}: {reason}")


class SparqlClient:
    """Sends queries to one endpoint and caches their results (same query text, same answer).

    Transient failures (connection errors, timeouts, 408/409/429/500/502/503/504) are retried
    `retries` times with exponential backoff from `backoff` seconds, honouring a Retry-After header;
    no wait is longer than `max_wait` seconds (see arkg.retry). Safe to share between threads (an
    evaluation runs questions concurrently).
    """

    def __init__(
        self,
        endpoint: str,
        *,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.5,
        max_wait: float = 30.0,
        cache_size: int = 10_000,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not is_valid_iri(endpoint) or urllib.parse.urlsplit(endpoint).scheme not in ("http", "https"):
            raise ArkgError(f"not an http(s) SPARQL endpoint URL: {endpoint!r}")
        self.endpoint = endpoint
        self.retry_policy = RetryPolicy(retries=retries, first_wait_s=backoff, max_backoff_s=max_wait, max_wait_s=max_wait)
        self.requests = 0
        self._sleep = sleep
        self._http = httpx2.Client(
            headers={"Accept": RESULTS_JSON, "User-Agent": user_agent}, timeout=timeout, follow_redirects=True
        )
        self._cache: LRUCache[str, Any] = LRUCache(cache_size)
        self._cache_lock = threading.Lock()

    def select(self, query: str) -> list[Row]:
        """Rows of a SELECT query, each mapping a bound variable to its term."""
        document = self._document(query)
        try:
            return [
                {name: Term.from_json(value) for name, value in binding.items()}
                for binding in document["results"]["bindings"]
            ]
        except (KeyError, TypeError) as exc:
            raise SparqlError(self.endpoint, f"malformed SELECT result ({exc!r})") from exc

    def ask(self, query: str) -> bool:
        document = self._document(query)
        answer = document.get("boolean") if isinstance(document, dict) else None
        if not isinstance(answer, bool):
            raise SparqlError(self.endpoint, "malformed ASK result (no boolean)")
        return answer

    def close(self) -> None:
        self._http.close()

    # The lock guards the cache only: a query is sent outside it, so other threads' queries go on meanwhile.
    @cachedmethod(attrgetter("_cache"), lock=attrgetter("_cache_lock"))
    def _document(self, query: str) -> Any:
        """The endpoint's JSON answer to a query, after as many attempts as the retry policy allows."""
        retrying = self.retry_policy.retrying(_transient, sleep=self._sleep)
        try:
            response = retrying(self._post, query)
        except httpx2.HTTPStatusError as exc:
            body = exc.response.text.strip()[:500]
            raise SparqlError(self.endpoint, f"HTTP {exc.response.status_code}: {body or exc.response.reason_phrase}") from exc
        except httpx2.TransportError as exc:
            tries = retrying.statistics["attempt_number"]
            raise SparqlError(self.endpoint, f"no answer after {tries} tries ({exc or type(exc).__name__})") from exc
        try:
            return response.json()
        except json.JSONDecodeError as exc:
            raise SparqlError(self.endpoint, f"answer is not SPARQL JSON ({exc})") from exc

    def _post(self, query: str) -> httpx2.Response:
        self.requests += 1
        response = self._http.post(self.endpoint, data={"query": query})
        response.raise_for_status()
        return response


def _transient(error: BaseException) -> bool:
    if isinstance(error, httpx2.HTTPStatusError):
        return error.response.status_code in TRANSIENT_STATUSES
    return isinstance(error, httpx2.TransportError)
