"""What the ARK agent asks the model for at each decision: the output specs of its model calls.

Free mode asks for JSON with free-text names, checked afterwards (the paper). Constrained mode asks
for one of the valid candidates (a Choice) or a JSON whose keys can only be this step's keys.
String and list lengths are bounded so that grammar-constrained decoding always ends within
max_tokens.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

MAX_NAME_CHARS = 120
MAX_TEXT_CHARS = 200


class AnchorReply(BaseModel):
    anchor_entity: str = Field(max_length=MAX_NAME_CHARS, description="an entity name, exactly as in the graph")


class RelationReply(BaseModel):
    relation: str = Field(max_length=MAX_NAME_CHARS, description='one listed relation, or "" for another entity')


class ReasoningReply(BaseModel):
    cited_keys: list[str] = Field(max_length=20, description="keys of the facts used, e.g. T1")
    implication: str = Field(max_length=MAX_TEXT_CHARS, description="what the cited facts imply for the question")
    continue_exploring: bool = Field(description="true if more facts are needed")


@lru_cache(maxsize=128)
def reasoning_reply_for(keys: tuple[str, ...]) -> type[ReasoningReply]:
    """ReasoningReply citing at least one of `keys` and nothing else (one class per key set, so grammars
    are reused). At least one: a step that cites no fact grounds nothing, and small models otherwise
    tend to cite nothing at all."""
    key_type = Literal.__getitem__(keys)
    return create_model(
        "ReasoningReply",
        __base__=ReasoningReply,
        cited_keys=(list[key_type], Field(min_length=1, max_length=len(keys), description="keys of the facts used")),
    )


class YesNoAnswer(BaseModel):
    explanation: str = Field(max_length=MAX_TEXT_CHARS, description="why, in one or two sentences")
    answer: Literal["yes", "no", "unknown"]


class OpenAnswer(BaseModel):
    explanation: str = Field(max_length=MAX_TEXT_CHARS, description="why, in one or two sentences")
    answer: str = Field(max_length=MAX_TEXT_CHARS, description='a short answer, or "unknown"')
