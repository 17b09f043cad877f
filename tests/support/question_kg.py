"""A small KG built for the question generator's tests (arkg.synth.kg_questions): people, cities,
companies and clubs with dates and numbers to compare, a type relation no name gives away, a relation
named `type` that is not type-like, a name two entities share up to case, and edges whose props could
be read as their tails."""

from __future__ import annotations

from pathlib import Path

from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph

PEOPLE = "Ada Lind, Boris Kemp, Cora Vale, Dmitri Ash, Elena Frost, Felix Grau, Greta Holm, Hugo Ibsen, Ines Juhl, Jonas Kruse".split(", ")
CITIES = ["Arlen", "Brisk", "Corvo", "Dunmere", "Elst", "Fenwick", "Springfield"]
COMPANIES = ["Norvik Works", "Pellam Group", "Quorra Labs"]
CLUBS = ["Red Hawks", "Blue Owls", "springfield"]  # a club named as a city is, but for its case
MEMBER_OF = "http://example.org/ontology#memberOf"
# Edges whose props hold a value of their tail's sort: no question may rest on them.
MISLEADING = [
    Triple("Arlen", "population", "52000", {"estimate": "61000"}),
    Triple("Jonas Kruse", "spouse", "Ines Juhl", {"introduced by": "Hugo Ibsen"}),
]


def kg_triples() -> list[Triple]:
    t = Triple
    triples = [*MISLEADING]
    for number, person in enumerate(PEOPLE):
        triples += [
            t(person, "est", "human"),  # a type relation that no name gives away
            t(person, "birthDate", f"19{10 + 3 * number}-0{1 + number % 9}-1{number % 10}"),
            t(person, "born_in", CITIES[number % 6]),
            t(person, "employer", COMPANIES[number % 3]),
            t(person, MEMBER_OF, CLUBS[number % 2]),
        ]
        if number % 4 == 0:
            triples.append(t(person, "employer", COMPANIES[(number + 1) % 3]))
    for number, city in enumerate(CITIES):
        triples += [t(city, "est", "city"), t(city, "country", "Ostria" if number % 2 else "Valdor")]
        if city != "Arlen":
            triples.append(t(city, "population", str(10_000 + 7_331 * number)))
    for number, company in enumerate(COMPANIES):
        triples += [t(company, "est", "company"), t(company, "inception", f"19{50 + number}"), t(company, "headquarters location", CITIES[number])]
    triples += [t(club, "est", "club") for club in CLUBS]
    triples += [t("Ostria", "continent", "Meridia"), t("Valdor", "continent", "Meridia"), t("Ostria", "capital", "Brisk"), t("Valdor", "capital", "Arlen")]
    # `type` by name, but each tail its own entity with edges of its own: not type-like.
    for number in range(6):
        design = f"Design Q{number}"
        triples += [t(f"Model M{number}", "type", design), t(design, "designer", PEOPLE[number]), t(design, "released", f"{1990 + number}")]
        triples += [t(f"Model M{number}", "est", "product"), t(design, "est", "design")]
        triples += [t(design, "material", "steel"), t(design, "colour", f"Hue {number}"), t(design, "weight", f"{100 + number}"), t(design, "rank", f"{number}")]
    return triples


def question_kg_store(folder: Path) -> Path:
    """The KG written into a new SQLite store file in `folder`."""
    path = folder / "kg.db"
    with SQLiteGraph(path) as graph:
        graph.add_triples(kg_triples())
    return path
