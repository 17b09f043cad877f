"""One CPU training step of `arkg tune`, several ways: logits at every position (what a causal LM's
forward returns), logits only where a reply token is predicted (`arkg.tune.train.reply_loss`), and the
latter under bfloat16 autocast (`arkg tune --precision bfloat16`, what `auto` takes on CPUs with
AVX512-BF16 or AMX).

Each way runs in its own process, alternating, so that each process's peak resident memory (VmHWM)
is its own; the same batches of real pairs go through every way, forward and backward (no optimizer
step). Prints the median seconds per step and the median peak memory of each way, and their ratios to
the first way.

    python bench/tune_step.py runs/pairs.jsonl --batch 8 --max-tokens 768 --steps 3 --rounds 2 [--layers 12]
    python bench/tune_step.py runs/pairs.jsonl --ways reply-positions reply-positions-bf16
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

WAYS = ("all-positions", "reply-positions", "reply-positions-bf16")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path, help="an arkg synth file")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=768, help="longer examples are left out, as arkg tune does")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per process, after one warm-up step")
    parser.add_argument("--rounds", type=int, default=2, help="processes per way, alternating")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--layers", type=int, help="adapt only the last N blocks, as arkg tune --layers (default: all)")
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS), help="the ways to time; ratios are to the first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)  # set in the child processes
    arguments = parser.parse_args()
    if arguments.way:
        print(json.dumps(_measure(arguments)))
        return
    ways = list(dict.fromkeys(arguments.ways))
    results: dict[str, list[dict[str, float]]] = {way: [] for way in ways}
    for round_ in range(arguments.rounds):
        for way in ways:
            child = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--way", way], capture_output=True, text=True, check=True)
            results[way].append(json.loads(child.stdout.strip().splitlines()[-1]))
            print(f"round {round_ + 1}, {way}: {results[way][-1]}", file=sys.stderr)
    step = {way: statistics.median(s for run in runs for s in run["step_s"]) for way, runs in results.items()}
    peak = {way: statistics.median(run["peak_gib"] for run in runs) for way, runs in results.items()}
    print(f"| way | s/step (median of {arguments.steps * arguments.rounds}) | peak RSS GiB (median of {arguments.rounds}) |")
    print("| --- | --- | --- |")
    for way in ways:
        print(f"| {way} | {step[way]:.2f} | {peak[way]:.2f} |")
    first = ways[0]
    for way in ways[1:]:
        print(f"\n{way} / {first}: time {step[way] / step[first]:.2f}, peak memory {peak[way] / peak[first]:.2f}")


def _measure(arguments: argparse.Namespace) -> dict[str, object]:
    import torch
    from peft import LoraConfig, get_peft_model

    from arkg.tune.base import load_base
    from arkg.tune.data import IGNORED, encode, read_pairs, sample_pairs
    from arkg.tune.options import TuneOptions
    from arkg.tune.train import reply_loss, weighted_loss

    torch.set_num_threads(arguments.threads)
    torch.manual_seed(arguments.seed)
    base = load_base()
    options = TuneOptions()
    blocks = base.model.config.num_hidden_layers
    layers = None if arguments.layers is None else list(range(blocks - arguments.layers, blocks))
    model = get_peft_model(
        base.model,
        LoraConfig(
            r=options.rank, lora_alpha=options.alpha, target_modules=list(options.target_modules), layers_to_transform=layers, task_type="CAUSAL_LM"
        ),
    )
    wanted = arguments.batch * (arguments.steps + 1)
    encoded = [encode(pair, base.tokenizer, 5.0) for pair in sample_pairs(read_pairs(arguments.pairs), wanted * 4, arguments.seed)]
    examples = [example for example in encoded if len(example.input_ids) <= arguments.max_tokens][:wanted]
    if len(examples) < wanted:
        raise SystemExit(f"{arguments.pairs}: {len(examples)} examples within {arguments.max_tokens} tokens, {wanted} needed")
    times = []
    for start in range(0, wanted, arguments.batch):
        batch = examples[start : start + arguments.batch]
        width = max(len(example.input_ids) for example in batch)

        def padded(rows: list[list], fill: float) -> torch.Tensor:
            return torch.tensor([row + [fill] * (width - len(row)) for row in rows])

        inputs = {
            "input_ids": padded([e.input_ids for e in batch], base.tokenizer.pad_token_id or 0),
            "attention_mask": padded([[1] * len(e.input_ids) for e in batch], 0),
        }
        labels, weights = padded([e.labels for e in batch], IGNORED), padded([e.weights for e in batch], 0.0)
        began = time.perf_counter()
        if arguments.way.startswith("reply-positions"):
            bf16 = arguments.way.endswith("-bf16")
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                loss, _ = reply_loss(model, inputs, labels, weights)
        else:
            logits = model(**inputs).logits[:, :-1]
            scored = labels[:, 1:] != IGNORED
            loss = weighted_loss(logits[scored], labels[:, 1:][scored], weights[:, 1:][scored])
        loss.backward()
        model.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - began)
    return {"step_s": times[1:], "peak_gib": _peak_rss_gib()}


def _peak_rss_gib() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**20
    raise SystemExit("no VmHWM in /proc/self/status (Linux only)")


if __name__ == "__main__":
    main()
