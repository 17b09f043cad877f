"""Template wordings rewritten by a capable model (`arkg questions --paraphrase-model`), each rewrite
checked: one that drops, changes or adds a name, names the gold answer, or turns a yes/no question into an
open one (or back) is rejected, and the template's wording stays."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from arkg.datasets.geo.questions import GeoQuestion
from arkg.llm.base import ChatModel, Message, Sampling

PROMPT = """Rewrite this question as a person would ask it, in plain English, keeping its meaning exactly.
Write every name exactly as it is written here: {names}.
Do not answer it, and do not add any name, fact or hint.

Question: {question}"""
# What a yes/no question opens with; a rewrite must keep the kind of answer the question asks for.
_YES_NO_OPENING = re.compile(r"^(is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b", re.IGNORECASE)
# A word a rewrite may begin a name with, or not: capitalised words that are not names.
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*")


class Rewrite(BaseModel):
    question: str = Field(max_length=400)


@dataclass
class Paraphrased:
    questions: list[GeoQuestion] = field(default_factory=list)
    rewritten: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # why rewrites were not kept


def paraphrase(
    questions: list[GeoQuestion], model: ChatModel, progress: Callable[[int, int], None] | None = None
) -> Paraphrased:
    """The questions with the wording of each replaced by the model's rewrite where it passes the checks."""
    done = Paraphrased()
    for index, question in enumerate(questions, 1):
        names = ", ".join(f'"{name}"' for name in question.entities)
        prompt = PROMPT.format(names=names or "(none)", question=question.question)
        reply = model.complete([Message(role="user", content=prompt)], Rewrite, Sampling(max_tokens=120)).value
        rewrite = " ".join(reply.question.split())
        reason = rejection(question, rewrite)
        if reason is None and rewrite != question.question:
            done.questions.append(question.model_copy(update={"question": rewrite}))
            done.rewritten += 1
        else:
            done.rejected[reason or "the same wording"] += 1
            done.questions.append(question)
        if progress is not None:
            progress(index, len(questions))
    return done


def rejection(question: GeoQuestion, rewrite: str) -> str | None:
    """Why a rewrite of `question` cannot stand in for it, None when it can."""
    if "?" not in rewrite:
        return "not a question"
    if any(name not in rewrite for name in question.entities):
        return "dropped or changed a name"
    answers = question.answer if isinstance(question.answer, list) else []
    if any(name in rewrite and name not in question.question for name in answers):
        return "names the answer"
    if bool(_YES_NO_OPENING.match(question.question)) != bool(_YES_NO_OPENING.match(rewrite)):
        return "changed the kind of answer"
    known = set(_CAPITALISED.findall(question.question)) | {word for name in question.entities for word in _CAPITALISED.findall(name)}
    added = [word for word in _CAPITALISED.findall(rewrite)[1:] if word not in known and word.lower() not in question.question.lower()]
    if added:
        return "added a name"
    return None
