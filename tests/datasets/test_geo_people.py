"""Fictional people over the geography KG: consistent biographies, new names only, deterministic, opt-in;
and the questions about them: every template, balanced yes/no, none over a KG without people."""

from __future__ import annotations

from collections import Counter

from arkg.graph.literals import as_date
from arkg.datasets.geo import GeoQuestion, geo_triples, generate_questions, load_facts
from arkg.datasets.geo.people_templates import PEOPLE_TEMPLATES
from arkg.graph import Direction, SQLiteGraph


def _humans(kg: SQLiteGraph) -> list[str]:
    return [t.head for t in kg.triples("human", "instance of", Direction.IN)]


def _year(kg: SQLiteGraph, person: str) -> int:
    (born,) = kg.triples(person, "date of birth")
    key = as_date(born.tail)
    assert key is not None and key[1] is not None and key[2] is not None, born  # a full date
    return key[0]


def test_every_person_has_a_consistent_biography(people_kg: SQLiteGraph) -> None:
    people = _humans(people_kg)
    assert len(people) == len(set(people)) == 400
    for person in people:
        (birthplace,) = people_kg.triples(person, "place of birth")
        assert "city" in {t.tail for t in people_kg.triples(birthplace.tail, "instance of")}
        (country,) = people_kg.triples(birthplace.tail, "country")
        assert country.tail in {t.tail for t in people_kg.triples(person, "country of citizenship")}
        born = _year(people_kg, person)
        for death in people_kg.triples(person, "date of death"):
            assert born < as_date(death.tail)[0] <= 2024  # type: ignore[index]
        for spouse in people_kg.triples(person, "spouse"):
            assert people_kg.triples(spouse.tail, "spouse")[0].tail == person  # both ways
        for child in people_kg.triples(person, "child"):
            assert 10 <= _year(people_kg, child.tail) - born <= 40  # 20-40 after the elder parent
    assert sum(bool(people_kg.triples(p, "spouse")) for p in people) > 50
    assert sum(bool(people_kg.triples(p, "child")) for p in people) > 20


def test_people_take_new_names_and_leave_the_geography_alone() -> None:
    facts = load_facts()
    geography = geo_triples(facts, 1_000_000)
    with_people = geo_triples(facts, 1_000_000, people=300, people_seed=1)
    assert with_people[: len(geography)] == geography
    added = with_people[len(geography) :]
    existing = {t.head for t in geography} | {t.tail for t in geography}
    assert not {t.head for t in added} & existing  # no person or university shares a name
    assert geo_triples(facts, 1_000_000, people=300, people_seed=1) == with_people
    assert geo_triples(facts, 1_000_000, people=300, people_seed=2) != with_people


def test_questions_about_people_cover_every_template_with_balanced_yes_no(people_questions: list[GeoQuestion]) -> None:
    assert set(Counter(q.template for q in people_questions)) == {template.name for template in PEOPLE_TEMPLATES}
    for template in ("born_in_city", "born_in_country", "citizen_of", "married_to", "child_award", "born_before"):
        answers = Counter(q.answer for q in people_questions if q.template == template)
        assert min(answers[True], answers[False]) >= 0.25 * sum(answers.values()), (template, answers)
    assert {q.hops for q in people_questions} == {1, 2, 3}


def test_a_kg_without_people_gets_no_questions_about_people(geo_kg: SQLiteGraph) -> None:
    assert generate_questions(geo_kg.iter_triples(), templates=PEOPLE_TEMPLATES) == []
