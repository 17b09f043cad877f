"""Which characters of a reply are its decision, and the loss weight of each reply token.

A strategy's reply mixes two kinds of text. Prose (a reasoning step's `implication`, an answer's
`explanation`) is long and mostly copied from the facts shown; the decision (the anchor or relation
chosen, the keys cited, whether to keep exploring, the answer) is a few tokens. Under a plain mean
over reply tokens the prose outweighs the decision four to one in `arkg synth`'s ARK pairs (a reasoning
step's continue flag is one token of about thirty-five), and a small model learns to copy facts long
before it learns when to stop exploring. Weighting the decision's tokens shifts the loss towards
them; the replies the model is taught stay the same.

A reply that is not a JSON object (an option chosen from a list, a KG-Agent tool call) is all
decision; in a JSON object every value is decision except the prose fields, and the plan that
`arkg synth --plan` ends an implication with ("Next: Serbia, continent." or "Enough to answer."):
the continue flag after it is a copy of it, so the plan is where the stop is decided. Left at prose
weight, its first word is one hard token among forty easy ones, and a tuned model goes on copying the
previous step's "Next:" where the gold says "Enough".
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from arkg.agents.ark.teacher import PLAN

# The JSON fields whose values are free text explaining a decision, not the decision itself.
PROSE_FIELDS = frozenset({"implication", "explanation"})

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def decisive_spans(reply: str) -> list[tuple[int, int]]:
    """The (start, end) character spans of the reply that state its decision."""
    return [(start, end) for _, start, end in decisive_fields(reply)]


def decisive_fields(reply: str) -> list[tuple[str | None, int, int]]:
    """(field, start, end) of each part of the reply that states its decision, in reply order; field
    is None for a reply that is no JSON object (the whole reply), "plan" for the plan that ends an
    implication."""
    try:
        value, end = _DECODER.raw_decode(reply)
    except json.JSONDecodeError:
        return [(None, 0, len(reply))]
    if not isinstance(value, dict) or reply[end:].strip():
        return [(None, 0, len(reply))]
    fields: list[tuple[str | None, int, int]] = []
    position = _skip(reply, 1)  # raw_decode parsed an object, so the reply opens with "{"
    while reply[position] != "}":
        key, position = _DECODER.raw_decode(reply, position)
        position = _skip(reply, position)
        position = _skip(reply, position + 1)  # the colon
        start = position
        _, position = _DECODER.raw_decode(reply, position)
        if key not in PROSE_FIELDS:
            fields.append((key, start, position))
        elif key == "implication" and (plan := PLAN.search(reply, start, position - 1)):
            fields.append(("plan", plan.start(), plan.end()))
        position = _skip(reply, position)
        if reply[position] == ",":
            position = _skip(reply, position + 1)
    return fields


def token_weights(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]], decision_weight: float) -> list[float]:
    """The weight of each reply token (given by its character offsets): `decision_weight` for a token
    that overlaps a decisive span, 1 for the others."""
    return [
        decision_weight if any(start < span_end and span_start < end for span_start, span_end in spans) else 1.0
        for start, end in offsets
    ]


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position
