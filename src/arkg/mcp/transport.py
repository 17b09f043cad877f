"""How the MCP server is reached: over stdio (a client starts `arkg mcp` itself), or streamable HTTP.

Over HTTP the server takes `arkg serve`'s guards: only the Host names it was configured for (DNS
rebinding), its token on every request when it has one, and its request body limit.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from arkg.mcp.config import McpConfig
from arkg.server.guards import HostGuard, TokenGuard

PATH = "/mcp"


def run_stdio(server: MCPServer) -> None:
    """Serve one client over stdin and stdout until it closes them."""
    server.run("stdio")


def http_app(server: MCPServer, config: McpConfig) -> ASGIApp:
    """The streamable HTTP application (at PATH) behind `arkg serve`'s Host and token checks."""
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=PATH,
        max_request_body_size=config.limits.max_body_bytes,
        # arkg's own Host check below replaces the SDK's, so both servers accept the same names.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    if config.token is not None:
        app = TokenGuard(app, token=config.token, command="arkg mcp --http")
    if config.allowed_hosts is not None:
        app = HostGuard(app, hosts=config.allowed_hosts, command="arkg mcp --http")
    return app
