"""llama.cpp's prompt and decoding speed on the bundled model by OpenMP wait policy and thread count,
optionally beside processes that spin (a busy machine).

    python bench/llama_threads.py --busy 2 --repeats 3

Each setting runs in its own process (OpenMP reads its environment as the library loads): 300 prompt
tokens evaluated at once, then 20 tokens one at a time; the medians over the repeats, in tokens/s.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

from arkg.llm.llamacpp_cpu import SHORT_SPIN, SPIN_COUNT, WAIT_POLICY

# (OpenMP environment, threads); the first, nothing set, is arkg's choice (arkg.llm.llamacpp_cpu).
SETTINGS = [
    ({}, 2),
    ({}, 1),
    ({"OMP_WAIT_POLICY": "active"}, 2),
    ({"OMP_WAIT_POLICY": "passive"}, 2),
    ({"OMP_WAIT_POLICY": "active"}, 1),
    ({"OMP_WAIT_POLICY": "passive"}, 1),
]
SPIN = "while True: pass"


def measure(threads: int, repeats: int) -> dict[str, float]:
    from arkg.llm.llamacpp import LlamaCppModel

    llama = LlamaCppModel(n_threads=threads).llama
    tokens = llama.tokenize(b"The quick brown fox jumps over the lazy dog. " * 40, add_bos=True)[:300]
    prompt, decode = [], []
    for _ in range(repeats):
        llama.reset()
        started = time.perf_counter()
        llama.eval(tokens)
        prompt.append(len(tokens) / (time.perf_counter() - started))
        started = time.perf_counter()
        for token in tokens[:20]:
            llama.eval([token])
        decode.append(20 / (time.perf_counter() - started))
    return {"prompt": statistics.median(prompt), "decode": statistics.median(decode)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside each measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)  # in the child: the thread count
    arguments = parser.parse_args()
    if arguments.measure is not None:
        print(json.dumps(measure(arguments.measure, arguments.repeats)))
        return
    clean = {name: value for name, value in os.environ.items() if name not in (WAIT_POLICY, SPIN_COUNT)}
    print(f"busy {arguments.busy}, {arguments.repeats} repeats")
    print("| OpenMP environment | threads | prompt tokens/s | decode tokens/s |")
    print("| --- | --- | --- | --- |")
    for setting, threads in SETTINGS:
        spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(arguments.busy)]
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--measure", str(threads), "--repeats", str(arguments.repeats)],
                env={**clean, **setting}, capture_output=True, text=True, check=True,
            )  # fmt: skip
        finally:
            for spinner in spinners:
                spinner.send_signal(signal.SIGKILL)
                spinner.wait()
        speed = json.loads(done.stdout.splitlines()[-1])
        shown = " ".join(f"{name}={value}" for name, value in setting.items()) or f"none (arkg: GOMP_SPINCOUNT={SHORT_SPIN})"
        print(f"| {shown} | {threads} | {speed['prompt']:.0f} | {speed['decode']:.0f} |")


if __name__ == "__main__":
    main()
