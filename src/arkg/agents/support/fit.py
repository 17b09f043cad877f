"""Whether a relation is what a question asks about, judged from the relation's name and the question's words.

    asked = QuestionWords("Who is the CTO of Brindle Systems?", names=["Brindle Systems"])
    asked.fit("chief technology officer")   # 1.0: every word of the relation is in the question
    asked.names("member of")                # False: the question does not name it
    asked.beaten("member of", ["team lead", "member of"])   # True when another relation fits clearly better

Words match when they are equal, share a stem of at least four letters ("maintains" / "maintained",
"depends" / "dependencies"), are one of a few irregular forms ("born" / "birth"), or when the question
writes the relation's initials ("CTO"). Names of entities are taken out of the question first, so that
"the Marrow License" does not ask about a `license` relation. Where the `dense` extra is installed, static
word embeddings break the ties the words leave (two relations neither of which the question names).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

import numpy as np

from arkg.agents.retrieval import dense_installed, wordllama_model
from arkg.graph.matching import fold

# Words that say nothing about which relation is asked.
_FUNCTION_WORDS = frozenset(
    "a an the of in on at to by for from with as is are was were be been being do does did has have had "
    "what which who whom whose when where how why that this these those it its their his her they them "
    "any some all one ones there here and or not no yes true false than then many much can could will would "
    "should may might also same other another".split()
)
_IRREGULAR = {"born": "birth", "died": "death", "dead": "death", "wrote": "written", "led": "lead", "spoke": "speak", "spoken": "speak",
              "made": "make", "built": "build", "founded": "found", "married": "spouse", "wife": "spouse",
              "husband": "spouse", "began": "begin", "grew": "grow", "taught": "teach", "sold": "sell"}
STEM = 4
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+")
# How much better another relation must fit before the cited one counts as the wrong one.
_MARGIN = 0.34
_DENSE_MARGIN = 0.12


@lru_cache(maxsize=65536)
def relation_words(relation: str) -> tuple[str, ...]:
    """The content words of a relation name: URIs cut to their last part, camelCase and snake_case split."""
    local = re.split(r"[/#]", relation.rstrip("/#"))[-1] if "://" in relation or relation.startswith("urn:") else relation
    local = local.split(":")[-1] if re.fullmatch(r"\w+:\w+", local) else local
    return tuple(word for word in _words(_CAMEL.sub(" ", local)) if word not in _FUNCTION_WORDS)


def _words(text: str) -> list[str]:
    return [_IRREGULAR.get(word, word) for word in _WORD.findall(fold(text))]


def same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    stem = min(len(a), len(b))
    return stem >= STEM and a[:STEM] == b[:STEM] and _common_prefix(a, b) >= max(STEM, stem - 3)


def _common_prefix(a: str, b: str) -> int:
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length


class QuestionWords:
    """The words of a question that may name relations (its entities' names taken out)."""

    def __init__(self, question: str, names: Iterable[str] = (), is_kind: Callable[[str], bool] | None = None) -> None:
        text = fold(question)
        # Every word, for the relation an answer followed: "on which continent" fits `continent`.
        self.all_words = [word for word in _words(text) if word not in _FUNCTION_WORDS]
        # A word that names a kind of the KG ("which country", "the countries that border Qatar") asks for
        # things of that kind, not for a relation of that name; "what floor" asks for the `floor`.
        if is_kind is not None:
            text = _without_kinds(text, is_kind)
        self.rival_words = [word for word in _words(text) if word not in _FUNCTION_WORDS]
        for name in sorted({fold(name) for name in names if name}, key=len, reverse=True):
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text)
        self.text = text
        # The words that may name a relation outright: no names, no kinds.
        self.words = [word for word in _words(text) if word not in _FUNCTION_WORDS]
        # Acronyms as the question writes them ("CTO", "HQ"), for relations written out in full.
        self.acronyms = {word.lower().rstrip("s") for word in re.findall(r"\b[A-Z]{2,5}s?\b", question)}
        self._fits: dict[tuple[str, bool], float] = {}

    def rival_fit(self, relation: str) -> float:
        """The fit of a relation the answer did not follow, on the words that may name one."""
        words = relation_words(relation)
        if not words:
            return 0.0
        if len(words) > 1 and "".join(word[0] for word in words) in self.acronyms:
            return 1.0
        asked = _without_plurals_of(relation, self.rival_words)
        return sum(any(same_word(word, other) for other in asked) for word in words) / len(words)

    def fit(self, relation: str, with_names: bool = False) -> float:
        """The share of the relation's words that the question writes (1.0 also for its initials); with
        `with_names`, counting the words of the names it gives ("released under the Ferrow License")."""
        key = (relation, with_names)
        if key not in self._fits:
            self._fits[key] = self._fit(relation, with_names)
        return self._fits[key]

    def _fit(self, relation: str, with_names: bool) -> float:
        words = relation_words(relation)
        if not words:
            return 0.0
        if len(words) > 1 and "".join(word[0] for word in words) in self.acronyms:
            return 1.0
        asked = self.all_words if with_names else _without_plurals_of(relation, self.words)
        return sum(any(same_word(word, other) for other in asked) for word in words) / len(words)

    def names(self, relation: str) -> bool:
        """Whether the question names the relation: all its words, or its initials."""
        return self.fit(relation) == 1.0

    def beaten(self, relation: str, others: Iterable[str]) -> str | None:
        """Another relation that fits the question clearly better than `relation`, if any."""
        own = self.fit(relation, with_names=True)
        rivals = [other for other in dict.fromkeys(others) if other != relation]
        scores = {other: self.rival_fit(other) for other in rivals}
        best = max(rivals, key=scores.__getitem__, default=None)
        if best is not None and scores[best] >= max(0.5, own + _MARGIN):
            return best
        if own == 0.0 and rivals and not any(scores.values()):
            return _dense_rival(self.text, relation, rivals)
        return None


def _without_plurals_of(relation: str, words: list[str]) -> list[str]:
    """The words, less the plurals of a one-word relation: "the countries that border Qatar" speaks of a
    kind of thing, where a `country` relation is written in the singular ("the country of Lyon")."""
    if relation.strip().count(" ") or not relation.strip().isalpha():
        return words
    name = fold(relation.strip())
    plurals = {name + "s", name + "es", name[:-1] + "ies" if name.endswith("y") else ""}
    return [word for word in words if word not in plurals]


def _without_kinds(text: str, is_kind: Callable[[str], bool]) -> str:
    """The text less the runs of up to three words that name a kind, longest first ("medical school" as one
    kind, so that "medical" is left to no `medical director`), a plural read as its singular."""
    words = text.split()
    kept: list[str] = []
    start = 0
    while start < len(words):
        size = next((n for n in (3, 2, 1) if start + n <= len(words) and _names_kind(words[start : start + n], is_kind)), 0)
        if size:
            start += size
        else:
            kept.append(words[start])
            start += 1
    return " ".join(kept)


def _names_kind(words: list[str], is_kind: Callable[[str], bool]) -> bool:
    if not all(word.isalpha() for word in words):
        return False
    *first, last = words
    singulars = [last, last[:-1] if last.endswith("s") else "", last[:-3] + "y" if last.endswith("ies") else ""]
    return any(form and is_kind(" ".join([*first, form])) for form in singulars)


def _dense_rival(question: str, relation: str, rivals: list[str]) -> str | None:
    """Where no relation shares a word with the question: one whose embedding is clearly nearer it."""
    if not dense_installed():
        return None
    asked = _embedding(question)
    scores = [float(asked @ _embedding(" ".join(relation_words(name)) or name)) for name in [relation, *rivals]]
    best = max(range(1, len(scores)), key=scores.__getitem__)
    return rivals[best - 1] if scores[best] >= scores[0] + _DENSE_MARGIN else None


@lru_cache(maxsize=8192)
def _embedding(text: str) -> np.ndarray:
    """The unit-length static embedding of a text (relation names recur from check to check: kept)."""
    vector = np.asarray(wordllama_model().embed(text)[0], dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector
