"""One Bolt server, reached through the official `neo4j` driver (arkg's `bolt` extra).

Reads run in read transactions that are always rolled back, with the spec's timeout; writes (only the
writer makes them) in write transactions that are committed. FalkorDB has no transactions over Bolt:
there each query is one plain run (see dialect.py). Every failure becomes a BoltError whose
message names the server (never the password) and what to do.
"""

from __future__ import annotations

import logging
import re
from types import ModuleType, TracebackType
from typing import Any

from arkg import __version__
from arkg.errors import ArkgError
from arkg.graph.bolt.dialect import PROBE, CypherDialect, Dialect, FalkorDialect
from arkg.graph.bolt.spec import PASSWORD_VARIABLE, USER_VARIABLE, BoltSpec, parse_bolt_spec

_CONNECT_TIMEOUT = 10.0
_REASON = re.compile(r"\(reason (.+)\)\s*$")


class BoltError(ArkgError):
    """A Bolt server could not be used: unreachable, refused the login, has no such database, ..."""

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        self.reason = reason
        super().__init__(f"Bolt server {where}: {reason}")


class BoltQueryError(BoltError):
    """The server was reached but failed one query."""


class BoltConnection:
    """A driver for one server and database, and the dialect the server speaks (see dialect.py)."""

    def __init__(self, spec: BoltSpec | str) -> None:
        self.spec = spec if isinstance(spec, BoltSpec) else parse_bolt_spec(spec)
        self.dialect: Dialect = CypherDialect()
        self._neo4j = _driver_module(self.spec)
        try:
            self._driver = self._neo4j.GraphDatabase.driver(
                self.spec.uri,
                auth=self.spec.auth,
                connection_timeout=min(self.spec.timeout, _CONNECT_TIMEOUT),
                connection_acquisition_timeout=min(self.spec.timeout, _CONNECT_TIMEOUT),
                notifications_min_severity="OFF",  # e.g. id() is deprecated on Neo4j 5: not the user's concern
                user_agent=f"arkg/{__version__}",
            )
        except (ValueError, self._neo4j.exceptions.ConfigurationError) as error:
            raise BoltError(self.spec.display, f"cannot use this address ({error})") from None
        try:
            self.dialect = self._detect_dialect()
            if isinstance(self.dialect, FalkorDialect) and self.spec.database not in (None, FalkorDialect.graph):
                raise BoltError(
                    self.spec.display,
                    f"this is FalkorDB, whose Bolt endpoint serves only its graph {FalkorDialect.graph!r}"
                    f" (not {self.spec.database!r}); drop the database from the URL, or copy the graph there",
                )
        except BaseException:
            self.close()
            raise

    def read(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The rows of a read-only query (in a transaction that is rolled back)."""
        return self._run(query, params or {}, write=False)

    def write(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The rows of a query run in its own committed write transaction."""
        return self._run(query, params or {}, write=True)

    def close(self) -> None:
        driver = getattr(self, "_driver", None)
        if driver is None:
            return
        _drop_without_goodbye(driver)  # also before the dialect is known: a failed start may have reached FalkorDB
        driver.close()
        self._driver = None

    def __enter__(self) -> BoltConnection:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _detect_dialect(self) -> Dialect:
        """Send the probe parameter raw and read back what the server made of it (dialect.PROBE)."""
        try:
            rows = self._run("RETURN $probe AS probe", {"probe": PROBE}, write=False, prepare=False)
        except BoltError as error:
            if "handshake" not in error.reason:
                raise
            # FalkorDB keeps serving a closed connection's socket number after a GOODBYE: the next
            # connection that gets that number never hears back, and the one after it works.
            rows = self._run("RETURN $probe AS probe", {"probe": PROBE}, write=False, prepare=False)
        answer = rows[0]["probe"] if rows else None
        if answer == PROBE:
            return CypherDialect()
        if answer == "'":
            return FalkorDialect()
        raise BoltError(self.spec.display, f"the server changed a test parameter ({answer!r}): arkg cannot query it safely")

    def _run(self, query: str, params: dict[str, Any], *, write: bool, prepare: bool = True) -> list[dict[str, Any]]:
        neo4j = self._neo4j
        text, values = self.dialect.prepare(query, params) if prepare else (query, params)
        try:
            if not self.dialect.transactions:
                # FalkorDB: BEGIN and COMMIT are no-ops costing a round trip each, and it takes the first
                # key of an auto-commit query's metadata for the graph's name ("mode" for a read): so a
                # plain run without metadata (no database, no timeout, the driver's default mode).
                with self._driver.session(default_access_mode=neo4j.WRITE_ACCESS) as session:
                    return [dict(record.items()) for record in session.run(text, values)]
            mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
            with self._driver.session(database=self.spec.database, default_access_mode=mode) as session:
                transaction = session.begin_transaction(timeout=self.spec.timeout)
                try:
                    rows = [dict(record.items()) for record in transaction.run(text, values)]
                    if write:
                        transaction.commit()
                finally:
                    transaction.close()  # rolls back whatever was not committed: every read
            return rows
        except (neo4j.exceptions.DriverError, neo4j.exceptions.Neo4jError) as error:
            raise translate_error(error, self.spec, neo4j.exceptions) from None


def translate_error(error: Exception, spec: BoltSpec, exceptions: ModuleType) -> BoltError:
    """The BoltError that tells the user what a driver exception means (`exceptions`: neo4j.exceptions)."""
    where = spec.display
    code = str(getattr(error, "code", None) or "")
    server_code = str((getattr(error, "metadata", None) or {}).get("code") or "")  # FalkorDB's own codes
    if isinstance(error, exceptions.AuthError) or "Security.Unauthorized" in code + server_code:
        user = spec.auth[0] if spec.auth else "(none)"
        return BoltError(
            where,
            f"the server refused the login of user {user!r}: wrong user name or password"
            f" (give them in the URL, bolt://USER:PASSWORD@HOST:PORT, or in ${USER_VARIABLE} and ${PASSWORD_VARIABLE})",
        )
    if "DatabaseNotFound" in code:
        return BoltError(where, f"the server has no database named {spec.database!r}")
    if "TransactionTimedOut" in code:
        return BoltQueryError(where, f"a query ran longer than {spec.timeout:g} s (raise it with ?timeout=SECONDS)")
    if isinstance(error, exceptions.ServiceUnavailable | exceptions.SessionExpired):
        return BoltError(where, _unavailable(error, spec))
    if isinstance(error, exceptions.Neo4jError):
        message = str(getattr(error, "message", None) or "").strip().splitlines()
        detail = f"{server_code or code}{': ' + message[0] if message else ''}"
        return BoltQueryError(where, f"the server failed a query ({detail})")
    return BoltError(where, f"{type(error).__name__}: {_last_line(error)}")


def _driver_module(spec: BoltSpec) -> ModuleType:
    try:
        import neo4j
    except ImportError:
        raise BoltError(
            spec.display, "the Bolt backend needs the `neo4j` Python driver: pip install 'arkg[bolt]'"
        ) from None
    # The driver logs connection trouble as warnings; arkg reports it as one error line instead.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    return neo4j


def _unavailable(error: Exception, spec: BoltSpec) -> str:
    text = str(error)
    if "handshake" in text:
        reason = f"no answer to the Bolt handshake within {min(spec.timeout, _CONNECT_TIMEOUT):g} s (is this a Bolt port?)"
    elif "refused" in text.lower():
        reason = "connection refused (is the server running, and is this its Bolt port?)"
    else:
        found = _REASON.search(text)
        reason = found.group(1) if found else _last_line(error)
    if spec.scheme.startswith("neo4j"):
        reason += "; a neo4j:// URL asks the server for its cluster's addresses: for one server (or FalkorDB) use bolt://"
    return f"cannot connect: {reason}"


def _last_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


def _drop_without_goodbye(driver: Any) -> None:
    """Let the driver close its pooled connections without a GOODBYE message (a courtesy Bolt servers
    do without: they see the socket close).

    FalkorDB (4.x) leaves the socket number of a connection that said GOODBYE registered, so that the
    next connection given the same number never gets an answer. A connection marked defunct is closed
    without one. The pool is the driver's private state: if it is not where expected, the driver
    closes as usual (and `_detect_dialect` retries a connection that hangs).
    """
    pool = getattr(driver, "_pool", None)
    for connections in list(getattr(pool, "connections", {}).values()):
        for connection in list(connections):
            if hasattr(connection, "_defunct"):
                connection._defunct = True
