"""Fictional names: invented words from syllables, set into a type's patterns.

Invented words keep a model from answering out of what it remembers: the only way to know who
directed "The Quiet Varnel" is to read the KG.
"""

from __future__ import annotations

import random
import re

from arkg.synth.domains.schema import EntityType

_ONSETS = ("b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st", "t", "tr", "v", "z", "sh", "th")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ei", "ou")
_CODAS = ("", "", "", "l", "n", "r", "s", "th", "m", "x", "nd", "rk")
_SLOT = re.compile(r"\{(\w+)\}")
_TRIES = 200


def invented_word(rng: random.Random) -> str:
    syllables = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.choice((1, 2, 2, 3))))
    return (syllables + rng.choice(_CODAS)).capitalize()


def make_names(kind: EntityType, rng: random.Random, taken: set[str]) -> list[str]:
    """`kind.count` names in its style, none in `taken` (which the new names join); fewer when the
    style's fixed pools run out."""
    names: list[str] = []
    misses = 0
    while len(names) < kind.count and misses < _TRIES:
        pattern = rng.choice(kind.names.patterns)
        name = _SLOT.sub(lambda slot: _fill(slot.group(1), kind, rng), pattern)
        if name.casefold() in taken:
            misses += 1
            continue
        taken.add(name.casefold())
        names.append(name)
    return names


def _fill(slot: str, kind: EntityType, rng: random.Random) -> str:
    if slot == "word":
        return invented_word(rng)
    return rng.choice(kind.names.pools[slot])
