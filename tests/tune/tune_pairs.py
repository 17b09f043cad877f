"""Tiny training sets for the tuning tests: ARK's real prompts over the sample KG, replies scripted.

Each model call of an ARK run becomes one chat pair (the messages the agent sent, then the reply it
got), written as `arkg synth` writes pairs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arkg.agents import build_strategy
from arkg.graph import open_graph
from arkg.llm.scripted import ScriptedModel

# Constrained mode, one step over the sample KG: Pierre Curie -place of birth-> Paris.
POLAND = (
    "Was Pierre Curie born in Poland?",
    [
        "Pierre Curie",
        "place of birth",
        {"cited_keys": ["T1"], "implication": "He was born in Paris.", "continue_exploring": False},
        {"explanation": "Paris is in France, not in Poland.", "answer": "no"},
    ],
)
WARSAW = (
    "Was Marie Curie born in Warsaw?",
    [
        "Marie Curie",
        "place of birth",
        {"cited_keys": ["T1"], "implication": "She was born in Warsaw.", "continue_exploring": False},
        {"explanation": "Her place of birth is Warsaw.", "answer": "yes"},
    ],
)


def ark_pairs(question: str, replies: list[Any]) -> list[dict[str, Any]]:
    """The chat pairs of one constrained ARK run over the sample KG led by `replies`."""
    scripted = ScriptedModel.from_replies(replies)
    pairs: list[dict[str, Any]] = []

    class Recorder:
        name = "recorder"

        def complete(self, messages, output, sampling=None):  # type: ignore[no-untyped-def]
            completion = scripted.complete(messages, output, sampling) if sampling else scripted.complete(messages, output)
            turns = [{"role": m.role, "content": m.content} for m in messages]
            pairs.append({"messages": [*turns, {"role": "assistant", "content": completion.raw}]})
            return completion

    build_strategy("ark", Recorder(), open_graph(None), {"mode": "constrained"}).ask(question)
    return pairs


def write_pairs(path: Path, runs: list[tuple[str, list[Any]]] = [POLAND, WARSAW]) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for question, replies in runs:
            for pair in ark_pairs(question, replies):
                out.write(json.dumps(pair, ensure_ascii=False) + "\n")
    return path
