"""How long `arkg tune` takes to load its base model: from the GGUF file (transformers' GGUF loader,
dequantized) against from the float32 copy that the first load saves in arkg's cache folder.

    python bench/tune_base_load.py --rounds 3

Each round loads both ways in one process, alternating which goes first; medians over the rounds and
the ratio of the two. The copy lives in a temporary cache folder, removed at the end. Requires the
`train` extra.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from arkg.tune.base import load_base


def _seconds(cache: bool) -> float:
    start = time.perf_counter()
    load_base(cache=cache)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["ARKG_CACHE_DIR"] = cache
        saving = _seconds(cache=True)  # no copy yet: reads the GGUF and saves one
        gguf, copy = [], []
        for round_number in range(args.rounds):
            order = [(gguf, False), (copy, True)]
            for times, cache_on in order if round_number % 2 == 0 else reversed(order):
                times.append(_seconds(cache_on))
    print(f"first load (GGUF, then the copy saved): {saving:.2f} s")
    print(f"| from | median of {args.rounds} (s) | each (s) |\n| --- | --- | --- |")
    for name, times in (("the GGUF file", gguf), ("the saved copy", copy)):
        print(f"| {name} | {statistics.median(times):.2f} | {', '.join(f'{t:.2f}' for t in times)} |")
    print(f"ratio GGUF / copy: {statistics.median(gguf) / statistics.median(copy):.1f}x")


if __name__ == "__main__":
    main()
