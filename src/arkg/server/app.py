"""The HTTP API and the page of `arkg serve`, as one ASGI application over an open Session.

    app = create_app(Session(db, model), ServerConfig(traces=Path("runs")))
    uvicorn.run(app, host="127.0.0.1", port=8000)

Every error is JSON, `{"error": "what to fix", "status": N}`. The API is described at /api/docs
(Swagger UI served from the installed package, like everything the page loads).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query as Param, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arkg.agents import MAX_QUESTION_CHARS, REGISTRY, Budget, Query, strategy_info, strategy_settings
from arkg.errors import ArkgError, EntityNotFound
from arkg.graph.model import Direction, Triple
from arkg.llm.base import Sampling
from arkg.server import api
from arkg.server.guards import LOOPBACK_HOSTS, TOKEN_COOKIE, BodyLimit, HostGuard, TokenGuard, error_response
from arkg.server.assets import STATIC, vis_network_folder
from arkg.server.replay import NotATraceFile, TraceFolder, TraceNotFound
from arkg.server.runs import QueueFull, Run, RunQueue, RunRequest
from arkg.server.steps import edge
from arkg.session import Session

# The page and its scripts come from this server only; KG text can never run as code in it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 64 * 1024
    max_question_chars: int = MAX_QUESTION_CHARS
    queue_size: int = 8  # runs waiting behind the running one
    max_calls: int = 64  # a run's model calls, at most (a request may ask for fewer)
    max_total_tokens: int = 200_000  # a run's prompt + completion tokens, at most
    keep_runs: int = 200  # finished runs kept for GET /api/runs/{id}
    max_edges: int = 500  # edges of one entity per response
    max_trace_bytes: int = 512 * 1024 * 1024


@dataclass(frozen=True)
class ServerConfig:
    strategy: str | None = None  # the default of a request that names none (None: the session's default)
    traces: Path = field(default_factory=Path.cwd)  # the only folder trace files are read from
    token: str | None = None  # when set, every request must carry it
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS  # Host headers accepted (None: any)
    kg_name: str = "the sample KG"
    limits: Limits = Limits()


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.message = message
        self.headers = headers or {}
        super().__init__(message)


def create_app(session: Session, config: ServerConfig = ServerConfig()) -> FastAPI:
    """The application: API under /api, the page at /, its files under /static and /vendor."""
    config = replace(config, strategy=config.strategy or session.default_strategy)
    strategy_info(config.strategy)  # an unknown default is an error now, not at the first request
    limits = config.limits
    runs = RunQueue(session, limits.queue_size, limits.keep_runs)
    traces = TraceFolder(config.traces, limits.max_trace_bytes)
    vis_network = vis_network_folder()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runs.start()
        try:
            yield
        finally:
            runs.stop()

    app = FastAPIOffline(
        title="arkg",
        summary="Ask questions over a knowledge graph and watch the agent explore it.",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        static_url="/api/docs-files",
        lifespan=lifespan,
    )
    app.state.runs = runs

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, error: ApiError) -> JSONResponse:
        return error_response(error.status, error.message, error.headers)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, error: HTTPException) -> JSONResponse:
        return error_response(error.status_code, str(error.detail), dict(error.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = [_problem(item) for item in error.errors()]
        return error_response(422, "; ".join(problems) or "invalid request")

    @app.exception_handler(ArkgError)
    async def _arkg_error(request: Request, error: ArkgError) -> JSONResponse:
        return error_response(422, str(error))

    # -- the page -------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def page(request: Request, token: str | None = None) -> Response:
        if token is not None and config.token is not None:  # the URL printed at start: keep the token in a cookie, out of the address bar
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            return response
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/vendor/vis-network", StaticFiles(directory=vis_network), name="vis-network")

    # -- the API --------------------------------------------------------------------------------

    @app.get("/api/info", response_model=api.Info, tags=["server"])
    def info() -> api.Info:
        """The model, the KG, the strategies with their settings, and this server's limits."""
        return api.Info(
            model=session.model_name,
            kg=config.kg_name,
            strategy=config.strategy,
            strategies=[
                api.StrategyView(
                    name=item.name,
                    summary=item.summary,
                    uses_kg=item.uses_kg,
                    settings=item.settings.model_json_schema(),
                )
                for item in REGISTRY.values()
            ],
            limits=api.LimitsView(**vars(limits)),
            queued=runs.waiting,
        )

    # Run endpoints only touch memory: they stay on the event loop, never waiting for a worker thread.
    @app.post(
        "/api/runs",
        status_code=202,
        response_model=api.RunView,
        tags=["runs"],
        responses={413: {"model": api.ErrorView}, 422: {"model": api.ErrorView}, 503: {"model": api.ErrorView}},
    )
    async def ask(body: api.AskRequest) -> api.RunView:
        """Queue a question. Follow it at `events` (server-sent events), fetch its result at `result`.

        A full queue answers 503 with Retry-After; a run whose last event stream disconnects is cancelled.
        """
        try:
            run = runs.submit(run_request(body, config))
        except QueueFull as full:
            raise ApiError(503, str(full), {"Retry-After": str(full.retry_after)}) from None
        return _run_view(run, runs)

    @app.get("/api/runs/{run_id}", response_model=api.RunView, tags=["runs"], responses={404: {"model": api.ErrorView}})
    async def run_status(run_id: str) -> api.RunView:
        """A run's state; once done, its result with the whole trace."""
        return _run_view(_find(runs, run_id), runs, full=True)

    @app.delete("/api/runs/{run_id}", response_model=api.RunView, tags=["runs"], responses={404: {"model": api.ErrorView}})
    async def cancel(run_id: str) -> api.RunView:
        """Cancel a run: a queued one at once, a running one at its next model call."""
        run = _find(runs, run_id)
        runs.cancel(run, "cancelled on request")
        return _run_view(run, runs)

    @app.get("/api/runs/{run_id}/events", tags=["runs"], responses={404: {"model": api.ErrorView}})
    async def events(run_id: str) -> EventSourceResponse:
        """Server-sent events: `step` for each event of the strategy (all of them, from the first), then
        one `end` with how the run ended. Closing the stream cancels the run unless another client follows it."""
        return EventSourceResponse(_stream(_find(runs, run_id), runs), ping=15)

    @app.get("/api/entities", response_model=list[api.EntityMatch], tags=["graph"])
    def entities(q: str = Param(min_length=1, max_length=200), k: int = Param(10, ge=1, le=50)) -> list[api.EntityMatch]:
        """Entities whose names are closest to `q`, best first."""
        return [api.EntityMatch(name=match.name, score=match.score) for match in session.kg.search_entities(q, k)]

    @app.get("/api/edges", response_model=api.EdgesView, tags=["graph"], responses={404: {"model": api.ErrorView}})
    def edges(entity: str = Param(min_length=1, max_length=1000), limit: int = Param(100, ge=1)) -> api.EdgesView:
        """An entity's outgoing and incoming edges with their props (at most `limit` of each)."""
        kg = session.kg
        if not kg.has_entity(entity):
            error = EntityNotFound(entity, [match.name for match in kg.search_entities(entity, 5)])
            raise ApiError(404, str(error))
        limit = min(limit, limits.max_edges)
        outgoing, more_out = entity_edges(kg, entity, Direction.OUT, limit)
        incoming, more_in = entity_edges(kg, entity, Direction.IN, limit)
        return api.EdgesView(entity=entity, outgoing=outgoing, incoming=incoming, not_shown=more_out + more_in)

    @app.get("/api/traces", response_model=list[api.TraceFileView], tags=["replay"])
    def trace_files() -> list[api.TraceFileView]:
        """Trace files (`arkg ask --trace`) and results files (`arkg eval`) in the server's trace folder."""
        return [api.TraceFileView(name=item.name, bytes=item.bytes) for item in traces.files()]

    @app.get("/api/traces/runs", tags=["replay"], responses={404: {"model": api.ErrorView}})
    def trace_runs(name: str) -> list[dict[str, Any]]:
        """The runs saved in one file: one for a trace file, one per record for a results file."""
        return _traced(lambda: traces.runs(name))

    @app.get("/api/traces/replay", tags=["replay"], responses={404: {"model": api.ErrorView}})
    def replay(name: str, index: int = Param(0, ge=0)) -> dict[str, Any]:
        """One saved run as steps (each with the part of the graph it touched) and its result."""
        return _traced(lambda: traces.replay(name, index))

    # Added innermost first: the Host check runs before everything, the security headers cover every response.
    app.add_middleware(BodyLimit, limit=limits.max_body_bytes)
    if config.token is not None:
        app.add_middleware(TokenGuard, token=config.token)
    if config.allowed_hosts is not None:
        app.add_middleware(HostGuard, hosts=config.allowed_hosts)
    app.add_middleware(_SecurityHeaders)
    return app


# -- requests into runs -----------------------------------------------------------------------------


def run_request(body: api.AskRequest, config: ServerConfig) -> RunRequest:
    limits = config.limits
    if len(body.question) > limits.max_question_chars:
        raise ApiError(
            422, f"question: {len(body.question):,} characters; this server takes at most {limits.max_question_chars:,}"
        )
    if not body.question.strip():
        raise ApiError(422, 'question: it is empty; ask something, e.g. "Was Marie Curie born in Warsaw?"')
    strategy = body.strategy or config.strategy
    info = strategy_info(strategy)
    settings = strategy_settings(strategy, body.settings)
    for name, asked, most in (("max_calls", body.max_calls, limits.max_calls), ("max_total_tokens", body.max_total_tokens, limits.max_total_tokens)):
        if asked is not None and asked > most:
            raise ApiError(422, f"{name}: {asked:,} asked; this server allows at most {most:,} per run")
    return RunRequest(
        query=Query(text=body.question, claim=body.claim),
        strategy=strategy,
        settings=settings,
        sampling=Sampling(temperature=body.temperature, seed=body.seed, max_tokens=info.max_tokens),
        budget=Budget(max_calls=body.max_calls or limits.max_calls, max_tokens=body.max_total_tokens or limits.max_total_tokens),
    )


def _find(runs: RunQueue, run_id: str) -> Run:
    run = runs.get(run_id)
    if run is None:
        raise ApiError(404, f"no run {run_id!r} on this server (finished runs are kept for a while, then forgotten)")
    return run


def _run_view(run: Run, runs: RunQueue, full: bool = False) -> api.RunView:
    request = run.request
    return api.RunView(
        id=run.id,
        state=run.state.value,
        question=request.query.text,
        strategy=request.strategy,
        settings=request.settings.model_dump(mode="json"),
        position=runs.position(run),
        steps=len(run.steps),
        error=run.error,
        events=f"/api/runs/{run.id}/events",
        result_url=f"/api/runs/{run.id}",
        result=run.result if full else None,
    )


async def _stream(run: Run, runs: RunQueue) -> AsyncIterator[ServerSentEvent]:
    runs.attach(run)
    try:
        async for step in run.follow():
            yield ServerSentEvent(json.dumps(step, ensure_ascii=False), event="step", id=str(step["index"]))
        yield ServerSentEvent(json.dumps(run.outcome(), ensure_ascii=False), event="end")
    finally:  # also when the client went away: then the run is cancelled, unless someone else follows it
        runs.detach(run)


def entity_edges(kg: Any, entity: str, direction: Direction, limit: int) -> tuple[list[dict[str, Any]], int]:
    found: list[Triple] = []
    total = 0
    for relation in kg.relations(entity, direction):
        triples = kg.triples(entity, relation, direction)
        total += len(triples)
        found.extend(triples[: max(0, limit - len(found))])
    return [edge(triple.as_dict()) for triple in found], total - len(found)


def _traced(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except TraceNotFound as error:
        raise ApiError(404, str(error)) from None
    except NotATraceFile as error:
        raise ApiError(422, str(error)) from None


def _problem(error: dict[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path"))
    if error.get("type") == "json_invalid":
        return "the request body is not valid JSON"
    return f"{where}: {error.get('msg')}" if where else str(error.get("msg"))


# -- guards -----------------------------------------------------------------------------------------

class _SecurityHeaders:
    """Headers that keep the page to this server's own scripts, and out of other sites' frames."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"].startswith("/api/docs")  # Swagger UI starts from an inline script

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
                if not docs:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
