"""Which decisions a model gets right, one at a time: teacher-forced decision accuracy on `arkg synth` pairs.

Each pair (an `arkg synth` file of held-out questions) is a prompt a strategy built on the gold route
and the gold reply. The model reads the prompt and the gold reply token by token, as llama.cpp would
have the prompt formatted; a decision counts as right when the model's most likely next token is
the gold one at every token of the decision (arkg.tune.weights: the option chosen, the keys cited,
the continue flag, the answer), prose aside, and the plan that ends a reasoning step's implication
("Next: Serbia, continent." or "Enough to answer."), where the stop is decided. Grammar-constrained
decoding can only do better, as it rules out tokens that no valid reply has. One pass over 300 pairs
takes under a quarter of an hour per model on 2 cores, less than a full `arkg eval`, and it tells
which decision fails: the anchor, the relation, the stop or the answer.

    arkg synth --out runs/heldout.jsonl --geo-db runs/geo.db --geo-questions runs/geo-questions.jsonl \\
        --split ids:runs/eval-ids.txt --strategy ark --mode constrained
    python bench/tune_decisions.py runs/heldout.jsonl untuned=llamacpp tuned=llamacpp:tuned
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from llama_cpp import Llama
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from arkg.llm.bundled import bundled_model_path
from arkg.llm.spec import adapter_path, parse_model_spec
from arkg.tune.weights import decisive_fields
from arkg.llm.llamacpp_cpu import avoid_crashing_kernels

avoid_crashing_kernels()  # the Llama objects made here directly, as arkg makes its own


def _kinds(record: dict) -> list[tuple[str, tuple[int, int]]]:
    """(kind, span) of each decision of a pair's reply: the call's decision, refined by field. The
    plan that ends a reasoning step's implication is named by its first word (next or enough): once
    written, the continue flag after it is a copy, so the plan is where the stop decision is taken."""
    reply = record["messages"][-1]["content"]
    decision = record.get("decision", "reply")
    kinds = []
    for field, start, end in decisive_fields(reply):
        if field is None:
            kinds.append((decision, (start, end)))
        elif field == "continue_exploring":
            kinds.append((f"{decision}: continue={reply[start:end]}", (start, end)))
        elif field == "plan":
            kinds.append((f"{decision}: plan={reply[start:end].split(maxsplit=1)[0].rstrip(':').lower()}", (start, end)))
        elif field == "answer":
            kinds.append((f"{decision}: answer ({record.get('variant', 'gold')} facts)", (start, end)))
        else:
            kinds.append((f"{decision}: {field}", (start, end)))
    return kinds


def right_decisions(spec: str, records: list[dict]) -> dict[str, tuple[int, int]]:
    """(right, asked) per decision kind, for the model of `spec`."""
    parsed = parse_model_spec(spec)
    if parsed.backend != "llamacpp":
        raise SystemExit(f"{spec}: next-token scores need an in-process llamacpp model")
    adapter = adapter_path(parsed)
    # Scores at every position (logits_all), which arkg's own backend never needs.
    llama = Llama(
        model_path=parsed.model or str(bundled_model_path()), lora_path=adapter, n_ctx=4096, logits_all=True, verbose=False
    )
    format_chat = Jinja2ChatFormatter(
        template=llama.metadata["tokenizer.chat_template"],
        eos_token=llama._model.token_get_text(llama.token_eos()),
        bos_token=llama._model.token_get_text(llama.token_bos()),
    )
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        messages, reply = record["messages"][:-1], record["messages"][-1]["content"]
        formatted = format_chat(messages=messages)
        prompt = llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True)
        tokens = llama.tokenize(reply.encode("utf-8"), add_bos=False, special=False)
        llama.reset()
        llama.eval(prompt + tokens)
        # The score row of position p predicts the token at p + 1.
        best = np.asarray(llama.scores[len(prompt) - 1 : len(prompt) + len(tokens) - 1]).argmax(axis=1)
        # Character offsets of the reply's tokens, to find the tokens of each decision.
        ends, text = [], b""
        for token in tokens:
            text += llama.detokenize([token])
            ends.append(len(text.decode("utf-8", errors="ignore")))
        starts = [0, *ends[:-1]]
        for kind, (start, end) in _kinds(record):
            inside = [i for i in range(len(tokens)) if starts[i] < end and start < ends[i]]
            tally[kind][0] += all(best[i] == tokens[i] for i in inside)
            tally[kind][1] += 1
    return {kind: (right, asked) for kind, (right, asked) in tally.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path, help="training pairs of held-out questions (arkg synth)")
    parser.add_argument("models", nargs="+", help="LABEL=MODEL_SPEC, e.g. tuned=llamacpp:tuned")
    arguments = parser.parse_args()
    records = [json.loads(line) for line in arguments.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    labelled = [argument.partition("=")[::2] for argument in arguments.models]
    results = {label: right_decisions(spec, records) for label, spec in labelled}
    kinds = sorted({kind for tally in results.values() for kind in tally})
    print(f"{len(records)} pairs of {arguments.pairs.name}\n")
    print("| decision | asked | " + " | ".join(label for label, _ in labelled) + " |")
    print("|---|---:|" + "---:|" * len(labelled))
    for kind in kinds:
        asked = next(tally[kind][1] for tally in results.values() if kind in tally)
        cells = [f"{100 * results[label][kind][0] / asked:.0f}%" for label, _ in labelled]
        print(f"| {kind} | {asked} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
