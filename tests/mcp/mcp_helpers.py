"""Helpers of the MCP tests: the server tests' scripted model, `arkg` started with it, and bounded waits."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from support.serving import SAMPLE_QUESTION, curie_model, free_port, live_server

SCRIPTED_ARKG = Path(__file__).with_name("scripted_arkg.py")
TOOLS = {"ask", "search_entities", "entity_edges", "kg_info"}
# The first message of an MCP conversation, as a client POSTs it over HTTP.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def scripted_command(*arguments: str) -> list[str]:
    """The command line of `arkg ARGUMENTS` whose model, whatever the spec, is the scripted Curie model."""
    return [sys.executable, str(SCRIPTED_ARKG), *arguments]


def wait_for_port(port: int, alive: Callable[[], bool], seconds: float = 30) -> None:
    """Until something listens on 127.0.0.1:port; an error when `alive()` turns false or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive():
            raise AssertionError("the server exited before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port} within {seconds} s")


__all__ = ["INITIALIZE", "MCP_HEADERS", "SAMPLE_QUESTION", "TOOLS", "curie_model", "free_port", "live_server", "scripted_command", "wait_for_port"]
