"""`arkg serve`: a question box over a KG, an HTTP API, and the explored graph drawn live.

Needs the `web` extra (`pip install 'arkg[web]'`). The application is built over an open Session:

    from arkg.server import ServerConfig, create_app, run
    run(create_app(Session(db, model), ServerConfig(strategy="ark")), "127.0.0.1", 8000)
"""

from __future__ import annotations

from typing import Any

import uvicorn

from arkg.server.app import LOOPBACK_HOSTS, Limits, ServerConfig, create_app


def run(app: Any, host: str, port: int) -> None:
    """Serve the application until Ctrl-C (uvicorn: a bad address or a busy port is one line, exit status 1)."""
    uvicorn.run(app, host=host, port=port, log_level="info")


__all__ = ["LOOPBACK_HOSTS", "Limits", "ServerConfig", "create_app", "run"]
