"""Retrieval shared by the strategies that read a neighbourhood at once (KAPING, R³).

    entities = link_entities(kg, "Was Marie Curie born in Warsaw?", limit=5)
    facts = neighbourhood(kg, entities, EdgeSet.OUT)         # their 1-hop triples, each once
    best = rank_facts(facts, "place of birth Warsaw", k=10)  # most similar first (lexical BM25)

Rankers: `lexical` (BM25 over folded words, rank_bm25) needs nothing more; `dense` uses WordLlama's
static embeddings, whose weights ship inside its PyPI wheel (optional extra `dense`), so it also
works offline. `default_ranker()` is dense where that extra is installed, lexical otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi
from rapidfuzz import fuzz

from arkg.agents.candidates import entities_in_question
from arkg.agents.modes import EdgeSet
from arkg.agents.triple_keys import identity, triple_text
from arkg.errors import ArkgError
from arkg.graph.matching import fold
from arkg.graph.model import Direction, KnowledgeGraph, Triple

_WORD = re.compile(r"\w+")


class RankerName(str, Enum):
    LEXICAL = "lexical"
    DENSE = "dense"


@dataclass(frozen=True)
class Fact:
    """A triple of a neighbourhood, and whether it was reached from its tail."""

    triple: Triple
    incoming: bool = False

    @property
    def text(self) -> str:
        return triple_text(self.triple)


# A fuzzy match must nearly spell out the name somewhere in the text ("Ilary Blast" for "Ilary Blasi"),
# and short names only count when written exactly (an entity "A" is not in every sentence).
_LINK_SCORE = 85.0
_FUZZY_MIN_CHARS = 4


def link_entities(kg: KnowledgeGraph, text: str, limit: int) -> list[str]:
    """Entities of the KG named in the text: exact mentions (word n-grams) first, then close spellings."""
    folded = fold(text)

    def named(name: str) -> bool:
        if not kg.has_entity(name):
            return False
        folded_name = fold(name)
        if len(folded_name) < _FUZZY_MIN_CHARS:  # "A", "US": as written, a word of its own
            return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None
        if re.search(rf"(?<!\w){re.escape(folded_name)}(?!\w)", folded):
            return True
        return fuzz.partial_ratio(folded_name, folded) >= _LINK_SCORE

    return entities_in_question(kg, text, named, limit)


def neighbourhood(
    kg: KnowledgeGraph, entities: Sequence[str], edges: EdgeSet, per_entity: int | None = None
) -> list[Fact]:
    """The triples touching the entities (leaving them; arriving too with edges=both), each once.

    `per_entity` caps what one hub entity contributes, so a single famous node cannot flood the set.
    """
    directions = [Direction.OUT] if edges is EdgeSet.OUT else [Direction.OUT, Direction.IN]
    seen: set[Any] = set()
    facts: list[Fact] = []
    for entity in entities:
        taken = 0
        for direction in directions:
            for relation in kg.relations(entity, direction):
                for triple in kg.triples(entity, relation, direction):
                    if per_entity is not None and taken >= per_entity:
                        break
                    key = identity(triple)
                    if key not in seen:
                        seen.add(key)
                        facts.append(Fact(triple, incoming=direction is Direction.IN))
                        taken += 1
    return facts


def rank_facts(facts: Sequence[Fact], query: str, k: int, ranker: RankerName = RankerName.LEXICAL) -> list[Fact]:
    """The k facts most similar to the query, best first (ties keep the neighbourhood's order)."""
    if not facts or k <= 0:
        return []
    scores = score_texts([fact.text for fact in facts], query, ranker)
    order = sorted(range(len(facts)), key=lambda index: -scores[index])
    return [facts[index] for index in order[:k]]


def score_texts(texts: Sequence[str], query: str, ranker: RankerName = RankerName.LEXICAL) -> list[float]:
    """Similarity of each text to the query (higher is closer)."""
    if ranker is RankerName.DENSE:
        return _dense_scores(texts, query)
    return _bm25_scores(texts, query)


# Words too common to tell facts apart ("in" would favour every "point in time" qualifier).
_STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or not no is are was were be been being do does did has have had "
    "it its this that these those as than then there their his her he she they we you i who whom whose which what "
    "when where why how if would could should can will may might must".split()
)


def words(text: str) -> list[str]:
    """The folded words of a text that carry meaning for ranking."""
    return [word for word in _WORD.findall(fold(text)) if word not in _STOPWORDS]


def _bm25_scores(texts: Sequence[str], query: str) -> list[float]:
    corpus = [words(text) or [""] for text in texts]
    return [float(score) for score in BM25Okapi(corpus).get_scores(words(query))]


@lru_cache(maxsize=1)
def dense_installed() -> bool:
    """Whether the `dense` extra (wordllama) can be imported."""
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return False
    return True


def default_ranker() -> RankerName:
    """Dense where the `dense` extra is installed (closer to the papers' sentence embeddings), else BM25."""
    return RankerName.DENSE if dense_installed() else RankerName.LEXICAL


@lru_cache(maxsize=1)
def wordllama_model() -> Any:
    """The WordLlama model of the `dense` extra, loaded once."""
    try:
        import wordllama
    except ImportError:
        raise ArkgError("the dense ranker needs the optional extra: pip install 'arkg[dense]'") from None
    # The weights and tokenizer ship inside the wheel. Pointing the cache at the package folder makes
    # WordLlama find the tokenizer there too, instead of trying to download it.
    package = Path(wordllama.__file__).parent
    return wordllama.WordLlama.load(cache_dir=package, disable_download=True)


def _dense_scores(texts: Sequence[str], query: str) -> list[float]:
    # Cosine similarity of the embeddings (what WordLlama's own `rank` computes, which refuses one text).
    model = wordllama_model()
    scores = model.vector_similarity(model.embed(query)[0], model.embed(list(texts)))
    return [float(score) for score in np.atleast_1d(scores.squeeze())]
