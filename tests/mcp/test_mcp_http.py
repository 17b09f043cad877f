"""`arkg mcp --http`: streamable HTTP on 127.0.0.1 for the MCP SDK's client, behind `arkg serve`'s Host and token checks."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import urllib.error
import urllib.request

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import INITIALIZE, MCP_HEADERS, SAMPLE_QUESTION, TOOLS, curie_model, free_port, live_server, scripted_command, wait_for_port

from arkg.mcp import McpConfig, http_app, mcp_server
from arkg.session import Session

def test_the_command_serves_a_client_over_http_and_stops_on_ctrl_c(tmp_path):
    port = free_port()
    server = subprocess.Popen(
        scripted_command("mcp", "--strategy", "ark", "--http", "--port", str(port)), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )

    async def converse() -> tuple[set[str], dict]:
        async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=30) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            return tools, (await client.call_tool("ask", {"question": SAMPLE_QUESTION})).structured_content

    try:
        wait_for_port(port, lambda: server.poll() is None)
        tools, reply = asyncio.run(asyncio.wait_for(converse(), 60))
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    with Session(None, curie_model()) as session:
        direct = session.ask(SAMPLE_QUESTION)
    assert tools == TOOLS
    assert (reply["answer"], reply["cited_triples"]) == (direct.answer, direct.cited_triples)
    assert server.returncode == 0, output
    assert f"at http://127.0.0.1:{port}/mcp" in output and "Traceback" not in output


def test_with_a_token_a_request_without_it_is_refused_and_a_client_sending_it_is_served():
    config = McpConfig(token="s3cret")
    with Session(None, curie_model()) as session, mcp_server(session, config) as server, live_server(http_app(server, config)) as live:
        url = f"{live.url}/mcp"
        assert _post(url, INITIALIZE)[0] == 401
        assert _post(url, INITIALIZE, {"Authorization": "Bearer wrong"})[0] == 401

        async def converse() -> set[str]:
            http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                return {tool.name for tool in (await client.list_tools()).tools}

        assert asyncio.run(asyncio.wait_for(converse(), 30)) == TOOLS


def test_another_host_name_or_a_body_over_the_servers_limit_is_refused():
    config = McpConfig()
    with Session(None, curie_model()) as session, mcp_server(session, config) as server, live_server(http_app(server, config)) as live:
        url = f"{live.url}/mcp"
        status, body = _post(url, INITIALIZE, {"Host": "evil.example"})
        assert status == 400 and "invalid host header" in body.lower()
        assert _post(url, {**INITIALIZE, "padding": "x" * config.limits.max_body_bytes})[0] == 413
        assert _post(url, INITIALIZE)[0] == 200


def _post(url: str, message: dict, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """The status and body of one MCP message POSTed as a client would."""
    request = urllib.request.Request(
        url,
        data=json.dumps(message).encode(),
        headers={**MCP_HEADERS, **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
