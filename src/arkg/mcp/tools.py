"""The MCP tools: `ask` (a question through the run queue), and direct KG look-ups.

A mistake of the caller (an unknown strategy, a budget over the server's cap, an entity not in the
KG, a full queue) comes back as a tool error whose text says what to change.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations, whose descriptions
# quote this server's settings, so they are evaluated where the tools are defined.

import json
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from arkg.agents import REGISTRY
from arkg.errors import ArkgError, EntityNotFound
from arkg.graph.model import Direction
from arkg.mcp.config import McpConfig
from arkg.mcp.replies import AskReply, KgInfo, KgStats
from arkg.paths import write_atomically
from arkg.server import ServerConfig, api
from arkg.server.app import ApiError, entity_edges as edges_of, run_request
from arkg.server.runs import QueueFull, Run, RunQueue, RunState
from arkg.session import Session

# Look-ups change nothing, and read this KG only (no outside world).
LOOK_UP = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def register_tools(server: MCPServer, session: Session, runs: RunQueue, config: McpConfig) -> None:
    limits = config.limits
    # The checks and caps of `arkg serve`'s POST /api/runs, with this server's default strategy and limits.
    asking = ServerConfig(strategy=config.strategy, limits=limits)

    @server.tool(annotations=ToolAnnotations(open_world_hint=False))
    async def ask(
        question: Annotated[str, Field(description='The question, or a claim to verify, e.g. "Was Marie Curie born in Warsaw?"')],
        ctx: Context,
        strategy: Annotated[
            str | None, Field(description=f"How to answer: {', '.join(REGISTRY)}. Default: {config.strategy}.")
        ] = None,
        settings: Annotated[
            dict[str, Any] | None,
            Field(description="The strategy's settings to change, by name; arkg://strategies/{strategy} has their schema."),
        ] = None,
        claim: Annotated[
            bool | None, Field(description="Read the input as a claim (true) or a question (false); default: from its wording.")
        ] = None,
        temperature: Annotated[float, Field(ge=0.0, le=2.0, description="Sampling temperature (0: greedy).")] = 0.0,
        seed: int = 0,
        max_calls: Annotated[
            int | None, Field(ge=1, description=f"Model calls at most (default and ceiling: {limits.max_calls}).")
        ] = None,
        max_total_tokens: Annotated[
            int | None,
            Field(ge=1, description=f"Prompt + completion tokens at most (default and ceiling: {limits.max_total_tokens}).")
        ] = None,
    ) -> AskReply:
        """Answer a question (or verify a claim) over the KG; the answer cites the triples it rests on.

        Questions are answered one at a time; each step is reported as progress while it runs."""
        try:
            body = api.AskRequest(
                question=question,
                strategy=strategy,
                settings=settings or {},
                claim=claim,
                temperature=temperature,
                seed=seed,
                max_calls=max_calls,
                max_total_tokens=max_total_tokens,
            )
            run = runs.submit(run_request(body, asking))
        except ValidationError as error:
            raise ToolError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())) from None
        except ApiError as error:
            raise ToolError(error.message) from None
        except (ArkgError, QueueFull) as error:
            raise ToolError(str(error)) from None
        await _follow(run, runs, ctx)
        if run.state is not RunState.DONE or run.result is None:
            raise ToolError(f"no answer: {run.error}")
        if config.traces is not None:
            await anyio.to_thread.run_sync(_save, run, config.traces)
        return AskReply.of(run.result, run.id)

    @server.tool(annotations=LOOK_UP)
    def search_entities(
        query: Annotated[str, Field(min_length=1, max_length=200, description="A name, or part of one.")],
        k: Annotated[int, Field(ge=1, le=50, description="How many matches at most.")] = 10,
    ) -> list[api.EntityMatch]:
        """The KG's entities whose names are closest to `query`, best first (score 0-100)."""
        return [api.EntityMatch(name=match.name, score=match.score) for match in session.kg.search_entities(query, k)]

    @server.tool(annotations=LOOK_UP)
    def entity_edges(
        entity: Annotated[str, Field(min_length=1, max_length=1000, description="The entity's exact name (search_entities finds it).")],
        limit: Annotated[int, Field(ge=1, le=limits.max_edges, description="Edges of each direction at most.")] = 100,
    ) -> api.EdgesView:
        """An entity's outgoing and incoming edges (head, relation, tail, props)."""
        kg = session.kg
        if not kg.has_entity(entity):
            raise ToolError(str(EntityNotFound(entity, [match.name for match in kg.search_entities(entity, 5)])))
        outgoing, more_out = edges_of(kg, entity, Direction.OUT, limit)
        incoming, more_in = edges_of(kg, entity, Direction.IN, limit)
        return api.EdgesView(entity=entity, outgoing=outgoing, incoming=incoming, not_shown=more_out + more_in)

    @server.tool(annotations=LOOK_UP)
    def kg_info() -> KgInfo:
        """Which KG and model this server has, the KG's size, the strategies `ask` takes, and the server's limits."""
        stats = session.kg.stats()
        return KgInfo(
            kg=config.kg_name,
            stats=KgStats(triples=stats.triples, entities=stats.entities, heads=stats.heads, relations=stats.relations),
            model=session.model_name,
            strategy=config.strategy,
            strategies={name: info.summary for name, info in REGISTRY.items()},
            limits=api.LimitsView(**vars(limits)),
            queued=runs.waiting,
        )


async def _follow(run: Run, runs: RunQueue, ctx: Context) -> None:
    """Wait for the run to end, each step sent as progress (to a client that asked for it). A call the
    client cancels cancels its run, as a closed event stream does in `arkg serve`."""
    runs.attach(run)
    try:
        async for step in run.follow():
            await ctx.report_progress(step["index"], message=step["text"])
    finally:
        runs.detach(run)


def _save(run: Run, folder: Path) -> None:
    """The run's result with its trace, as `arkg ask --trace` writes it (so `arkg serve` replays it)."""
    try:
        write_atomically(folder / f"{run.id}.json", json.dumps(run.result, indent=2, ensure_ascii=False))
    except OSError as error:
        raise ToolError(
            f"answered (trace_id {run.id}, the resource arkg://traces/{run.id}), but its trace could not be saved "
            f"in {folder}: {error.strerror or error}"
        ) from None
