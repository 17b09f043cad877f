"""The MCP `ask` tool with the real bundled model over stdio answers and cites as `arkg ask` does."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp_helpers import SAMPLE_QUESTION


@pytest.mark.slow
def test_ask_through_an_mcp_client_gives_the_answer_and_citations_of_arkg_ask(tmp_path):
    # One thread each, so the two runs share two cores side by side and compute alike; no cache, so both run the model.
    environment = {"ARKG_LLAMA_THREADS": "1", "ARKG_CACHE_DIR": str(tmp_path)}
    arkg = [sys.executable, "-m", "arkg"]
    command_line = subprocess.Popen(
        [*arkg, "ask", "--json", "--no-cache", SAMPLE_QUESTION],
        env={**os.environ, **environment},
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    async def through_mcp() -> dict:
        server = StdioServerParameters(command=arkg[0], args=[*arkg[1:], "mcp", "--no-cache"], env=environment, cwd=tmp_path)
        async with Client(server, read_timeout_seconds=120) as client:
            result = await client.call_tool("ask", {"question": SAMPLE_QUESTION})
        assert not result.is_error, result.content
        return result.structured_content

    try:
        reply = asyncio.run(asyncio.wait_for(through_mcp(), 150))
        output, errors = command_line.communicate(timeout=150)
    finally:
        if command_line.poll() is None:
            command_line.kill()
            command_line.communicate()
    assert command_line.returncode == 0, errors
    expected = json.loads(output)
    assert expected["usage"]["cached_calls"] == 0 and reply["usage"]["cached_calls"] == 0
    assert reply["usage"]["calls"] == expected["usage"]["calls"] > 0
    assert (reply["answer"], reply["basis"], reply["cited_triples"]) == (expected["answer"], expected["basis"], expected["cited_triples"])
