"""Question wordings made from a relation's own name, for KGs nobody wrote wordings for.

A relation name becomes words (`birthDate` -> "birth date", `date_of_birth` -> "date of birth",
`http://schema.org/birthDate` -> "birth date", `rdf:type` -> "type"); stores that know labels (Wikidata)
already name relations by them. The words are read as one of two shapes, which decide how a question
reads:

    noun      "date of birth", "author", "has author" (-> "author"): "What is the author of {x}?"
    link      ends with a preposition ("located in", "part of", "directed by"): "What is {x} located in?"
    verb      one past participle ("released", "founded"): "What is the released value of {x}?"

Every template has several phrasings; a question draws one with the generator's seeded random.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-.\s]+")
_PREPOSITIONS = frozenset("in of by at on to from for with after into as under near".split())
# A leading verb that only says "this edge exists": "has author" asks for the author.
_EMPTY_VERBS = ("has ", "have ", "is ")
_DATE_WORDS = frozenset("date year time born birth died death founded inception start end began ended since until released published".split())


def relation_words(name: str) -> str:
    """A relation name as lower-case words: URIs and prefixes cut to their local name, camelCase and
    snake_case split; acronyms (ISBN) keep their case."""
    local = name.rstrip("/#")
    for separator in ("#", "/"):
        local = local.rsplit(separator, 1)[-1]
    if ":" in local and " " not in local:  # a prefixed name (rdf:type, schema:birthDate)
        local = local.rsplit(":", 1)[-1]
    words = _SEPARATORS.split(_CAMEL.sub(" ", local).strip())
    return " ".join(word if word.isupper() and len(word) > 1 else word.lower() for word in words if word) or name


@dataclass(frozen=True)
class Wording:
    """How questions about one relation read."""

    words: str
    link: bool  # ends with a preposition: reads between its two ends ("{x} located in {y}")
    verb: bool  # one past participle: names no thing, so questions ask for its value

    @property
    def dated(self) -> bool:
        """Whether the relation's name speaks of time (its values compare as before / after)."""
        return bool(_DATE_WORDS.intersection(self.words.split()))


def wording(relation: str) -> Wording:
    words = relation_words(relation)
    for verb in _EMPTY_VERBS:
        if words.startswith(verb) and len(words) > len(verb):
            words = words[len(verb) :]
            break
    verb = " " not in words and words.endswith("ed")
    return Wording(f"{words} value" if verb else words, words.rsplit(" ", 1)[-1] in _PREPOSITIONS, verb)


def _choose(rng: random.Random, phrasings: tuple[str, ...], **fields: str) -> str:
    text = rng.choice(phrasings).format(**fields)
    return text[0].upper() + text[1:]


# -- noun phrases for chains ---------------------------------------------------------------------


def noun_phrase(relation: str, inner: str, incoming: bool = False) -> str:
    """A phrase naming the one entity one hop from `inner` ("the author of X", "the place X is located in")."""
    w = wording(relation)
    if incoming:
        return f"the entity {w.words} {inner}" if w.link else f"the entity whose {w.words} is {inner}"
    return f"the entity {inner} is {w.words}" if w.link else f"the {w.words} of {inner}"


# -- phrasings per template ------------------------------------------------------------------------


def ask_tails(rng: random.Random, relation: str, x: str, many: bool, nested: bool = False) -> str:
    """The tails of `relation` from `x`, an entity or (`nested`) a noun phrase, which reads badly
    with a possessive ("the director of X's birth date")."""
    w = wording(relation)
    if w.link:
        phrasings = (
            ("List everything {x} is {r}.", "What are all the entities {x} is {r}?")
            if many
            else ("What is {x} {r}?", "Which entity is {x} {r}?")
        )
    else:
        phrasings = (
            ("List all the {r} of {x}.", "What are all the {r} values of {x}?", "Name every {r} of {x}.")
            if many
            else ("What is the {r} of {x}?", "What is {x}'s {r}?", "Give the {r} of {x}.")
        )
    if nested:
        phrasings = tuple(phrasing for phrasing in phrasings if "'s" not in phrasing)
    return _choose(rng, phrasings, r=w.words, x=x)


def ask_heads(rng: random.Random, relation: str, y: str, many: bool) -> str:
    w = wording(relation)
    if w.link:
        phrasings = ("List everything that is {r} {y}.", "Which entities are {r} {y}? Name all.") if many else ("What is {r} {y}?", "Which entity is {r} {y}?")
    else:
        phrasings = (
            ("List every entity whose {r} is {y}.", "Which entities have {y} as their {r}? Name all.")
            if many
            else ("Which entity has {y} as its {r}?", "What has {y} as its {r}?", "Of which entity is {y} the {r}?")
        )
    return _choose(rng, phrasings, r=w.words, y=y)


def ask_count(rng: random.Random, relation: str, x: str, incoming: bool) -> str:
    w = wording(relation)
    if incoming:
        phrasings = ("How many entities are {r} {x}?", "What is the number of entities {r} {x}?") if w.link else (
            "How many entities have {x} as their {r}?",
            "For how many entities is {x} the {r}?",
        )
    else:
        phrasings = ("How many entities is {x} {r}?", "Count the entities {x} is {r}.") if w.link else (
            "How many {r} values does {x} have?",
            "What is the number of {r} of {x}?",
            "Count the {r} of {x}.",
        )
    return _choose(rng, phrasings, r=w.words, x=x)


def ask_member(rng: random.Random, relation: str, x: str, y: str) -> str:
    w = wording(relation)
    phrasings = ("Is {x} {r} {y}?", "Is it true that {x} is {r} {y}?") if w.link else (
        "Is {y} a {r} of {x}?",
        "Is {y} among the {r} of {x}?",
        "Does {x} have {y} as its {r}?",
    )
    return _choose(rng, phrasings, r=w.words, x=x, y=y)


# A comparison's phrasings, by whether the values are dates and whether the question asks "<".
_COMPARE = {
    (True, True): ("Is the {r} of {a} before that of {b}?", "Does {a} have an earlier {r} than {b}?", "Is {a}'s {r} earlier than {b}'s?"),
    (True, False): ("Is the {r} of {a} after that of {b}?", "Does {a} have a later {r} than {b}?", "Is {a}'s {r} later than {b}'s?"),
    (False, True): ("Is the {r} of {a} lower than that of {b}?", "Does {a} have a smaller {r} than {b}?", "Does {a} have less {r} than {b}?"),
    (False, False): ("Is the {r} of {a} higher than that of {b}?", "Does {a} have a larger {r} than {b}?", "Does {a} have more {r} than {b}?"),
}
_PICK = {
    (True, True): ("Which has the earliest {r}: {options}?", "Of {options}, which has the earliest {r}?"),
    (True, False): ("Which has the latest {r}: {options}?", "Of {options}, which has the latest {r}?"),
    (False, True): ("Which has the lowest {r}: {options}?", "Of {options}, which has the smallest {r}?"),
    (False, False): ("Which has the highest {r}: {options}?", "Of {options}, which has the largest {r}?"),
}


def ask_compare(rng: random.Random, relation: str, a: str, b: str, dates: bool, less: bool) -> str:
    return _choose(rng, _COMPARE[(dates, less)], r=wording(relation).words, a=a, b=b)


def ask_pick(rng: random.Random, relation: str, options: list[str], dates: bool, least: bool) -> str:
    listed = f"{', '.join(options[:-1])} or {options[-1]}"
    return _choose(rng, _PICK[(dates, least)], r=wording(relation).words, options=listed)


def ask_kind(rng: random.Random, x: str, many: bool) -> str:
    phrasings = ("What kinds of thing is {x}? Name all.", "List every type {x} has.") if many else (
        "What kind of thing is {x}?",
        "What type of entity is {x}?",
        "Which class does {x} belong to?",
    )
    return _choose(rng, phrasings, x=x)


def ask_is_kind(rng: random.Random, x: str, kind: str) -> str:
    return _choose(rng, ("Is {x} a {k}?", "Is {x} of the type {k}?", "Does {x} belong to the class {k}?"), x=x, k=kind)


def ask_has_kind(rng: random.Random, relation: str, x: str, kind: str) -> str:
    w = wording(relation)
    phrasings = ("Is {x} {r} some {k}?", "Is {x} {r} anything of the type {k}?") if w.link else (
        "Is any {r} of {x} a {k}?",
        "Does {x} have a {r} of the type {k}?",
    )
    return _choose(rng, phrasings, r=w.words, x=x, k=kind)
