"""A real evaluation process for the kill-and-resume test: chain-of-thought over ScriptedModel.

    python tests/eval/scripted_eval.py DATASET OUT [--resume] [--delay SECONDS]

The scripted model's answer depends only on the question and the sampling seed (like a cached
model at a fixed seed), and each call takes `--delay` seconds so that the test can kill it midway.
Also the helpers other tests of real processes share (`write_dataset`, `records_written`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from arkg.agents.cot import ChainOfThought
from arkg.eval.colota import load_dataset
from arkg.eval.results import RunConfig
from arkg.eval.runner import run_evaluation
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel

RUNS = 2


def write_dataset(path: Path, questions: int) -> Path:
    """A CoLoTa-format file of `questions` usable claims C1..Cn (Cn is true when n is even)."""
    entries = [
        {
            "id": f"C{i}",
            "query": f"Is claim number {i} true?",
            "answer": i % 2 == 0,
            "KG Entities": {"A": "Q1"},
            "KG Triples": f"1- (A, value, {i})",
            "Reasoning Strategy": ["definition"],
        }
        for i in range(1, questions + 1)
    ]
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def records_written(out: Path) -> int:
    """Complete lines after the header (0 when the file does not exist yet)."""
    return max(0, out.read_text(encoding="utf-8").count("\n") - 1) if out.exists() else 0


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
        dataset.questions, ChainOfThought(model), config, args.out,
        runs=RUNS, resume=args.resume,
    )


if __name__ == "__main__":
    main()
