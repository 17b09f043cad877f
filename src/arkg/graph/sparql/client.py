"""A small SPARQL 1.1 protocol client: POSTed queries, JSON results, timeouts, retries, a result cache."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from arkg import __version__
from arkg.errors import ArkgError
from arkg.graph.sparql.terms import Term, is_valid_iri

USER_AGENT = f"arkg/{__version__} (https://pypi.org/project/arkg/; knowledge-graph question answering)"
RESULTS_JSON = "application/sparql-results+json"
# Statuses worth another try: rate limiting and transient server or gateway failures.
_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})

Row = dict[str, Term]


class SparqlError(ArkgError):
    """The endpoint could not answer a query (unreachable, timed out, rejected the query)."""

    def __init__(self, endpoint: str, reason: str) -> None:
        self.endpoint = endpoint
        self.reason = reason
        super().__init__(f"SPARQL endpoint {endpoint}: {reason}")


class SparqlClient:
    """Sends queries to one endpoint and caches their results (same query text, same answer).

    Transient failures (connection errors, timeouts, 429 and 5xx) are retried `retries` times with
    exponential backoff, honouring a Retry-After header up to `max_wait` seconds. Safe to share
    between threads (an evaluation runs questions concurrently).
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
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_wait = max_wait
        self.user_agent = user_agent
        self.requests = 0
        self._sleep = sleep
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    def select(self, query: str) -> list[Row]:
        """Rows of a SELECT query, each mapping a bound variable to its term."""
        document = self._cached(query)
        try:
            return [
                {name: Term.from_json(value) for name, value in binding.items()}
                for binding in document["results"]["bindings"]
            ]
        except (KeyError, TypeError) as exc:
            raise SparqlError(self.endpoint, f"malformed SELECT result ({exc!r})") from exc

    def ask(self, query: str) -> bool:
        document = self._cached(query)
        answer = document.get("boolean") if isinstance(document, dict) else None
        if not isinstance(answer, bool):
            raise SparqlError(self.endpoint, "malformed ASK result (no boolean)")
        return answer

    def _cached(self, query: str) -> Any:
        with self._cache_lock:
            if query in self._cache:
                self._cache.move_to_end(query)
                return self._cache[query]
        document = self._send(query)  # outside the lock: other threads' queries go on meanwhile
        with self._cache_lock:
            self._cache[query] = document
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return document

    def _send(self, query: str) -> Any:
        request = urllib.request.Request(
            self.endpoint,
            data=urllib.parse.urlencode({"query": query}).encode(),
            headers={
                "Accept": RESULTS_JSON,
                "Content-Type": "application/x-www-form-urlencoded",
                "User-Agent": self.user_agent,
            },
            method="POST",
        )
        attempt = 0
        while True:
            wait = self.backoff * 2**attempt
            try:
                self.requests += 1
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                body = exc.read().decode("utf-8", "replace").strip()[:500]
                if exc.code not in _RETRYABLE_STATUS or attempt == self.retries:
                    raise SparqlError(self.endpoint, f"HTTP {exc.code}: {body or exc.reason}") from exc
                wait = max(wait, _retry_after(exc.headers.get("Retry-After")))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.retries:
                    reason = getattr(exc, "reason", exc)
                    raise SparqlError(self.endpoint, f"no answer after {attempt + 1} tries ({reason})") from exc
            except json.JSONDecodeError as exc:
                raise SparqlError(self.endpoint, f"answer is not SPARQL JSON ({exc})") from exc
            self._sleep(min(wait, self.max_wait))
            attempt += 1


def _retry_after(header: str | None) -> float:
    try:
        return float(header) if header else 0.0
    except ValueError:  # an HTTP date: fall back to our own backoff
        return 0.0
