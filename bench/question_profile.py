"""Where one question's time goes with the bundled model: prompt evaluation, decoding, the rest of the
model calls (sampling under the grammar), and everything outside the model (graph look-ups, Python).

    python bench/question_profile.py --strategy kg-agent --strategy ark --repeats 3

For each strategy, with no --model (its tuned adapter) and no cache, each sample question of the bundled
KG is asked `repeats` times; llama.cpp's own counters say how many prompt tokens it evaluated (the rest of
each prompt was a prefix the previous call left in its context) and how long prompt evaluation and decoding
took. Medians over the repeats of each question's sums.
"""

from __future__ import annotations

import argparse
import statistics
import time

from arkg.data import SAMPLE_QUESTIONS
from arkg.llm.llamacpp_cpu import llama_cpp_api
from arkg.session import Session

COLUMNS = ("wall s", "model s", "prompt eval s", "decode s", "other in model s", "outside model s")


def profile(session: Session, strategy: str, question: str) -> dict[str, float]:
    context = session.model_for(strategy).llama.ctx
    llama_cpp_api.llama_perf_context_reset(context)
    started = time.perf_counter()
    result = session.ask(question, strategy)
    wall = time.perf_counter() - started
    counters = llama_cpp_api.llama_perf_context(context)
    model_s, prompt_s, decode_s = result.usage.latency_s, counters.t_p_eval_ms / 1000, counters.t_eval_ms / 1000
    return {
        "calls": result.usage.total_calls,
        "prompt tokens": result.usage.prompt_tokens,
        "evaluated": counters.n_p_eval,
        "decoded": counters.n_eval,
        "wall s": wall,
        "model s": model_s,
        "prompt eval s": prompt_s,
        "decode s": decode_s,
        "other in model s": model_s - prompt_s - decode_s,
        "outside model s": wall - model_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", action="append", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    header = ("strategy", "question", "calls", "prompt tokens", "evaluated", "decoded", *COLUMNS)
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    with Session(None, cache=False) as session:
        for strategy in arguments.strategy:
            for sample in SAMPLE_QUESTIONS:
                runs = [profile(session, strategy, sample.question) for _ in range(arguments.repeats)]
                median = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
                counts = (f"{median[name]:.0f}" for name in ("calls", "prompt tokens", "evaluated", "decoded"))
                times = (f"{median[name]:.2f}" for name in COLUMNS)
                print(f"| {strategy} | {sample.question} | {' | '.join(counts)} | {' | '.join(times)} |")


if __name__ == "__main__":
    main()
