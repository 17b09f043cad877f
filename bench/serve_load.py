"""Load test of `arkg serve` on 127.0.0.1: many clients asking at once, with the scripted model.

The server runs in a child process (this script with --serve): the sample KG, ARK, and the model
`arkg serve --model test` opens (so whatever it keeps is measured too), its replies scripted to sleep
--model-delay seconds per call and answer each question with the code word the question carries
(`c7-r3`), so every answer can be matched to its question. Each client asks its
--requests questions one after another: POST /api/runs, then follow the run's event stream to its
end. A 503 (queue full) is counted and retried after the Retry-After the server gave.

Reported: answered runs per second, latency percentiles (accepted request to last event, and of the
refusals), refusals, and anything lost (an error, a failed or cancelled run, a dropped stream) or
mixed up (an answer that is not its question's code word); the server's resident memory after each
quarter of the answers and after the answered runs --rss-at names (those the load reaches), with the
last over the first, to show it stays flat once the server keeps its most runs (200). Everything is
bounded: --time-limit stops the clients.
Exit status 1 when any request was lost or mixed up, or the time limit cut the run short.

    python bench/serve_load.py [--clients 50] [--requests 10] [--queue-size 8] [--model-delay 0.002]
                               [--time-limit 300] [--rss-at 1000 3000] [--json FILE]

Memory from run 1,000 to run 3,000: --clients 50 --requests 60.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

MARKER = re.compile(r"\bc\d+-r\d+\b")
MAX_RETRY_WAIT_S = 5.0


# -- the server (child process) ---------------------------------------------------------------------


def serve(queue_size: int, delay_s: float) -> None:
    import uvicorn

    from arkg.agents import DEFAULT_STRATEGY
    from arkg.llm.base import Choice, Message, OutputSpec, Sampling
    from arkg.llm.scripted import ScriptedModel
    from arkg.server import Limits, ServerConfig, create_app
    from arkg.session import Session

    def reply(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Any:
        time.sleep(delay_s)
        if isinstance(output, Choice):
            return output.options[0]
        code = MARKER.search(" ".join(message.content for message in messages))
        fields = {"implication": "noted", "continue_exploring": False, "explanation": "the code word", "answer": code.group(0) if code else "unknown"}
        reply: dict[str, Any] = {}
        for name, schema in output.model_json_schema()["properties"].items():
            if name == "cited_keys":
                items = schema.get("items", {})
                reply[name] = items["enum"][:1] if "enum" in items else [items["const"]] if "const" in items else []
            else:
                reply[name] = fields[name]
        return reply

    session = Session(model="test")  # as `arkg serve --model test` opens it
    served = session.model_for(DEFAULT_STRATEGY)
    assert isinstance(served, ScriptedModel), served
    served.function = reply  # only its replies change: what it keeps per call stays the served model's
    app = create_app(session, ServerConfig(limits=Limits(queue_size=queue_size)))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    print(f"port {listener.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])


# -- the clients ------------------------------------------------------------------------------------


@dataclass
class Tally:
    answered: int = 0
    refused: int = 0
    lost: list[str] = field(default_factory=list)
    mixed_up: list[str] = field(default_factory=list)
    run_latency_s: list[float] = field(default_factory=list)
    refusal_latency_s: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)  # after each quarter of the answers
    rss_at: dict[int, float] = field(default_factory=dict)  # after that many answered runs


async def ask_once(client: httpx2.AsyncClient, code: str, tally: Tally) -> float | None:
    """One attempt; the seconds to wait before retrying when refused, else None."""
    question = f"What is the code word of request {code} about Marie Curie?"
    started = time.perf_counter()
    response = await client.post("/api/runs", json={"question": question})
    if response.status_code == 503:
        tally.refused += 1
        tally.refusal_latency_s.append(time.perf_counter() - started)
        return min(float(response.headers.get("Retry-After", "1")), MAX_RETRY_WAIT_S)
    if response.status_code != 202:
        tally.lost.append(f"{code}: HTTP {response.status_code} {response.text[:200]}")
        return None
    run = response.json()
    end = await follow(client, run["events"])
    tally.run_latency_s.append(time.perf_counter() - started)
    if end is None or end["state"] != "done":
        tally.lost.append(f"{code}: run {run['id']} ended {end and end['state']} ({end and end['error']})")
    elif end["result"]["answer"] != code or end["result"]["question"] != question:
        tally.mixed_up.append(f"{code}: got answer {end['result']['answer']!r} to {end['result']['question']!r}")
    else:
        tally.answered += 1
    return None


async def follow(client: httpx2.AsyncClient, events: str) -> dict[str, Any] | None:
    """The `end` event of a run's stream (None if the stream closed without one)."""
    kind = ""
    async with client.stream("GET", events) as response:
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line.partition(":")[2].strip()
            elif line.startswith("data:") and kind == "end":
                return json.loads(line.partition(":")[2])
    return None


async def client_loop(client: httpx2.AsyncClient, number: int, requests: int, tally: Tally, deadline: float) -> None:
    for request in range(requests):
        code = f"c{number}-r{request}"
        while time.monotonic() < deadline:
            try:
                wait = await ask_once(client, code, tally)
            except httpx2.HTTPError as error:
                tally.lost.append(f"{code}: {type(error).__name__}: {error}")
                break
            if wait is None:
                break
            await asyncio.sleep(wait)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def watch_memory(pid: int, tally: Tally, total: int, rss_at: Sequence[int]) -> None:
    quarters = [math.ceil(total * share / 4) for share in (1, 2, 3, 4)]
    marks = sorted(mark for mark in set(rss_at) if 0 < mark <= total)
    while quarters or marks:
        if quarters and tally.answered >= quarters[0]:
            tally.rss_mib.append(round(rss_mib(pid), 1))
            quarters.pop(0)
        if marks and tally.answered >= marks[0]:
            tally.rss_at[marks.pop(0)] = round(rss_mib(pid), 1)
        await asyncio.sleep(0.05)


async def load(url: str, pid: int, clients: int, requests: int, time_limit: float, rss_at: Sequence[int] = ()) -> tuple[Tally, float]:
    tally = Tally()
    deadline = time.monotonic() + time_limit
    limits = httpx2.Limits(max_connections=2 * clients + 10, max_keepalive_connections=2 * clients)
    async with httpx2.AsyncClient(base_url=url, limits=limits, timeout=httpx2.Timeout(time_limit)) as client:
        warm = Tally()
        await ask_once(client, "c0-r0", warm)  # first request: imports and caches warm up
        memory = asyncio.create_task(watch_memory(pid, tally, clients * requests, rss_at))
        started = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(client_loop(client, number, requests, tally, deadline) for number in range(1, clients + 1))),
            timeout=time_limit + 30,
        )
        elapsed = time.perf_counter() - started
        memory.cancel()
        tally.rss_mib += [round(rss_mib(pid), 1)] * (4 - len(tally.rss_mib))  # quarters reached as the last answers came
        for mark in rss_at:  # reached as the last answers came
            if 0 < mark <= tally.answered and mark not in tally.rss_at:
                tally.rss_at[mark] = round(rss_mib(pid), 1)
    return tally, elapsed


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def summary(tally: Tally, elapsed: float, options: argparse.Namespace) -> dict[str, Any]:
    total = options.clients * options.requests
    marks = sorted(tally.rss_at)
    return {
        "clients": options.clients,
        "requests_per_client": options.requests,
        "queue_size": options.queue_size,
        "model_delay_s": options.model_delay,
        "asked": total,
        "answered": tally.answered,
        "refused_503": tally.refused,
        "lost": len(tally.lost),
        "mixed_up": len(tally.mixed_up),
        "unfinished": total - tally.answered - len(tally.lost) - len(tally.mixed_up),
        "seconds": round(elapsed, 2),
        "answered_per_s": round(tally.answered / elapsed, 1) if elapsed else 0.0,
        "run_latency_p50_ms": round(1000 * percentile(tally.run_latency_s, 0.5), 1),
        "run_latency_p99_ms": round(1000 * percentile(tally.run_latency_s, 0.99), 1),
        "run_latency_mean_ms": round(1000 * statistics.fmean(tally.run_latency_s), 1) if tally.run_latency_s else 0.0,
        "refusal_latency_p50_ms": round(1000 * percentile(tally.refusal_latency_s, 0.5), 1),
        "refusal_latency_p99_ms": round(1000 * percentile(tally.refusal_latency_s, 0.99), 1),
        "server_rss_mib_by_quarter": tally.rss_mib,
        "server_rss_mib_at_run": {str(mark): tally.rss_at[mark] for mark in marks},
        # run --rss-at's last over its first: 1.0 is flat
        "server_rss_ratio": round(tally.rss_at[marks[-1]] / tally.rss_at[marks[0]], 3) if len(marks) > 1 else None,
        "problems": (tally.lost + tally.mixed_up)[:20],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=10, help="questions per client, one after another")
    parser.add_argument("--queue-size", type=int, default=8)
    parser.add_argument("--model-delay", type=float, default=0.002, help="seconds the scripted model takes per call")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument(
        "--rss-at", type=int, nargs="+", default=[1000, 3000], metavar="RUNS",
        help="also read the server's memory after this many answered runs (those beyond the load are skipped)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.queue_size, options.model_delay)
        return 0
    command = [sys.executable, __file__, "--serve", "--queue-size", str(options.queue_size), "--model-delay", str(options.model_delay)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().split()[1])  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:  # wait until it answers
            try:
                httpx2.get(f"{url}/api/info", timeout=2).raise_for_status()
                break
            except httpx2.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        tally, elapsed = asyncio.run(load(url, server.pid, options.clients, options.requests, options.time_limit, options.rss_at))
    finally:
        server.terminate()
        server.wait(timeout=30)
    figures = summary(tally, elapsed, options)
    print(json.dumps(figures, indent=2))
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if not figures["lost"] and not figures["mixed_up"] and not figures["unfinished"] else 1


if __name__ == "__main__":
    sys.exit(main())
