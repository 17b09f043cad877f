"""The MCP tools and resources over the scripted model, through the SDK's client in-process: look-ups,
progress, the run queue, and mistakes answered as one-line tool errors."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp_helpers import SAMPLE_QUESTION, curie_model

from arkg.agents import REGISTRY
from arkg.mcp import McpConfig, mcp_server
from arkg.server import Limits
from arkg.session import Session


def converse(talk: Callable[[Client], Awaitable[Any]], model: Any = None, config: McpConfig = McpConfig()) -> Any:
    """What `talk` returns from a conversation with a server over the sample KG (at most 30 s)."""
    with Session(None, model or curie_model()) as session, mcp_server(session, config) as server:

        async def run() -> Any:
            async with Client(server) as client:
                return await talk(client)

        return asyncio.run(asyncio.wait_for(run(), 30))


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("ask", {"question": SAMPLE_QUESTION, "strategy": "oracle"}, "unknown strategy 'oracle'; choose one of: ark"),
        ("ask", {"question": SAMPLE_QUESTION, "settings": {"depth": 3}}, "strategy 'ark' has no setting 'depth'"),
        ("ask", {"question": SAMPLE_QUESTION, "settings": {"k_max": 0}}, "invalid setting (k_max"),
        ("ask", {"question": SAMPLE_QUESTION, "max_calls": 65}, "max_calls: 65 asked; this server allows at most 64 per run"),
        ("ask", {"question": "  "}, "question: it is empty"),
        ("ask", {"question": "?" * 1001}, "this server takes at most 1,000"),
        ("entity_edges", {"entity": "Marie Curi"}, "Entity 'Marie Curi' is not in the knowledge graph. Did you mean: Marie Curie"),
    ],
)
def test_a_mistake_comes_back_as_a_one_line_tool_error(tool, arguments, message):
    result = converse(lambda client: client.call_tool(tool, arguments))
    text = result.content[0].text
    assert result.is_error and message in text and "\n" not in text and "Traceback" not in text


def test_an_argument_outside_the_tools_schema_is_refused_naming_it():
    schema = converse(lambda client: client.list_tools()).tools[0].input_schema["properties"]["temperature"]
    result = converse(lambda client: client.call_tool("ask", {"question": SAMPLE_QUESTION, "temperature": 3}))
    assert (schema["minimum"], schema["maximum"]) == (0, 2)
    assert result.is_error and "temperature" in result.content[0].text


def test_the_look_ups_find_entities_their_edges_and_what_the_server_has():
    async def talk(client: Client) -> list[dict]:
        return [
            (await client.call_tool(name, arguments)).structured_content
            for name, arguments in (
                ("search_entities", {"query": "Curie", "k": 3}),
                ("entity_edges", {"entity": "Marie Curie", "limit": 2}),
                ("kg_info", {}),
            )
        ]

    found, edges, info = converse(talk)
    assert len(found["result"]) == 3 and all("Curie" in match["name"] for match in found["result"])
    assert len(edges["outgoing"]) == 2 and edges["not_shown"] > 0
    assert all(edge["head"] == "Marie Curie" for edge in edges["outgoing"])
    assert all(edge["tail"] == "Marie Curie" for edge in edges["incoming"])
    assert info["kg"] == "the sample KG" and info["model"] == "scripted" and info["stats"]["triples"] > 0
    assert set(info["strategies"]) == set(REGISTRY) and info["limits"]["max_calls"] == 64


def test_each_step_is_reported_as_progress_while_the_question_runs():
    messages: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async def talk(client: Client) -> Any:
        return await client.call_tool("ask", {"question": SAMPLE_QUESTION, "max_calls": 4}, progress_callback=progress)

    result = converse(talk)
    assert result.structured_content["usage"]["calls"] == 4
    assert len(messages) >= 4 and all(messages)


def test_questions_wait_in_a_bounded_queue_and_one_more_is_refused():
    gate = threading.Event()  # the running question holds the model until the gate opens
    model = curie_model(gate=gate)

    async def talk(client: Client) -> tuple[list[Any], Any]:
        def ask() -> asyncio.Task:
            return asyncio.create_task(client.call_tool("ask", {"question": SAMPLE_QUESTION}))

        running = ask()
        while not model.calls:
            await asyncio.sleep(0.02)
        queued = ask()
        while (await client.call_tool("kg_info", {})).structured_content["queued"] < 1:
            await asyncio.sleep(0.02)
        refused = await client.call_tool("ask", {"question": SAMPLE_QUESTION})
        gate.set()
        return await asyncio.gather(running, queued), refused

    answered, refused = converse(talk, model, McpConfig(limits=Limits(queue_size=1)))
    assert refused.is_error and "the server is busy" in refused.content[0].text
    assert [result.structured_content["answer"] for result in answered] == [True, True]
    assert answered[0].structured_content["trace_id"] != answered[1].structured_content["trace_id"]


def test_an_unknown_trace_is_a_clear_resource_error():
    async def talk(client: Client) -> MCPError:
        with pytest.raises(MCPError) as refused:
            await client.read_resource("arkg://traces/nothing")
        return refused.value

    assert "no trace 'nothing' on this server: ids come from `ask` replies" in str(converse(talk))


def test_a_call_the_client_cancels_stops_its_run_at_the_next_model_call():
    gate = threading.Event()
    model = curie_model(gate=gate)

    async def talk(client: Client) -> Any:
        call = asyncio.create_task(client.call_tool("ask", {"question": SAMPLE_QUESTION}))
        while not model.calls:
            await asyncio.sleep(0.02)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        gate.set()
        return await client.call_tool("ask", {"question": SAMPLE_QUESTION, "max_calls": 4})

    after = converse(talk, model)
    assert after.structured_content["answer"] is True
    assert len(model.calls) == 1 + 4  # the cancelled run's one call, then the next question's


def test_a_question_naming_what_the_kg_lacks_is_answered_none_naming_it():
    reply = converse(lambda client: client.call_tool("ask", {"question": "Was Marie Kowalska born in Warsaw?"})).structured_content
    assert reply["answer"] is None and reply["basis"] == "unknown entity"
    assert reply["support"]["missing"] == ["Marie Kowalska"]
    assert reply["stop_reason"].startswith("unknown entity: Marie Kowalska is not in the KG (closest: ")
