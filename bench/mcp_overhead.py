"""What one MCP `ask` call costs over a direct `Session.ask` of the same question.

The direct call runs in this process; the MCP calls go through the MCP SDK's client to `arkg mcp` in a
child process, over stdio and over streamable HTTP on 127.0.0.1. The model is a scripted one (ARK over
the sample KG: Marie Curie, place of birth, cite, yes; no model time at all), or the bundled SmolLM2
behind a response cache warmed first, so every call is a cache hit and what remains is arkg's own work.
The calls go in rounds, one of each kind a round, so that the machine's load drifts alike for all; each
figure is the median over --runs rounds, after one untimed call of each `ask`. `kg_info` (a tool that
only reads the KG's counts) shows the transport's own round trip.

    python bench/mcp_overhead.py [--model scripted|bundled] [--runs 50]
    python bench/mcp_overhead.py --serve ...   (the child: `arkg ...` with the scripted model)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

QUESTION = "Was Marie Curie born in Warsaw?"


def scripted_model() -> Any:
    from arkg.llm.base import Choice, Message, OutputSpec, Sampling
    from arkg.llm.scripted import ScriptedModel

    fields = {"implication": "Her place of birth is Warsaw.", "continue_exploring": False, "explanation": "The KG says so.", "answer": "yes"}

    def reply(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Any:
        if isinstance(output, Choice):
            return next((option for option in ("Marie Curie", "place of birth") if option in output.options), output.options[0])
        values: dict[str, Any] = {}
        for name, schema in output.model_json_schema()["properties"].items():
            items = schema.get("items", {})
            values[name] = items["enum"][:1] if "enum" in items else [items["const"]] if "const" in items else fields.get(name, "")
        return values

    class Forgetful(ScriptedModel):
        """ScriptedModel keeps every call for tests to inspect; over many runs that log would only grow."""

        def complete(self, *args: Any, **kwargs: Any) -> Any:
            completion = super().complete(*args, **kwargs)
            self.calls.clear()
            return completion

    return Forgetful(reply)


def serve_scripted(arguments: list[str]) -> None:
    import arkg.session
    from arkg.cli import main

    arkg.session.open_model = lambda spec, **options: scripted_model()
    sys.argv = ["arkg", *arguments]
    main()


def child_command(model: str, arguments: list[str]) -> list[str]:
    if model == "scripted":
        return [sys.executable, __file__, "--serve", *arguments]
    return [sys.executable, "-m", "arkg", *arguments]


@asynccontextmanager
async def http_server(model: str, environment: dict[str, str]) -> AsyncIterator[str]:
    """`arkg mcp --http` on a free port of 127.0.0.1: its URL once it listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    child = subprocess.Popen(
        child_command(model, ["mcp", "--http", "--port", str(port)]),
        env={**os.environ, **environment},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or child.poll() is not None:
                    raise SystemExit("arkg mcp --http did not start") from None
                await asyncio.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        child.terminate()
        child.wait(timeout=30)


async def measure(model: str, runs: int, environment: dict[str, str]) -> tuple[dict[str, list[float]], Any, list[Any]]:
    """Seconds of each kind of call, in rounds (one call of each kind a round, so load drifts alike for all),
    the direct result, and the MCP replies."""
    from mcp import Client, StdioServerParameters

    from arkg.session import Session

    command, *arguments = child_command(model, ["mcp"])
    stdio = StdioServerParameters(command=command, args=arguments, env=environment)
    with Session(None, scripted_model() if model == "scripted" else None) as session:
        session.ask(QUESTION)  # fills the bundled model's cache before any MCP call
        async with http_server(model, environment) as url, Client(stdio, read_timeout_seconds=120) as over_stdio:
            async with Client(url, read_timeout_seconds=120) as over_http:

                async def ask_directly() -> Any:
                    return session.ask(QUESTION)

                calls: dict[str, Callable[[], Awaitable[Any]]] = {
                    "Session.ask (direct)": ask_directly,
                    "MCP ask, stdio": lambda: over_stdio.call_tool("ask", {"question": QUESTION}),
                    "MCP ask, streamable HTTP": lambda: over_http.call_tool("ask", {"question": QUESTION}),
                    "MCP kg_info, stdio": lambda: over_stdio.call_tool("kg_info", {}),
                    "MCP kg_info, streamable HTTP": lambda: over_http.call_tool("kg_info", {}),
                }
                replies = [await calls[name]() for name in ("MCP ask, stdio", "MCP ask, streamable HTTP")]  # untimed
                seconds: dict[str, list[float]] = {name: [] for name in calls}
                for _ in range(runs):
                    for name, call in calls.items():
                        started = time.perf_counter()
                        await call()
                        seconds[name].append(time.perf_counter() - started)
        return seconds, session.ask(QUESTION), replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("scripted", "bundled"), default="scripted")
    parser.add_argument("--runs", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        # The bundled model's cache, shared with the children; the first direct call fills it.
        environment = {"ARKG_CACHE_DIR": cache}
        os.environ.update(environment)
        seconds, result, replies = asyncio.run(measure(options.model, options.runs, environment))
    for reply in replies:
        if reply.is_error or (reply.structured_content["answer"], reply.structured_content["cited_triples"]) != (
            result.answer,
            result.cited_triples,
        ):
            raise SystemExit(f"the MCP reply differs from the direct answer: {reply} against {result.answer}, {result.cited_triples}")
    calls = f"{result.usage.calls + result.usage.cached_calls} model calls ({result.usage.cached_calls} from the cache)"
    print(f"model: {options.model}; question: {QUESTION!r}; {calls}; medians of {options.runs} rounds")
    print(f"{'call':<30}{'median ms':>10}{'over direct':>14}")
    direct = statistics.median(seconds["Session.ask (direct)"])
    for name, times in seconds.items():
        median = statistics.median(times)
        extra = f"+{(median - direct) * 1000:.2f} ms" if name.startswith("MCP ask") else ""
        print(f"{name:<30}{median * 1000:>10.2f}{extra:>14}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve_scripted(sys.argv[2:])
    else:
        main()
