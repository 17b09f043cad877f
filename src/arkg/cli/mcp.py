"""`arkg mcp`: the KG and the model as tools of an MCP client, over stdio or streamable HTTP (see arkg.mcp)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from arkg.agents import DEFAULT_STRATEGIES_HELP, REGISTRY, default_strategy, strategy_info
from arkg.cli.bounds import MAX_INT
from arkg.cli.errors import user_errors
from arkg.cli.options import Model, Retries, Timeout, kg_best_strategy
from arkg.errors import ArkgError
from arkg.graph import open_graph
from arkg.graph.bolt import redact_spec
from arkg.session import Session

TOKEN_VARIABLE = "ARKG_MCP_TOKEN"
HTTP_ONLY = ("host", "port", "token")


def mcp(
    context: typer.Context,
    db: Annotated[
        str | None,
        typer.Option("--db", help="The KG (opened read-only): an arkg SQLite store, or wikidata:URL / rdf:URL. Default: the bundled sample KG."),
    ] = None,
    model: Model = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", "-s", help=f"The strategy of an `ask` call that names none: {', '.join(REGISTRY)}. Default: {DEFAULT_STRATEGIES_HELP}.", show_default=False
        ),
    ] = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="With --http: the address to listen on. Any other than 127.0.0.1, ::1 or localhost requires a token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="With --http: the port to listen on.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_VARIABLE,
            help=f"With --http: require this token as 'Authorization: Bearer TOKEN' (also from ${TOKEN_VARIABLE}). "
            "Default: none on 127.0.0.1, ::1 or localhost, a random one printed at start on any other address.",
        ),
    ] = None,
    traces: Annotated[
        Path | None,
        typer.Option(help="Save each answered question's trace in this folder as TRACE_ID.json (`arkg serve --traces` replays them)."),
    ] = None,
    queue_size: Annotated[
        int, typer.Option("--queue-size", min=1, max=MAX_INT, help="Questions that may wait behind the running one; more are refused.")
    ] = 8,
    max_calls: Annotated[int, typer.Option("--max-calls", min=1, max=MAX_INT, help="A question's model calls at most (a call may ask fewer).")] = 64,
    max_total_tokens: Annotated[
        int, typer.Option("--max-total-tokens", min=1, max=MAX_INT, help="A question's prompt + completion tokens at most (a call may ask fewer).")
    ] = 200_000,
    timeout: Timeout = None,
    retries: Retries = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model; skip the response cache.")] = False,
) -> None:
    """Serve the KG and the model to an MCP client: tools ask, search_entities, entity_edges, kg_info."""
    # Over stdio, stdout carries the protocol: everything for people goes to stderr.
    console = Console(stderr=not http)
    with user_errors():
        arkg_mcp, server = _mcp_modules()
        strategy = strategy or default_strategy(model, kg_best_strategy(model, db))
        strategy_info(strategy)
        if http:
            token, allowed_hosts = server.access_rule(host, token)
        else:
            # By name: typer ships its own copy of click, whose ParameterSource is not click's.
            given = [f"--{name}" for name in HTTP_ONLY if getattr(context.get_parameter_source(name), "name", "") == "COMMANDLINE"]
            if given:
                raise ArkgError(f"{', '.join(given)} apply to --http only; add --http, or leave them out for stdio")
            token, allowed_hosts = None, None  # a token from the environment is meant for HTTP
        if traces is not None and not (traces.is_dir() and os.access(traces, os.W_OK)):
            raise ArkgError(f"--traces {traces}: no such folder, or not writable")
        with console.status("Opening the knowledge graph"):
            session = Session(open_graph(db, read_only=True), model, kg_spec=db, cache=not no_cache, timeout=timeout, retries=retries)
        config = arkg_mcp.McpConfig(
            strategy=strategy,
            kg_name=redact_spec(db) if db else "the sample KG",
            limits=server.Limits(queue_size=queue_size, max_calls=max_calls, max_total_tokens=max_total_tokens),
            traces=traces.resolve() if traces is not None else None,
            token=token,
            allowed_hosts=allowed_hosts,
        )
        with session, arkg_mcp.mcp_server(session, config) as mcp_server:
            with console.status("Loading the model"):
                serving = f"[bold]{escape(config.kg_name)}[/bold] with model [bold]{escape(session.model_name)}[/bold]"
            if not http:
                console.print(f"arkg MCP server: {serving} over stdio (the client that started it stops it)", soft_wrap=True)
                arkg_mcp.run_stdio(mcp_server)
                return
            shown_host = f"[{host}]" if ":" in host else host
            console.print(
                f"MCP server: {serving} at {escape(f'http://{shown_host}:{port}{arkg_mcp.PATH}')} (streamable HTTP; Ctrl-C stops)"
                + (f"\nEvery request needs the header: Authorization: Bearer {escape(token)}" if token else ""),
                soft_wrap=True,
            )
            server.run(arkg_mcp.http_app(mcp_server, config), host, port)


def _mcp_modules() -> tuple[Any, Any]:
    """arkg.mcp and arkg.server, or an error saying how to install what they need."""
    try:
        from arkg import mcp as arkg_mcp
        from arkg import server
    except ModuleNotFoundError as error:
        # The package, not the submodule: an old mcp (1.x) lacks mcp.server.mcpserver, and the extra brings 2.x.
        missing = (error.name or "mcp").partition(".")[0]
        raise ArkgError(f"arkg mcp needs the mcp extra (missing: {missing}): pip install 'arkg[mcp]'") from None
    return arkg_mcp, server


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
