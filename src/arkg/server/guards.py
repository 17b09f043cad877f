"""What every arkg HTTP server (`arkg serve`, `arkg mcp --http`) checks before a request reaches it:
the Host header (DNS rebinding), the token, the body's size; and the rule that decides the first two
from the address it listens on. Errors are JSON, `{"error": "what to fix", "status": N}`."""

from __future__ import annotations

import ipaddress
import re
import secrets

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arkg.errors import ArkgError

TOKEN_COOKIE = "arkg_token"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
# A Host header: a name or an IPv4 address, or an IPv6 address in brackets; then an optional port.
HOST_HEADER = re.compile(r"(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]/@?#\s]+))(?::\d*)?")


def access_rule(host: str, token: str | None) -> tuple[str | None, tuple[str, ...] | None]:
    """The token and the Host names a server listening on `host` requires.

    A token is needed on any address but 127.0.0.1, ::1 and localhost (a random one when none is
    given). On a loopback address a request must name that address or localhost, so that another
    site's name resolving here is refused; elsewhere the token is the guard and any name is taken.
    """
    if token is not None and not token.strip():
        raise ArkgError("--token is empty; give a token, or leave the option out")
    if token is None and host not in LOOPBACK_HOSTS:
        token = secrets.token_urlsafe(24)
    return token, (*LOOPBACK_HOSTS, host) if is_loopback(host) else None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)


class HostGuard:
    """Answers only requests whose Host header names one of `hosts` (a port may follow): a page of
    another site whose name resolves to this server's address (DNS rebinding) gets a 400."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...], command: str = "arkg serve") -> None:
        self.app = app
        self.command = command
        self.hosts = {host.strip("[]").lower() for host in hosts}  # "[::1]" in a URL is the address ::1

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("host", "")
        named = HOST_HEADER.fullmatch(given)
        if named is not None and (named["ip6"] or named["name"]).lower() in self.hosts:
            await self.app(scope, receive, send)
            return
        message = (
            f"invalid host header {given!r}: this server answers only to {', '.join(sorted(self.hosts))} "
            f"(open it by the address `{self.command}` printed)"
        )
        await error_response(400, message)(scope, receive, send)


class TokenGuard:
    """Every request carries the token: `Authorization: Bearer TOKEN`, or the cookie the page got from
    opening `/?token=TOKEN` (the URL `arkg serve` prints)."""

    def __init__(self, app: ASGIApp, token: str, command: str = "arkg serve") -> None:
        self.app = app
        self.token = token
        self.command = command

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._allowed(Request(scope)):
            await self.app(scope, receive, send)
            return
        response = error_response(
            401,
            f"this server needs its token: open the URL `{self.command}` printed (it ends in ?token=...), "
            "or send the header 'Authorization: Bearer TOKEN'",
            {"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)

    def _allowed(self, request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        offered = [given if scheme.lower() == "bearer" else "", request.cookies.get(TOKEN_COOKIE, "")]
        if request.url.path == "/" and request.method == "GET":
            offered.append(request.query_params.get("token", ""))
        return any(secrets.compare_digest(item.encode(), self.token.encode()) for item in offered if item)


class BodyLimit:
    """Refuses a request body over the limit with 413, before the application reads any of it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, receive, send)
            return
        body, more = b"", True
        while more:  # bodies are small: read it whole, counting, so a chunked body is limited too
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(scope, receive, send)
                return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"the request body is over {self.limit:,} bytes, this server's limit; send a shorter question or fewer settings"
        await error_response(413, message)(scope, receive, send)
