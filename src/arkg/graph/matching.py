"""Fuzzy name matching shared by KG backends: fold names, rank candidates against a query.

Agents misspell, drop accents and shorten names ("Sable" for "Sablé", "Dowlatabadi" for
"Mahmoud Dowlatabadi"); ranking is done on folded names so that case and accents barely matter.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from rapidfuzz import fuzz

from arkg.graph.model import Match

MIN_SCORE = 50.0  # below this a name shares too little with the query to be worth suggesting


def fold(text: str) -> str:
    """Lower-case, accent-free, single-spaced form of a name: fold("  Sablé ") == "sable"."""
    if text.isascii():  # the same result without normalizing: most names are ASCII, and indexing folds millions
        return " ".join(text.lower().split())
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())


def rank(query: str, candidates: Iterable[str], k: int) -> list[Match]:
    """The k candidates closest to `query` (scoring at least MIN_SCORE), best first.

    The score is rapidfuzz's WRatio on folded names (partial and token-order-insensitive
    matches score high); ties are broken by plain similarity, so that for "sable" the entity
    "Sablé" comes before "Sable Island", then by similarity of the names as written (the
    exact spelling before its accent-less twin), then by the name itself for a stable order.
    """
    folded_query = fold(query)
    if k <= 0 or not folded_query:
        return []
    scored = []
    for name in set(candidates):
        folded = fold(name)
        score = fuzz.WRatio(folded_query, folded)
        if score >= MIN_SCORE:
            scored.append((-score, -fuzz.ratio(folded_query, folded), -fuzz.ratio(query, name), name))
    scored.sort()
    return [Match(name, -neg_score) for neg_score, _, _, name in scored[:k]]
