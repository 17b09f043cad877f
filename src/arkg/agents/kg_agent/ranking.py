"""Relevance of labels to a text (relations to a question), and what a question offers as
arguments: its numbers.

The semantic side (`rank_labels`, `closest_name`) uses WordLlama's static embeddings when the
`dense` extra is installed, as the paper's semantic tools use a pretrained model; without it, string
matching (rapidfuzz on folded text) stands in, and `semantic_method()` says which one runs.
`rank_by_spelling` stays lexical on purpose: it ranks relations against a misspelt relation name."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz

from arkg.agents.retrieval import RankerName, default_ranker, score_texts
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


def rank_by_spelling(labels: Iterable[str], text: str) -> list[str]:
    """The labels, most relevant to `text` by their words and spelling first (ties in the given order)."""
    listed = list(dict.fromkeys(labels))
    scores = {label: relevance(label, text) for label in listed}
    return sorted(listed, key=lambda label: (-scores[label][0], -scores[label][1]))


def semantic_method() -> str:
    """How the semantic tools compare texts here, as their descriptions and traces say it."""
    if default_ranker() is RankerName.DENSE:
        return "WordLlama embeddings"
    return "string matching, as the dense extra is not installed: pip install 'arkg[dense]'"


def rank_labels(labels: Iterable[str], text: str) -> list[str]:
    """The labels, most similar in meaning to `text` first (ties in the given order): embeddings where
    the `dense` extra is installed, words and spelling otherwise."""
    listed = list(dict.fromkeys(labels))
    if default_ranker() is not RankerName.DENSE or not listed:
        return rank_by_spelling(listed, text)
    scores = score_texts(listed, text, RankerName.DENSE)
    return [listed[index] for index in sorted(range(len(listed)), key=lambda index: -scores[index])]


def closest_name(name: str, candidates: Sequence[str]) -> int:
    """The index of the candidate whose name is closest to `name` (the first of a tie); names are
    compared folded, so that an unaccented spelling finds the accented one."""
    folded = [fold(candidate) for candidate in candidates]
    if default_ranker() is RankerName.DENSE:
        scores = score_texts(folded, fold(name), RankerName.DENSE)
        return max(range(len(candidates)), key=lambda index: (scores[index], -index))
    wanted = fold(name)
    return max(range(len(candidates)), key=lambda index: (fuzz.WRatio(wanted, folded[index]), fuzz.ratio(wanted, folded[index]), -index))


def question_numbers(question: str) -> list[int | float]:
    """The numbers written in the question, in order: "above 50,000,000" gives 50000000."""
    found: dict[int | float, None] = {}
    for match in _NUMBER.finditer(question):
        text = match.group().replace(",", "")
        number = float(text) if "." in text else int(text)
        found.setdefault(number)
    return list(found)


