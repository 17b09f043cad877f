"""Benchmark the LLM backends with the bundled model on this machine.

Prints: model load time, prompt and decode throughput, and each backend's overhead over a raw call
for the same request: LlamaCppModel and CachedModel (on a miss) over a raw llama-cpp-python call,
OpenAICompatModel over a raw openai-SDK call to the same llama.cpp server.

Each round runs every variant once, in rotating order, so machine noise hits them alike. Overhead
is the median over rounds of (backend time / raw time of the same round) - 1. On a busy machine
that ratio is dominated by noise, so for the in-process backends the table also gives their own
work per call: wall time minus the time spent inside the wrapped call, measured in the same call.

    python bench/llm.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import openai
from llama_cpp import Llama, LlamaGrammar
from pydantic import BaseModel, Field

from arkg.llm import (
    CachedModel,
    Choice,
    Completion,
    LlamaCppModel,
    Message,
    OpenAICompatModel,
    OutputSpec,
    Sampling,
    bundled_model_path,
)
from arkg.llm.grammar import grammar_for
from arkg.llm.llamacpp_server import llama_server
from arkg.llm.llamacpp_cpu import avoid_crashing_kernels

avoid_crashing_kernels()  # the Llama objects made here directly, as arkg makes its own

CANDIDATES = Choice([f"Entity {i}: {name}" for i, name in enumerate(["Paris", "Sablé", "東京", "São Paulo"] * 25)])


class Step(BaseModel):
    answer: Literal["True", "False", "None"]
    cited: list[str] = Field(max_length=2)
    done: bool


MESSAGES = [
    Message(role="system", content="You answer questions over a knowledge graph."),
    Message(role="user", content="Triples: T1 (Paris, capital of, France). Is Paris the capital of France?"),
]
REQUESTS: dict[str, OutputSpec] = {"choice of 100": CANDIDATES, "JSON object": Step}
MAX_TOKENS = 48


class TimedLlama:
    """Forwards create_chat_completion to a Llama and adds up the seconds spent inside it."""

    def __init__(self, llama: Llama) -> None:
        self.llama = llama
        self.inside_s = 0.0

    def create_chat_completion(self, **arguments: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.llama.create_chat_completion(**arguments)
        finally:
            self.inside_s += time.perf_counter() - started


class TimedModel:
    """A ChatModel forwarding to another and adding up the seconds spent inside it."""

    def __init__(self, model: LlamaCppModel) -> None:
        self.model = model
        self.name = model.name
        self.inside_s = 0.0

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        started = time.perf_counter()
        try:
            return self.model.complete(messages, output, sampling)
        finally:
            self.inside_s += time.perf_counter() - started


class Variant:
    """One way of making the request; `inside` reads the seconds spent in the wrapped call so far."""

    def __init__(self, call: Callable[[int], object], inside: Callable[[], float] | None = None) -> None:
        self.call = call
        self.inside = inside
        self.seconds: list[float] = []
        self.own_seconds: list[float] = []

    def run(self, round_number: int) -> None:
        inside_before = self.inside() if self.inside else 0.0
        started = time.perf_counter()
        self.call(round_number)
        elapsed = time.perf_counter() - started
        self.seconds.append(elapsed)
        if self.inside:
            self.own_seconds.append(elapsed - (self.inside() - inside_before))


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def load_time(repeats: int) -> float:
    path = str(bundled_model_path())
    return statistics.median(timed(lambda: Llama(model_path=path, n_ctx=4096, verbose=False)) for _ in range(repeats))


def throughput(threads: int, repeats: int) -> tuple[float, float]:
    """(prompt tokens/s, decode tokens/s): a 512-token prompt from scratch, then 64 greedy tokens."""
    llama = LlamaCppModel(n_threads=threads).llama
    prompt = llama.tokenize(("The knowledge graph lists cities, rivers and countries. " * 60).encode())[:512]
    prompt_rates, decode_rates = [], []
    for _ in range(repeats):
        llama.reset()
        prompt_rates.append(len(prompt) / timed(lambda: llama.eval(prompt)))
        generated = llama.generate(prompt[:256], temp=0.0, reset=True)
        next(generated)  # evaluates the 256-token prefix and samples the first token
        started = time.perf_counter()
        for _, _ in zip(range(64), generated, strict=False):
            pass
        decode_rates.append(64 / (time.perf_counter() - started))
    return statistics.median(prompt_rates), statistics.median(decode_rates)


def run_rounds(variants: dict[str, Variant], repeats: int) -> None:
    names = list(variants)
    for _ in range(2):  # warm-up: first grammar parse, caches, connections
        for name in names:
            variants[name].call(-1)
    for variant in variants.values():
        variant.seconds.clear()
        variant.own_seconds.clear()
    for round_number in range(repeats):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            variants[name].run(round_number)


Row = tuple[str, str, Variant, Variant]


def in_process_rows(repeats: int) -> list[Row]:
    model = LlamaCppModel()
    raw_llama = model.llama
    timed_llama = TimedLlama(raw_llama)
    model.llama = timed_llama  # type: ignore[assignment]  # the backend's calls now report their inside time
    timed_model = TimedModel(model)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as directory:
        cached = CachedModel(timed_model, Path(directory) / "bench.sqlite")
        for label, output in REQUESTS.items():
            chat = [{"role": m.role, "content": m.content} for m in MESSAGES]
            gbnf = grammar_for(output)
            greedy = Sampling(temperature=0.0, seed=0, max_tokens=MAX_TOKENS)

            def raw(_: int, chat: list[dict[str, str]] = chat, gbnf: str = gbnf) -> object:
                return raw_llama.create_chat_completion(
                    messages=chat,  # type: ignore[arg-type]
                    grammar=LlamaGrammar.from_string(gbnf, verbose=False),
                    temperature=0.0,
                    top_p=1.0,
                    seed=0,
                    max_tokens=MAX_TOKENS,
                )

            def cache_miss(round_number: int, output: OutputSpec = output) -> object:
                # Greedy decoding ignores the seed, so a fresh seed makes a miss for the same work.
                sampling = Sampling(temperature=0.0, seed=1000 + round_number, max_tokens=MAX_TOKENS)
                return cached.complete(MESSAGES, output, sampling)

            variants = {
                "raw": Variant(raw),
                "LlamaCppModel": Variant(
                    lambda _, output=output, greedy=greedy: model.complete(MESSAGES, output, greedy),
                    lambda: timed_llama.inside_s,
                ),
                "CachedModel (miss)": Variant(cache_miss, lambda: timed_model.inside_s),
            }
            run_rounds(variants, repeats)
            rows += [(name, label, variants["raw"], variants[name]) for name in ("LlamaCppModel", "CachedModel (miss)")]
        cached.close()
    return rows


def http_rows(repeats: int) -> list[Row]:
    rows: list[Row] = []
    with llama_server(n_ctx=2048) as server:
        model = OpenAICompatModel("bundled", server.base_url, structured="json_object")
        client = openai.OpenAI(api_key="unused", base_url=server.base_url, max_retries=0)
        greedy = Sampling(temperature=0.0, seed=0, max_tokens=MAX_TOKENS)
        for label, output in REQUESTS.items():
            arguments = model.request_arguments(MESSAGES, output, greedy)  # the very request the backend sends
            variants = {
                "raw": Variant(lambda _, arguments=arguments: client.chat.completions.create(**arguments)),
                "OpenAICompatModel": Variant(lambda _, output=output: model.complete(MESSAGES, output, greedy)),
            }
            run_rounds(variants, repeats)
            rows.append(("OpenAICompatModel", label, variants["raw"], variants["OpenAICompatModel"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=21, help="timed rounds per comparison (default 21)")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    load_s = load_time(3)
    rates = {threads: throughput(threads, 5) for threads in sorted({1, os.cpu_count() or 1})}
    rows = in_process_rows(args.repeats) + http_rows(args.repeats)

    print(f"Bundled model: {bundled_model_path().name}; {os.cpu_count()} CPUs; load average {load_before:.1f}")
    print("| measure | median |")
    print("|---|---:|")
    print(f"| load time | {load_s * 1000:.0f} ms |")
    for threads, (prompt_rate, decode_rate) in rates.items():
        print(f"| prompt eval, 512 tokens, {threads} thread(s) | {prompt_rate:.0f} tokens/s |")
        print(f"| decode, 64 tokens greedy, {threads} thread(s) | {decode_rate:.0f} tokens/s |")
    print()
    print(f"Backend overhead over a raw call, {args.repeats} interleaved rounds, greedy, max_tokens={MAX_TOKENS}:")
    print("| backend | request | raw call (ms) | backend (ms) | overhead (paired) | own work per call |")
    print("|---|---|---:|---:|---:|---:|")
    for name, label, raw, backend in rows:
        ratio = statistics.median(b / r for b, r in zip(backend.seconds, raw.seconds, strict=True)) - 1
        own = f"{statistics.median(backend.own_seconds) * 1e6:.0f} µs" if backend.own_seconds else "n/a"
        print(
            f"| {name} | {label} | {statistics.median(raw.seconds) * 1000:.1f} | "
            f"{statistics.median(backend.seconds) * 1000:.1f} | {ratio * 100:+.1f}% | {own} |"
        )


if __name__ == "__main__":
    main()
