"""Candidate anchors and relations for constrained selection, best first.

Anchors: entities whose names occur in the question (exact n-gram lookups), then the entities the
KG's fuzzy search finds for the question, re-ranked by how literally their names occur in it.
Relations: ranked by similarity to the question, so that a long list starts with the likely ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rapidfuzz import fuzz

from arkg.graph.matching import fold
from arkg.graph.model import KnowledgeGraph

MAX_NGRAM_WORDS = 6
_EDGE_PUNCTUATION = "?!.,;:\"'()[]{}“”‘’"
_POSSESSIVE = re.compile(r"['’]s$")


def question_ngrams(question: str, max_words: int = MAX_NGRAM_WORDS) -> list[str]:
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


def entities_in_question(
    kg: KnowledgeGraph, question: str, accept: Callable[[str], bool], limit: int
) -> list[str]:
    """Up to `limit` accepted entities for the question: exact mentions first, then fuzzy matches."""
    mentioned = [text for text in question_ngrams(question) if accept(text)]
    folded_question = fold(question)
    fuzzy = sorted(
        (match.name for match in kg.search_entities(question, k=4 * limit) if accept(match.name)),
        key=lambda name: -fuzz.partial_ratio(fold(name), folded_question),
    )
    return list(dict.fromkeys([*mentioned, *fuzzy]))[:limit]


def named_in_question(question: str, accept: Callable[[str], bool]) -> list[str]:
    """Accepted entities the question names as written, in the order it first names them. Where a name
    stands inside a longer one ("Paris" in "Paris Saint-Germain") it is part of that name there."""
    folded_question = fold(question)
    spans = {
        name: [found.span() for found in re.finditer(rf"(?<!\w){re.escape(fold(name))}(?!\w)", folded_question)]
        for name in dict.fromkeys(text for text in question_ngrams(question) if accept(text))
    }
    longer = [(start, end) for found in spans.values() for start, end in found]

    def own(start: int, end: int) -> bool:
        return not any(a <= start and end <= b and b - a > end - start for a, b in longer)

    first = {name: min((start for start, end in found if own(start, end)), default=-1) for name, found in spans.items()}
    return sorted((name for name, start in first.items() if start >= 0), key=first.__getitem__)


def rank_by_question(labels: Iterable[str], question: str) -> list[str]:
    """Labels ordered by how closely they match words of the question (stable for ties)."""
    folded_question = fold(question)
    return sorted(labels, key=lambda label: -fuzz.partial_ratio(fold(label), folded_question))
