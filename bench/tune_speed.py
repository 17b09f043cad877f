"""`arkg tune`'s training tokens a second on this machine, two versions of arkg paired on the same data,
and the held-out loss each version's adapter reaches after the same steps.

Both versions' `src/` come from git (`--before REV`, `--after REV`; the working tree's `src/` when
`--after` is left out), and each run is `arkg.tune.run.tune` with its own defaults, in its own process,
the versions alternating round after round so that both see the same load. The data: a seeded draw of
`--steps * --batch` pairs to train on (one epoch, so every run trains on every token) and `--heldout`
other pairs of the same file. Tokens a second are the sidecar's tokens (prompt and reply, no padding)
over its training seconds, the figure BENCHMARKS.md quotes. The held-out loss (the plain mean over
reply tokens, under the precision `auto` picks) of each version's first adapter, and of the untuned
model, is computed afterwards by the `--after` code, for both alike.

    python bench/tune_speed.py pairs.jsonl --before e27599c^ --after e5d4ce9 --steps 6 --batch 4 --rounds 2 --heldout 12
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path, help="an arkg synth (or bench/tune_mix.py) file")
    parser.add_argument("--before", required=True, help="git revision of the first version")
    parser.add_argument("--after", help="git revision of the second version (default: the working tree)")
    parser.add_argument("--steps", type=int, default=6, help="optimizer steps per run")
    parser.add_argument("--batch", type=int, default=4, help="examples per step")
    parser.add_argument("--heldout", type=int, default=12, help="pairs kept out of training for the loss (0: time only)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, help="folder for the runs (default: a temporary one)")
    parser.add_argument("--child", choices=("train", "heldout"), help=argparse.SUPPRESS)
    parser.add_argument("--adapter", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--pairs-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child == "train":
        print(json.dumps(_train(arguments)))
        return
    if arguments.child == "heldout":
        print(json.dumps(_heldout(arguments)))
        return
    work = arguments.work or Path(tempfile.mkdtemp(prefix="tune-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    train, heldout = _split(arguments, work)
    sources = {"before": _source(arguments.before, work / "before"), "after": _source(arguments.after, work / "after")}
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sources}
    for round_ in range(arguments.rounds):
        for side, src in sources.items():
            out = work / f"{side}-{round_}"
            load = os.getloadavg()[0]
            result = _child(src, arguments, "train", "--pairs-file", str(train), "--out", str(out))
            result["load"] = load
            runs[side].append(result)
            print(f"round {round_ + 1}, {side}: {result}", file=sys.stderr)
    losses = {side: {"loss": float("nan")} for side in ("untuned", *sources)}
    if arguments.heldout:
        losses["untuned"] = _child(sources["after"], arguments, "heldout", "--pairs-file", str(heldout))
        for side in sources:
            losses[side] = _child(sources["after"], arguments, "heldout", "--pairs-file", str(heldout), "--adapter", runs[side][0]["adapter"])
    rate = {side: statistics.median(run["tokens_per_s"] for run in side_runs) for side, side_runs in runs.items()}
    ratios = [after["tokens_per_s"] / before["tokens_per_s"] for before, after in zip(runs["before"], runs["after"])]
    loads = [run["load"] for side_runs in runs.values() for run in side_runs]
    print(f"{arguments.steps} steps of {arguments.batch} pairs ({runs['before'][0]['tokens']:,} tokens), {arguments.threads} threads,"
          f" {arguments.rounds} rounds; 1-minute load average at the runs' starts {min(loads):.1f}-{max(loads):.1f}")
    print("| version | layers trained | tokens/s (median) | each round | train loss, last step | held-out loss |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| untuned | - | - | - | - | {losses['untuned']['loss']:.4f} |")
    for side, side_runs in runs.items():
        each = ", ".join(f"{run['tokens_per_s']:.0f}" for run in side_runs)
        print(f"| {side} | {side_runs[0]['layers']} | {rate[side]:.0f} | {each} | {side_runs[0]['last_loss']:.4f} | {losses[side]['loss']:.4f} |")
    print(f"\nafter / before, paired by round: {', '.join(f'{ratio:.2f}' for ratio in ratios)}; median {statistics.median(ratios):.2f}")


def _split(arguments: argparse.Namespace, work: Path) -> tuple[Path, Path]:
    """The training and held-out pairs, drawn with the seed from the lines of the file."""
    lines = [line for line in arguments.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = arguments.steps * arguments.batch
    if len(lines) < wanted + arguments.heldout:
        raise SystemExit(f"{arguments.pairs}: {len(lines)} pairs, {wanted + arguments.heldout} needed")
    chosen = random.Random(arguments.seed).sample(lines, wanted + arguments.heldout)
    train, heldout = work / "train.jsonl", work / "heldout.jsonl"
    train.write_text("\n".join(chosen[:wanted]) + "\n", encoding="utf-8")
    heldout.write_text("\n".join(chosen[wanted:]) + "\n", encoding="utf-8")
    return train, heldout


def _source(revision: str | None, folder: Path) -> Path:
    """A version's src/ folder: the working tree's, or one extracted from git."""
    if revision is None:
        return ROOT / "src"
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src"], capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as file:
        file.write(archive)
        file.seek(0)
        with tarfile.open(fileobj=file) as tar:
            tar.extractall(folder, filter="data")
    return folder / "src"


def _child(src: Path, arguments: argparse.Namespace, mode: str, *extra: str) -> dict:
    settings = ("steps", "batch", "threads", "lr", "max_tokens", "seed")
    own = [text for name in settings for text in (f"--{name.replace('_', '-')}", str(getattr(arguments, name)))]
    command = [sys.executable, __file__, str(arguments.pairs), "--before", arguments.before, *own, "--child", mode, *extra]
    environment = {**os.environ, "PYTHONPATH": str(src)}
    child = subprocess.run(command, capture_output=True, text=True, env=environment)
    if child.returncode:
        raise SystemExit(f"{mode} run failed:\n{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def _train(arguments: argparse.Namespace) -> dict[str, object]:
    import arkg
    from arkg.tune import TuneOptions, tune

    options = TuneOptions(
        max_steps=arguments.steps, batch_size=arguments.batch, max_tokens=arguments.max_tokens, learning_rate=arguments.lr,
        warmup_steps=1, decision_weight=5.0, save_every=arguments.steps, seed=arguments.seed,
    )  # fmt: skip
    began = time.perf_counter()
    done = tune(arguments.pairs_file, arguments.out, options, threads=arguments.threads)
    sidecar = json.loads(done.sidecar.read_text(encoding="utf-8"))
    if sidecar["data"]["drawn"] != sidecar["data"]["used"] or sidecar["data"]["left_out_too_long"]:
        raise SystemExit("every pair must be trained on once: raise --max-tokens")
    return {
        "tokens": sidecar["data"]["tokens"],
        "train_s": done.train_s,
        "tokens_per_s": sidecar["data"]["tokens"] / done.train_s,
        "wall_s": time.perf_counter() - began,
        "last_loss": list(sidecar["loss_by_step"].values())[-1],
        "layers": sidecar["options"]["layers"] or "all",
        "adapter": str(done.adapter),
        "code": str(Path(arkg.__file__).parent),
    }


def _heldout(arguments: argparse.Namespace) -> dict[str, float]:
    import torch
    from peft import LoraConfig, get_peft_model

    from arkg.tune.adapter_file import adapted_blocks, read_adapter
    from arkg.tune.base import load_base
    from arkg.tune.data import IGNORED, encode, read_pairs
    from arkg.tune.options import Precision, TuneOptions
    from arkg.tune.train import native_bf16, reply_loss

    torch.set_num_threads(arguments.threads)
    base = load_base()
    options = TuneOptions()
    model = base.model
    if arguments.adapter is not None:
        blocks = sorted(adapted_blocks(arguments.adapter))
        config = LoraConfig(r=options.rank, lora_alpha=options.alpha, target_modules=list(options.target_modules), layers_to_transform=blocks)
        model = get_peft_model(model, config)
        read_adapter(model, arguments.adapter, alpha=options.alpha)
    else:
        model = get_peft_model(model, LoraConfig(r=options.rank, target_modules=list(options.target_modules)))  # B = 0: the base model
    model.eval()
    bf16 = options.precision is Precision.AUTO and native_bf16(False)
    examples = [encode(pair, base.tokenizer) for pair in read_pairs(arguments.pairs_file)]
    total, count = 0.0, 0
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for example in examples:
            inputs = {"input_ids": torch.tensor([example.input_ids]), "attention_mask": torch.ones(1, len(example.input_ids), dtype=torch.long)}
            labels, weights = torch.tensor([example.labels]), torch.tensor([example.weights])
            loss, _ = reply_loss(model, inputs, labels, weights)
            scored = int((labels[:, 1:] != IGNORED).sum())
            total, count = total + float(loss) * scored, count + scored
    return {"loss": total / count, "reply_tokens": count}


if __name__ == "__main__":
    main()
