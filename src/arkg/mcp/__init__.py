"""`arkg mcp`: the KG and the model as tools of an MCP client (Claude Desktop, an IDE, an agent).

Needs the `mcp` extra (`pip install 'arkg[mcp]'`). Tools: `ask`, `search_entities`, `entity_edges`,
`kg_info`; resources: the strategies with their settings schemas, and the traces of answered
questions. Built over an open Session:

    with Session(db, model) as session, mcp_server(session, McpConfig()) as server:
        run_stdio(server)                        # or: arkg.server.run(http_app(server, config), host, port)
"""

from __future__ import annotations

from arkg.mcp.config import McpConfig
from arkg.mcp.server import mcp_server
from arkg.mcp.transport import PATH, http_app, run_stdio

__all__ = ["PATH", "McpConfig", "http_app", "mcp_server", "run_stdio"]
