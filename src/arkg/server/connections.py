"""uvicorn's HTTP protocol with a deadline for request headers.

uvicorn times out nothing before a request's headers are in: its keep-alive timer starts after a
response, and a new connection has none, so clients that connect and send nothing (or a few bytes)
could hold connections open for ever. Here a connection is closed when no whole request head has
arrived within the deadline after it opened or after its last response ended.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.auto import AutoHTTPProtocol

HEADER_TIMEOUT_S = 10.0


class _HeaderDeadline(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    header_timeout_s = HEADER_TIMEOUT_S
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._await_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.header_timeout_s, self._close_if_idle)

    def _close_if_idle(self) -> None:
        # No request in flight: none has come since the deadline was set (each response sets a new one).
        if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
            self.transport.close()


def header_deadline_protocol(seconds: float = HEADER_TIMEOUT_S) -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn (`http=`): connections wait at most `seconds` for a request head."""
    return type("HeaderDeadlineProtocol", (_HeaderDeadline,), {"header_timeout_s": seconds})
