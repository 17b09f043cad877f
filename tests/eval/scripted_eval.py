"""A real evaluation process for the kill-and-resume test: chain-of-thought over ScriptedModel.

    python tests/eval/scripted_eval.py DATASET OUT [--resume] [--delay SECONDS]

The scripted model's answer depends only on the question and the sampling seed (like a cached
model at a fixed seed), and each call takes `--delay` seconds so that the test can kill it midway.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

from arkg.agents.cot import ChainOfThought
from arkg.eval.colota import load_dataset
from arkg.eval.results import RunConfig
from arkg.eval.runner import run_evaluation
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel

RUNS = 2


def scripted_model(delay: float) -> ScriptedModel:
    def reply(messages, output, sampling: Sampling) -> dict:
        time.sleep(delay)
        digest = hashlib.sha256(f"{messages[-1].content}|{sampling.seed}".encode()).digest()
        return {"reasoning": f"digest {digest[:4].hex()}", "answer": ("True", "False", "None")[digest[0] % 3]}

    return ScriptedModel(reply)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    dataset = load_dataset(args.dataset)
    model = scripted_model(args.delay)
    config = RunConfig(
        dataset=args.dataset.name, dataset_sha256="test", kg="none", strategy="cot",
        model=model.name, temperature=0.7, seed=11, max_tokens=64,
    )
    run_evaluation(
        dataset.questions, lambda sampling: ChainOfThought(model, sampling=sampling), config, args.out,
        runs=RUNS, resume=args.resume, show_progress=False,
    )


if __name__ == "__main__":
    main()
