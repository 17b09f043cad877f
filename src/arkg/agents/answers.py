"""Final answers that cite facts: the reply schemas, and reading a reply into True / False / None / text.

Shared by the strategies that answer from a set of keyed facts in one call (KAPING, R³'s verdicts
reuse the reading rules) and by ARK's final answer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

from arkg.agents.strategy import Answer

MAX_TEXT_CHARS = 200

_WORD = re.compile(r"\w+")
_YES_NO = {"yes": True, "no": False, "true": True, "false": False}
_FUNCTION_WORDS = frozenset("a an the to of in on at for by with and or is are was were be it its this that".split())


class CitedYesNo(BaseModel):
    cited_keys: list[str] = Field(max_length=20, description="keys of the facts the answer rests on, e.g. T1")
    explanation: str = Field(max_length=MAX_TEXT_CHARS, description="why, in one or two sentences")
    answer: Literal["yes", "no", "unknown"]


class CitedOpen(BaseModel):
    cited_keys: list[str] = Field(max_length=20, description="keys of the facts the answer rests on, e.g. T1")
    explanation: str = Field(max_length=MAX_TEXT_CHARS, description="why, in one or two sentences")
    answer: str = Field(max_length=MAX_TEXT_CHARS, description='a short answer, or "unknown"')


@lru_cache(maxsize=128)
def cited_reply_for(keys: tuple[str, ...], yes_no: bool) -> type[BaseModel]:
    """The reply schema whose cited keys can only be `keys` (constrained decoding), one class per key set."""
    base = CitedYesNo if yes_no else CitedOpen
    if not keys:
        return create_model(base.__name__, __base__=base, cited_keys=(list[Literal[""]], Field(max_length=0)))
    key_type = Literal.__getitem__(keys)
    return create_model(base.__name__, __base__=base, cited_keys=(list[key_type], Field(max_length=len(keys))))


def read_answer(text: str, yes_no: bool) -> Answer:
    """yes / no / unknown as True / False / None; an open answer as text (a plain yes or no as a boolean)."""
    if yes_no:
        return _YES_NO.get(text.strip().casefold())
    text = text.strip()
    folded = text.casefold().rstrip(".!")
    if folded in _YES_NO:  # a question taken for an open one may still be answered yes or no
        return _YES_NO[folded]
    # Punctuation alone (a small model's ",") names nothing: no answer.
    return None if folded == "unknown" or not _WORD.search(folded) else text


def only_words_of(answer: str, *instructions: str) -> bool:
    """Whether every word of the answer occurs in the prompt's own instructions: an echo, not an answer.

    Small models sometimes fill the answer field with words of the request ("The answer to the
    question"); a real answer names something (an entity, a value) that the instructions do not.
    """
    words = set(_WORD.findall(answer.casefold()))
    known = _FUNCTION_WORDS.union(*(_WORD.findall(text.casefold()) for text in instructions))
    return bool(words) and words <= known
