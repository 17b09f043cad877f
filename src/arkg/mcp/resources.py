"""The MCP resources: the strategies with their settings schemas, and the traces of answered questions."""

from __future__ import annotations

import json
from collections.abc import Callable

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from arkg.agents import REGISTRY
from arkg.agents.strategy import StrategyInfo
from arkg.server.api import StrategyView
from arkg.server.runs import RunQueue, RunState

JSON = "application/json"


def register_resources(server: MCPServer, runs: RunQueue) -> None:
    @server.resource("arkg://strategies", name="strategies", mime_type=JSON)
    def strategies() -> str:
        """Every strategy `ask` takes: its summary, whether it reads the KG, and its settings' JSON schema."""
        return json.dumps([_view(info) for info in REGISTRY.values()], indent=2)

    for info in REGISTRY.values():
        server.resource(
            f"arkg://strategies/{info.name}",
            name=f"strategy {info.name}",
            description=f"{info.summary} Its settings' JSON schema (ask's `settings` changes them by name).",
            mime_type=JSON,
        )(_reader(info))

    @server.resource("arkg://traces/{trace_id}", name="trace", mime_type=JSON)
    def trace(trace_id: str) -> str:
        """The result of an answered question with its whole trace (the server keeps its latest runs only)."""
        run = runs.get(trace_id)
        if run is None or run.state is not RunState.DONE:
            raise ResourceNotFoundError(
                f"no trace {trace_id!r} on this server: ids come from `ask` replies, and only the latest "
                f"{runs.keep} runs are kept"
            )
        return json.dumps(run.result, indent=2, ensure_ascii=False)


def _reader(info: StrategyInfo) -> Callable[[], str]:
    def read() -> str:
        return json.dumps(_view(info), indent=2)

    return read


def _view(info: StrategyInfo) -> dict[str, object]:
    view = StrategyView(name=info.name, summary=info.summary, uses_kg=info.uses_kg, settings=info.settings.model_json_schema())
    return view.model_dump()
