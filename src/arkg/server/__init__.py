"""`arkg serve`: a question box over a KG, an HTTP API, and the explored graph drawn live.

Needs the `web` extra (`pip install 'arkg[web]'`). The application is built over an open Session:

    from arkg.server import ServerConfig, create_app, run
    run(create_app(Session(db, model), ServerConfig(strategy="r3")), "127.0.0.1", 8000)
"""

from __future__ import annotations

from typing import Any

import uvicorn

from arkg.server.app import Limits, ServerConfig, create_app
from arkg.server.connections import HEADER_TIMEOUT_S, header_deadline_protocol
from arkg.server.guards import LOOPBACK_HOSTS, access_rule


def run(app: Any, host: str, port: int, header_timeout_s: float = HEADER_TIMEOUT_S) -> None:
    """Serve the application until Ctrl-C (uvicorn: a bad address or a busy port is one line, exit status 1).

    A connection that has not sent a whole request head `header_timeout_s` after it opened, or after
    its last response, is closed."""
    uvicorn.run(app, host=host, port=port, log_level="info", http=header_deadline_protocol(header_timeout_s))


__all__ = ["HEADER_TIMEOUT_S", "LOOPBACK_HOSTS", "access_rule", "Limits", "ServerConfig", "create_app", "run"]
