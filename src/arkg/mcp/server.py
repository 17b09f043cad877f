"""The MCP server over an open Session: its configuration and its lifetime.

Questions run on `arkg serve`'s run queue (one at a time on the one model, a bounded queue, the
same budget caps), so both servers serialize and budget alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from importlib.metadata import version

from mcp.server.mcpserver import MCPServer

from arkg.agents import strategy_info
from arkg.mcp.config import McpConfig
from arkg.mcp.resources import register_resources
from arkg.mcp.tools import register_tools
from arkg.server.runs import RunQueue
from arkg.session import Session

INSTRUCTIONS = (
    "Answers questions over a knowledge graph (KG) with an LLM agent whose every factual step cites KG "
    "triples. Call `ask` with a question or a claim; `search_entities` and `entity_edges` look the KG up "
    "directly; `kg_info` says which KG, model and strategies this server has."
)


@contextmanager
def mcp_server(session: Session, config: McpConfig = McpConfig()) -> Iterator[MCPServer]:
    """The server with its tools and resources, its run queue working until the block ends."""
    config = replace(config, strategy=config.strategy or session.default_strategy)
    strategy_info(config.strategy)  # an unknown default is an error now, not at the first question
    runs = RunQueue(session, config.limits.queue_size, config.limits.keep_runs)
    server = MCPServer(
        "arkg",
        title="arkg: questions over a knowledge graph",
        instructions=INSTRUCTIONS,
        version=version("arkg"),
        log_level="WARNING",  # over stdio the log shares stderr with the client's view of the server
    )
    register_tools(server, session, runs, config)
    register_resources(server, runs)
    runs.start()
    try:
        yield server
    finally:
        runs.stop()
