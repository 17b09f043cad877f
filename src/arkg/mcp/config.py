"""How an MCP server is set up: its default strategy, its limits, where traces go, who may call it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arkg.server import LOOPBACK_HOSTS, Limits


@dataclass(frozen=True)
class McpConfig:
    strategy: str | None = None  # what `ask` uses when a call names none (None: the session's default)
    kg_name: str = "the sample KG"
    limits: Limits = Limits()  # as `arkg serve`'s: queue size, budget caps, question length, body size
    traces: Path | None = None  # when set, each answered question's trace is saved there as {trace_id}.json
    # Over HTTP only: the token every request must carry (None: none), the Host headers accepted (None: any).
    token: str | None = None
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS
