"""Lexical relevance of labels to a text (relations to a question), and what a question offers
as arguments: its numbers and its word n-grams. No model: rapidfuzz on folded text."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from arkg.graph.matching import fold

_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*\w)")
_EDGE_PUNCTUATION = "?!.,;:\"'()[]{}“”‘’"
_POSSESSIVE = re.compile(r"['’]s$")


def relevance(label: str, text: str) -> float:
    """0..100: how well `label` matches a part of `text` (case, accents and word order barely matter)."""
    return fuzz.WRatio(fold(label), fold(text))


def rank_labels(labels: Iterable[str], text: str) -> list[str]:
    """The labels, most relevant to `text` first (ties in the given order)."""
    folded = fold(text)
    listed = list(dict.fromkeys(labels))
    return sorted(listed, key=lambda label: -fuzz.WRatio(fold(label), folded))


def question_numbers(question: str) -> list[int | float]:
    """The numbers written in the question, in order: "above 50,000,000" gives 50000000."""
    found: dict[int | float, None] = {}
    for match in _NUMBER.finditer(question):
        text = match.group().replace(",", "")
        number = float(text) if "." in text else int(text)
        found.setdefault(number)
    return list(found)


def question_ngrams(question: str, max_words: int = 6) -> list[str]:
    """Word n-grams of the question, longest first, without edge punctuation or a possessive 's."""
    words = question.split()
    found: dict[str, None] = {}
    for size in range(min(max_words, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            text = " ".join(words[start : start + size]).strip(_EDGE_PUNCTUATION)
            for variant in (text, _POSSESSIVE.sub("", text)):
                if variant:
                    found.setdefault(variant)
    return list(found)
