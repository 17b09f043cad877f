"""Synthetic biographies over the geography KG's cities: fictional people with the Wikidata-style
relations a KG about people has, so that questions about people can be generated, trained on and
evaluated without touching any KG arkg is evaluated on.

    human     instance of "human"; date of birth ("7 November 1867"); date of death (most of those
              born before 1940); place of birth (a city of the KG); country of citizenship (the
              birth city's country, sometimes a second one); field of work; award received (some);
              educated at (a university, instance of "university"); spouse (both ways); child

The names are invented (first name + surname, a fixed list each) and checked against every name
the KG already has; the same seed gives the same people.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from itertools import product

from arkg.errors import ArkgError
from arkg.graph.model import Triple

HUMAN, UNIVERSITY = "human", "university"
DATE_OF_BIRTH, DATE_OF_DEATH, PLACE_OF_BIRTH = "date of birth", "date of death", "place of birth"
CITIZENSHIP, FIELD, AWARD, EDUCATED = "country of citizenship", "field of work", "award received", "educated at"
SPOUSE, CHILD = "spouse", "child"

_FIRST = (
    "Ada", "Amara", "Anton", "Aziz", "Beatriz", "Bohdan", "Camille", "Chidi", "Dalia", "Dmitri", "Elif", "Emil",
    "Farah", "Felix", "Greta", "Hamid", "Hana", "Ilse", "Imran", "Ines", "Jonas", "Julia", "Kaito", "Karin",
    "Lars", "Leila", "Lucia", "Malik", "Marta", "Mateo", "Mei", "Nadia", "Nikolai", "Noor", "Olga", "Omar",
    "Paulo", "Priya", "Rafael", "Rosa", "Sana", "Stefan", "Tariq", "Teresa", "Tomas", "Usha", "Viktor", "Wanjiru",
    "Xavier", "Yara", "Yusuf", "Zofia",
)  # fmt: skip
_SURNAMES = (
    "Abeyta", "Achebe", "Bergstrom", "Brandt", "Castellano", "Chowdhury", "Dabrowski", "Delacroix", "Eriksen",
    "Fontaine", "Galvan", "Haddad", "Halvorsen", "Ishikawa", "Jankowski", "Kapoor", "Kovacs", "Lindqvist",
    "Marchetti", "Mensah", "Morozov", "Nakamura", "Novak", "Okafor", "Oyelaran", "Petrov", "Quintero", "Rahman",
    "Reyes", "Sandoval", "Schneider", "Silva", "Takahashi", "Tanaka", "Varga", "Vasquez", "Wojcik", "Yilmaz",
    "Zamora", "Zielinski",
)  # fmt: skip
_FIELDS = (
    "physics", "chemistry", "mathematics", "medicine", "biology", "astronomy", "economics", "literature",
    "music", "painting", "architecture", "philosophy", "history", "linguistics", "geology", "engineering",
)  # fmt: skip
_AWARDS = (
    "Nobel Prize in Physics", "Nobel Prize in Chemistry", "Nobel Prize in Literature", "Fields Medal",
    "Turing Award", "Pulitzer Prize", "Wolf Prize in Medicine", "Abel Prize", "Pritzker Prize", "Lasker Award",
    "Crafoord Prize", "Kyoto Prize",
)  # fmt: skip
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)  # fmt: skip
_LAST_YEAR = 2024  # nobody dies after the KG's last year


def _date(rng: random.Random, year: int) -> str:
    return f"{rng.randint(1, 28)} {_MONTHS[rng.randrange(12)]} {year}"


def people_triples(cities: Iterable[tuple[str, str]], count: int, seed: int, taken: set[str]) -> list[Triple]:
    """`count` fictional people born in `cities` ((city, its country) pairs), none of whose names
    (people or universities) is in `taken`; the triples in a fixed order for a seed."""
    places = sorted(set(cities))
    if count <= 0 or not places:
        return []
    rng = random.Random(f"people:{seed}")
    free = [f"{first} {last}" for first, last in product(_FIRST, _SURNAMES) if f"{first} {last}" not in taken]
    if count > len(free):
        raise ArkgError(f"at most {len(free):,} people can be named; asked for {count:,}")
    names = rng.sample(free, count)
    born = {name: rng.randint(1820, 1995) for name in names}
    triples: list[Triple] = []
    universities: set[str] = set()
    for name in names:
        city, country = rng.choice(places)
        triples += [
            Triple(name, "instance of", HUMAN),
            Triple(name, DATE_OF_BIRTH, _date(rng, born[name])),
            Triple(name, PLACE_OF_BIRTH, city),
            Triple(name, CITIZENSHIP, country),
        ]
        if rng.random() < 0.15:
            other = rng.choice(places)[1]
            if other != country:
                triples.append(Triple(name, CITIZENSHIP, other))
        died = born[name] + rng.randint(45, 95)
        if born[name] < 1940 and died <= _LAST_YEAR:
            triples.append(Triple(name, DATE_OF_DEATH, _date(rng, died)))
        triples += [Triple(name, FIELD, field) for field in sorted(rng.sample(_FIELDS, rng.choice((1, 1, 2))))]
        if rng.random() < 0.35:
            triples += [Triple(name, AWARD, award) for award in sorted(rng.sample(_AWARDS, rng.choice((1, 1, 2))))]
        university = f"University of {rng.choice(places)[0]}"
        if university not in taken:
            universities.add(university)
            triples.append(Triple(name, EDUCATED, university))
    triples += _families(names, born, rng)
    triples += [Triple(name, "instance of", UNIVERSITY) for name in sorted(universities)]
    return triples


def _families(names: list[str], born: dict[str, int], rng: random.Random) -> list[Triple]:
    """Couples (spouse both ways) of people born within 10 years of each other, and their children
    (each in one family at most), born 20 to 40 years after the elder parent."""
    triples: list[Triple] = []
    single = sorted(names, key=lambda name: (born[name], name))
    has_parents: set[str] = set()
    rng.shuffle(single)
    while len(single) >= 2:
        first = single.pop()
        if rng.random() < 0.4:
            continue
        partner = next((other for other in single if abs(born[other] - born[first]) <= 10), None)
        if partner is None:
            continue
        single.remove(partner)
        triples += [Triple(first, SPOUSE, partner), Triple(partner, SPOUSE, first)]
        elder = min(born[first], born[partner])
        children = [
            name for name in names if name not in has_parents and elder + 20 <= born[name] <= elder + 40
        ][: rng.choice((0, 1, 1, 2, 3))]
        for child in children:
            has_parents.add(child)
            triples += [Triple(first, CHILD, child), Triple(partner, CHILD, child)]
    return triples
