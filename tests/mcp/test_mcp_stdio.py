"""`arkg mcp` over stdio, driven by the MCP SDK's own client: tools, resources, and `ask` answering as the library does."""

from __future__ import annotations

import asyncio
import json

from mcp import Client, StdioServerParameters
from mcp_helpers import SAMPLE_QUESTION, TOOLS, curie_model, scripted_command

from arkg.agents import REGISTRY
from arkg.server.replay import TraceFolder
from arkg.session import Session


def test_a_client_lists_the_tools_and_ask_answers_and_cites_as_the_library_does(tmp_path):
    command, *arguments = scripted_command("mcp", "--strategy", "ark", "--traces", str(tmp_path))

    async def converse() -> dict:
        async with Client(StdioServerParameters(command=command, args=arguments), read_timeout_seconds=30) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            asked = await client.call_tool("ask", {"question": SAMPLE_QUESTION})
            trace_id = asked.structured_content["trace_id"]
            trace = await client.read_resource(f"arkg://traces/{trace_id}")
            resources = {str(resource.uri) for resource in (await client.list_resources()).resources}
            ark = await client.read_resource("arkg://strategies/ark")
            return {"tools": tools, "asked": asked, "trace": trace, "resources": resources, "ark": ark}

    seen = asyncio.run(asyncio.wait_for(converse(), 60))
    assert set(seen["tools"]) == TOOLS
    assert "question" in seen["tools"]["ask"].input_schema["properties"]

    with Session(None, curie_model()) as session:
        direct = session.ask(SAMPLE_QUESTION)
    reply = seen["asked"].structured_content
    assert not seen["asked"].is_error
    assert (reply["answer"], reply["basis"], reply["cited_triples"]) == (direct.answer, "kg", direct.cited_triples)
    assert reply["cited_triples"] == [{"head": "Marie Curie", "relation": "place of birth", "tail": "Warsaw", "props": {}}]

    # The trace id names the whole run twice: a resource, and a trace file that `arkg serve` replays.
    saved = json.loads(seen["trace"].contents[0].text)
    assert saved["answer"] is True and saved["trace"]["events"]
    name = f"{reply['trace_id']}.json"
    assert json.loads((tmp_path / name).read_text()) == saved
    assert TraceFolder(tmp_path, 10**6).replay(name, 0)["result"]["answer"] is True

    assert seen["resources"] == {"arkg://strategies", *(f"arkg://strategies/{name}" for name in REGISTRY)}
    ark = json.loads(seen["ark"].contents[0].text)
    assert ark["name"] == "ark" and "k_max" in ark["settings"]["properties"]
