"""What serving every strategy's tuned adapter from one loaded model costs (`arkg serve` with no --model).

One base model is loaded; each shipped adapter is loaded onto it once, and a call whose adapter is not
the one on the context switches it first. Prints, on this machine:

  - memory (RSS) and load time of each adapter put on the loaded weights, against a second model
    loaded with the adapter (the alternative: one model per adapter);
  - the switch itself (putting another adapter on the context), and what it costs a run: a switch
    drops the context's cached prompt, so the first call of an ARK run right after a KG-Agent run
    evaluates its whole prompt, where after another ARK run it reuses the system prompt;
  - one whole run of the sample question with ARK and with KG-Agent, for scale.

Linux only (RSS from /proc). No response cache: every call reaches the model.

    ARKG_LLAMA_THREADS=2 python bench/adapter_switch.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import date
from typing import Any

from arkg.agents import Budget
from arkg.data import SAMPLE_QUESTIONS, TUNED_ADAPTERS, tuned_adapter_path
from arkg.llm import Choice, LlamaCppModel, Message
from arkg.session import Session

# One short call after each load: it touches the weights, so that RSS counts them.
TOUCH = ([Message(role="user", content="Is Paris in France?")], Choice(["yes", "no"]))


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        resident_pages = int(statm.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def timed(work: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    value = work()
    return value, time.perf_counter() - started


def first_call_s(session: Session, strategy: str, question: str) -> float:
    """The model time of a run's first call (its budget stops it there)."""
    return session.ask(question, strategy, budget=Budget(max_calls=1)).usage.latency_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="first calls measured per case (medians are printed)")
    rounds = parser.parse_args().rounds
    threads = int(os.environ["ARKG_LLAMA_THREADS"]) if "ARKG_LLAMA_THREADS" in os.environ else None
    print(f"{platform.node()} · {os.cpu_count()} cores · threads {threads or 'llama.cpp default'} · {date.today()}")

    before = rss_mb()
    base, load_s = timed(lambda: LlamaCppModel(n_threads=threads))
    base.complete(*TOUCH)
    print(f"\nbase model: loaded in {load_s:.2f} s, RSS +{rss_mb() - before:.0f} MB")
    for name in TUNED_ADAPTERS:
        before = rss_mb()
        view, load_s = timed(lambda: base.with_adapter(tuned_adapter_path(name)))
        view.complete(*TOUCH)
        print(f"adapter {name} on the loaded weights: loaded in {load_s * 1000:.0f} ms, RSS +{rss_mb() - before:.0f} MB")
    before = rss_mb()
    second, load_s = timed(lambda: LlamaCppModel(n_threads=threads, lora_path=tuned_adapter_path("tuned")))
    second.complete(*TOUCH)
    print(f"a second model with adapter tuned instead: loaded in {load_s:.2f} s, RSS +{rss_mb() - before:.0f} MB")
    del second

    # The switch alone, as complete() does it under the model's lock (private: nothing else calls it).
    weights, adapters = base._weights, [tuned_adapter_path(name) for name in TUNED_ADAPTERS]
    switches = []
    for adapter in adapters * 50:
        with weights.lock:
            _, switch_s = timed(lambda: weights.use(adapter))
        switches.append(switch_s)
    print(f"\nthe switch itself: {statistics.median(switches) * 1e6:.0f} µs (median of {len(switches)})")

    questions = [sample.question for sample in SAMPLE_QUESTIONS]
    with Session(model=None, cache=False) as session:
        same, switched = [], []
        for round_ in range(rounds):
            ark_question, other_question = questions[(2 * round_) % len(questions)], questions[(2 * round_ + 1) % len(questions)]
            first_call_s(session, "ark", other_question)  # ARK's adapter and system prompt on the context
            same.append(first_call_s(session, "ark", ark_question))
            first_call_s(session, "kg-agent", other_question)  # now KG-Agent's
            switched.append(first_call_s(session, "ark", ark_question))
        same_s, switched_s = statistics.median(same), statistics.median(switched)
        print(
            f"first call of an ARK run: {same_s:.2f} s after an ARK run, {switched_s:.2f} s after a KG-Agent run"
            f" (adapter switched): {switched_s - same_s:+.2f} s (medians of {rounds})"
        )
        question = questions[0]
        for strategy in ("ark", "kg-agent"):
            result, run_s = timed(lambda: session.ask(question, strategy))
            print(f"one {strategy} run of {question!r}: {run_s:.1f} s, {result.usage.calls} calls, answer {result.answer}")


if __name__ == "__main__":
    main()
