"""`arkg serve`: the question page and HTTP API over one KG and one model (see arkg.server)."""

from __future__ import annotations

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

TOKEN_VARIABLE = "ARKG_SERVE_TOKEN"


def serve(
    db: Annotated[
        str | None,
        typer.Option("--db", help="The KG (opened read-only): an arkg SQLite store, or wikidata:URL / rdf:URL. Default: the bundled sample KG."),
    ] = None,
    model: Model = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", "-s", help=f"The page's default strategy: {', '.join(REGISTRY)}. Default: {DEFAULT_STRATEGIES_HELP}.", show_default=False
        ),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on. Any other than 127.0.0.1, ::1 or localhost requires a token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_VARIABLE,
            help=f"Require this token on every request (also from ${TOKEN_VARIABLE}). Default: none on 127.0.0.1, "
            "::1 or localhost, a random one printed at start on any other address.",
        ),
    ] = None,
    traces: Annotated[
        Path | None,
        typer.Option(help="The folder whose trace and results files the page may replay (nothing outside it is read). Default: the current folder."),
    ] = None,
    queue_size: Annotated[
        int, typer.Option("--queue-size", min=1, max=MAX_INT, help="Runs that may wait behind the running one; more are refused (503).")
    ] = 8,
    header_timeout: Annotated[
        float | None,
        typer.Option(
            "--header-timeout",
            min=0.1,
            help="Close a connection that has not sent a request's headers within this many seconds. Default: 10.",
        ),
    ] = None,
    timeout: Timeout = None,
    retries: Retries = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model; skip the response cache.")] = False,
) -> None:
    """Serve a page where people ask questions over the KG and watch the agent explore it, plus its HTTP API."""
    console = Console()
    with user_errors():
        server = _server_modules()
        strategy = strategy or default_strategy(model, kg_best_strategy(model, db))
        strategy_info(strategy)
        folder = (traces or Path.cwd()).resolve()
        if not folder.is_dir():
            raise ArkgError(f"--traces {traces}: no such folder")
        token, allowed_hosts = server.access_rule(host, token)
        with console.status("Opening the knowledge graph"):
            session = Session(open_graph(db, read_only=True), model, kg_spec=db, cache=not no_cache, timeout=timeout, retries=retries)
        config = server.ServerConfig(
            strategy=strategy,
            traces=folder,
            token=token,
            allowed_hosts=allowed_hosts,
            kg_name=redact_spec(db) if db else "the sample KG",
            limits=server.Limits(queue_size=queue_size),
        )
        with session:
            with console.status("Loading the model"):
                model_name = session.model_name
            app = server.create_app(session, config)
            shown_host = f"[{host}]" if ":" in host else host
            url = f"http://{shown_host}:{port}/" + (f"?token={token}" if token else "")
            console.print(
                f"Serving [bold]{escape(config.kg_name)}[/bold] with model [bold]{escape(model_name)}[/bold]"
                f" at {escape(url)}  (API docs: /api/docs; trace files from {escape(str(folder))}; Ctrl-C stops)",
                soft_wrap=True,
            )
            server.run(app, host, port, header_timeout_s=header_timeout or server.HEADER_TIMEOUT_S)


def _server_modules() -> Any:
    """arkg.server, or an error saying how to install what it needs."""
    try:
        from arkg import server
    except ModuleNotFoundError as error:
        raise ArkgError(f"arkg serve needs the web extra (missing: {error.name}): pip install 'arkg[web]'") from None
    return server


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
