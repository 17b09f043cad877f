"""Fuzzy name matching shared by KG backends: fold names, rank candidates against a query.

Agents misspell, drop accents and shorten names ("Sable" for "Sablé", "Dowlatabadi" for
"Mahmoud Dowlatabadi"); ranking is done on folded names so that case and accents barely matter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz import fuzz, process

from arkg.graph.model import Match

MIN_SCORE = 50.0  # below this a name shares too little with the query to be worth suggesting
# rapidfuzz ratio (0-100) at or above which two folded names are the same name written differently.
SAME_NAME = 90.0
_NUMBER = re.compile(r"[+-]?\d[\d,_ ]*(?:\.\d+)?")


class _FoldedCharacters(dict[int, str]):
    """Each character's folded form (NFKD, without combining marks, case-folded), computed on first use.

    Folding a name character by character gives the same text as folding it whole: NFKD decomposes
    each character on its own and only reorders combining marks, which are dropped, and case folding
    maps each character on its own. str.translate then folds a name at C speed (5x faster).
    """

    def __missing__(self, code: int) -> str:
        decomposed = unicodedata.normalize("NFKD", chr(code))
        self[code] = folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
        return folded


_FOLDED_CHARACTERS = _FoldedCharacters()


def fold(text: str) -> str:
    """Lower-case, accent-free, single-spaced form of a name: fold("  Sablé ") == "sable"."""
    if text.isascii():  # the same result without normalizing: most names are ASCII, and indexing folds millions
        return " ".join(text.lower().split())
    return " ".join(text.translate(_FOLDED_CHARACTERS).split())


# White space other than " " (what str.split splits on; none is above U+3000).
_OTHER_SPACE = re.compile("[" + "".join(chr(code) for code in range(0x3001) if chr(code).isspace() and code != 32) + "]")


def fold_all(names: list[str]) -> list[str]:
    """[fold(name) for name in names], for many names at C speed: they are folded joined by U+0000
    (folding maps each character on its own, and U+0000 to itself), then split apart again; the
    spaces are only tidied name by name where some need it."""
    joined = "\x00".join(names)
    if joined.count("\x00") != len(names) - 1:  # a name holds U+0000 itself
        return list(map(fold, names))
    folded = joined.lower() if joined.isascii() else joined.translate(_FOLDED_CHARACTERS)
    parts = folded.split("\x00") if names else []
    ends = f"\x00{folded}\x00"
    if "  " in folded or " \x00" in ends or "\x00 " in ends or _OTHER_SPACE.search(folded):
        return list(map(" ".join, map(str.split, parts)))
    return parts


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


def same_name(a: str, b: str) -> bool:
    """Whether two names are one name written differently (case, accents, spacing, a typo)."""
    folded_a, folded_b = fold(a), fold(b)
    return folded_a == folded_b or fuzz.ratio(folded_a, folded_b) >= SAME_NAME


def same_value(a: str, b: str) -> bool:
    """Numbers by value ("59,449" and "59449"), anything else as names."""
    number_a, number_b = as_number(a), as_number(b)
    if number_a is not None and number_b is not None:
        return number_a == number_b
    return same_name(a, b)


def as_number(text: str) -> float | None:
    """A number written with or without thousands separators ("12,244"), else None."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return None
    try:
        return float(re.sub(r"[,_ ]", "", match.group()))
    except ValueError:
        return None


_LIST_SEPARATOR = re.compile(r"\s*(?:,|;|\band\b)\s*", re.IGNORECASE)
_SEMICOLON = re.compile(r"\s*;\s*")


def name_readings(text: str) -> list[list[str]]:
    """The ways a free-text answer can be read as a list of names, likeliest first.

    "Paris, Lyon" and "Paris and Lyon" name two; in a list written with semicolons a name keeps its
    comma ("Tripoli, Libya; Abuja" names two); the whole text is always a last reading, since one name
    may itself hold a comma or "and". A name given twice names one entity.
    """
    text = text.strip()
    readings = [_split(_LIST_SEPARATOR, text)]
    if ";" in text:
        readings.append(_split(_SEMICOLON, text))
    readings.append([text] if text else [])
    return readings


# rapidfuzz ratio at or above which an answer's name is taken for a known name it misspells
# ("Velora Rafieil" for "Velora Rafukeil" scores 89.7); a 135M model copies invented
# names with such slips.
SNAP_NAME = 80.0


def snap_names(answer: str, names: Iterable[str]) -> tuple[str, list[tuple[str, str]]]:
    """An open answer with each misspelt name replaced by the known name it is closest to.

    Of the answer's readings (name_readings), the first whose every name is one of `names` or close to
    exactly one of them (rapidfuzz ratio >= SNAP_NAME on folded names, and no other as close) is used;
    names with digits (dates, numbers) are never changed. Returns the answer (its names joined with
    "; " when one was replaced, so that a name keeps its comma) and the replacements made; the answer
    as it was when no reading fits.
    """
    known = {fold(name): name for name in names}
    for reading in name_readings(answer):
        snapped, replaced = [], []
        for name in reading:
            folded = fold(name)
            if folded in known:
                snapped.append(known[folded])
                continue
            if any(ch.isdigit() for ch in name):
                break
            close = process.extract(folded, known.keys(), scorer=fuzz.ratio, score_cutoff=SNAP_NAME, limit=2)
            if len(close) != 1:
                break
            snapped.append(known[close[0][0]])
            replaced.append((name, snapped[-1]))
        else:
            return ("; ".join(snapped), replaced) if replaced else (answer, [])
    return answer, []


def _split(separator: re.Pattern[str], text: str) -> list[str]:
    return list({name.casefold(): name for name in separator.split(text) if name}.values())
