"""Lexical relevance of labels to a text (relations to a question), and what a question offers
as arguments: its numbers and its word n-grams. No model: rapidfuzz on folded text."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from arkg.graph.matching import fold

_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*\w)")


_WORD = re.compile(r"\w+")
_STOP_WORDS = frozenset(
    "a an the of in on at to by for from with and or is are was were be been do does did has have had "
    "what which who whom whose where when why how many much there it its this that than as".split()
)


def _words(text: str) -> list[str]:
    return [word for word in _WORD.findall(fold(text)) if word not in _STOP_WORDS]


def _word_similarity(a: str, b: str) -> float:
    """Words that are equal, share a 4-letter stem ("border", "bordering") or are near-spellings."""
    if a == b:
        return 100.0
    if min(len(a), len(b)) >= 4 and a[:4] == b[:4]:
        return 90.0
    score = fuzz.ratio(a, b)
    return score if score >= 80 else 0.0


def relevance(label: str, text: str) -> tuple[float, float]:
    """How well `label` matches `text`: the share of the label's content words found in the text
    (stems and near-spellings count), then rapidfuzz's WRatio on the folded strings as a tie-break."""
    words, others = _words(label), _words(text)
    found = sum(max((_word_similarity(word, other) for other in others), default=0.0) for word in words)
    return (found / len(words) if words else 0.0), fuzz.WRatio(fold(label), fold(text))


def rank_labels(labels: Iterable[str], text: str) -> list[str]:
    """The labels, most relevant to `text` first (ties in the given order)."""
    listed = list(dict.fromkeys(labels))
    scores = {label: relevance(label, text) for label in listed}
    return sorted(listed, key=lambda label: (-scores[label][0], -scores[label][1]))


def question_numbers(question: str) -> list[int | float]:
    """The numbers written in the question, in order: "above 50,000,000" gives 50000000."""
    found: dict[int | float, None] = {}
    for match in _NUMBER.finditer(question):
        text = match.group().replace(",", "")
        number = float(text) if "." in text else int(text)
        found.setdefault(number)
    return list(found)


