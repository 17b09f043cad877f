"""Training pairs: chat-format JSON Lines as `arkg synth` writes them, and their encoding for the model.

Each line holds `messages`: the prompt exactly as a strategy built it (system / user / assistant
turns), ending with the assistant reply the model should learn to give. Other fields (source,
question id, decision, ...) are provenance and are passed over. The loss covers the reply alone
(and the end-of-turn token that stops it): the prompt is context, not something to imitate.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arkg.errors import ArkgError
from arkg.graph.loaders._common import utf8_lines
from arkg.llm.base import Message
from arkg.tune.weights import decisive_spans, token_weights

# Positions whose label is this value add nothing to the loss (the convention of torch's cross-entropy).
IGNORED = -100


class TrainingDataError(ArkgError):
    """A training-data file cannot be used; the message names the file and the line."""


class _Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow")

    messages: list[_Turn] = Field(min_length=2)


@dataclass(frozen=True)
class Pair:
    """One example: the prompt turns and the reply that follows them."""

    prompt: tuple[Message, ...]
    reply: str
    line: int


def read_pairs(path: str | Path) -> list[Pair]:
    """Every pair of a JSON Lines file; a bad line is a TrainingDataError naming it and what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise TrainingDataError(f"Training data {path}: no such file")
    pairs = []
    try:
        for number, text in utf8_lines(path):
            if not text.strip():
                continue
            pairs.append(_pair(text, path, number))
    except ArkgError as error:
        if isinstance(error, TrainingDataError):
            raise
        raise TrainingDataError(str(error)) from None
    if not pairs:
        raise TrainingDataError(f"Training data {path}: no pairs (an empty file?)")
    return pairs


def _pair(text: str, path: Path, number: int) -> Pair:
    try:
        line = _Line.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TrainingDataError(
            f"{path}, line {number}: not a chat pair ({where}: {first['msg']}); each line needs "
            '"messages": [{"role": "system"|"user"|"assistant", "content": "..."}, ...]'
        ) from None
    *prompt, reply = line.messages
    if reply.role != "assistant":
        raise TrainingDataError(f"{path}, line {number}: the last message is a {reply.role!r} turn; it must be the assistant's reply")
    if not reply.content:
        raise TrainingDataError(f"{path}, line {number}: the assistant's reply is empty")
    return Pair(tuple(Message(role=turn.role, content=turn.content) for turn in prompt), reply.content, number)


def sample_pairs(pairs: Sequence[Pair], count: int | None, seed: int) -> list[Pair]:
    """At most `count` pairs, a seeded sample kept in file order; all of them when count is None."""
    if count is None or count >= len(pairs):
        return list(pairs)
    chosen = sorted(random.Random(seed).sample(range(len(pairs)), count))
    return [pairs[index] for index in chosen]


@dataclass(frozen=True)
class Encoded:
    input_ids: list[int]
    labels: list[int]
    weights: list[float]  # each label's share of the loss; 0 where the label is IGNORED

    def as_features(self) -> dict[str, list[Any]]:
        return {
            "input_ids": self.input_ids,
            "labels": self.labels,
            "attention_mask": [1] * len(self.input_ids),
            "weights": self.weights,
        }


def encode(pair: Pair, tokenizer: Any, decision_weight: float = 1.0) -> Encoded:
    """Token ids of prompt + reply + end of turn, labelled on the reply and end of turn only.

    The prompt is the model's chat template with the assistant's header, the text llama.cpp builds for
    the same messages; the reply is tokenized on its own, as it is generated after that header. The
    reply's decision tokens weigh `decision_weight`, its other tokens and the end of turn 1 (see
    arkg.tune.weights).
    """
    prompt_text = tokenizer.apply_chat_template(
        [{"role": m.role, "content": m.content} for m in pair.prompt], tokenize=False, add_generation_prompt=True
    )
    prompt = tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
    tokens = tokenizer(pair.reply, add_special_tokens=False, return_offsets_mapping=True)
    reply = tokens["input_ids"] + [tokenizer.eos_token_id]
    weights = token_weights(tokens["offset_mapping"], decisive_spans(pair.reply), decision_weight) + [1.0]
    return Encoded(input_ids=prompt + reply, labels=[IGNORED] * len(prompt) + reply, weights=[0.0] * len(prompt) + weights)
