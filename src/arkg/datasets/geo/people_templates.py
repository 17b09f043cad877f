"""Question templates about the synthetic people of the geography KG (arkg.datasets.geo.people).

They yield nothing over a KG without people, so a geography-only build gets the same questions as
before they existed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from arkg.graph.literals import as_date
from arkg.datasets.geo.build import CONTINENT, COUNTRY
from arkg.datasets.geo.people import AWARD, CHILD, CITIZENSHIP, DATE_OF_BIRTH, FIELD, HUMAN, PLACE_OF_BIRTH, SPOUSE
from arkg.datasets.geo.reasoning import GraphIndex, Program, evidence, follow, given
from arkg.datasets.geo.templates import Draft, Template, chain, count, lookup, shuffled

DraftMaker = Callable[[GraphIndex, random.Random], Iterator[Draft]]


def _people(index: GraphIndex, rng: random.Random) -> list[str]:
    return shuffled(index.of_type(HUMAN), rng)


def _has(hops: list[str], text: str, pool: Callable[[GraphIndex], list[str]]) -> DraftMaker:
    """Yes/no: is a value (true half the time, else another of `pool`) among those reached along `hops`?"""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        candidates = sorted(pool(index))
        for person in _people(index, rng):
            program, items, current = Program(), given(person), (person,)
            for relation in hops:
                items = follow(index, items, relation)
                current = program("get_tail_entity", current, relation)  # type: ignore[assignment]
            if not items or not candidates:
                continue
            value = rng.choice(sorted(items)) if rng.random() < 0.5 else rng.choice(candidates)
            program("end", program("judge", current, "contains", value))
            yield Draft(text.format(person, value), value in items, program, evidence(items), (person, value))

    return draft


def _of_type(name: str) -> Callable[[GraphIndex], list[str]]:
    return lambda index: index.of_type(name)


def _values_of(relation: str) -> Callable[[GraphIndex], list[str]]:
    return lambda index: sorted({t.tail for (head, rel), triples in index.out.items() if rel == relation for t in triples})


def _born_before(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    people = _people(index, rng)
    for a in people:
        b = rng.choice(people)
        first, second = as_date(index.one(a, DATE_OF_BIRTH) or ""), as_date(index.one(b, DATE_OF_BIRTH) or "")
        if a == b or first is None or second is None or first == second:
            continue
        program = Program()
        left, right = program("get_tail_entity", (a,), DATE_OF_BIRTH), program("get_tail_entity", (b,), DATE_OF_BIRTH)
        program("end", program("judge", left, "<", right))
        grounds = evidence(follow(index, given(a), DATE_OF_BIRTH), follow(index, given(b), DATE_OF_BIRTH))
        yield Draft(f"Was {a} born before {b}?", first < second, program, grounds, (a, b))  # type: ignore[operator]


PEOPLE_TEMPLATES: tuple[Template, ...] = (
    Template("birthplace_of", "lookup", lookup(PLACE_OF_BIRTH, "Where was {} born?", of=HUMAN)),
    Template("birth_date_of", "lookup", lookup(DATE_OF_BIRTH, "When was {} born?", of=HUMAN)),
    Template("spouse_of", "lookup", lookup(SPOUSE, "Who was {} married to?", of=HUMAN)),
    Template("children_of", "lookup", lookup(CHILD, "Who are the children of {}?", of=HUMAN)),
    Template("awards_of", "lookup", lookup(AWARD, "Which awards did {} receive?", of=HUMAN)),
    Template("parents_of", "lookup", lookup(CHILD, "Who are the parents of {}?", incoming=True, of=HUMAN)),
    Template("birth_country_of", "lookup", chain([(PLACE_OF_BIRTH, False), (COUNTRY, False)], "In which country was {} born?", of=HUMAN)),
    Template(
        "birth_continent_of", "lookup",
        chain([(PLACE_OF_BIRTH, False), (COUNTRY, False), (CONTINENT, False)], "On which continent was {} born?", of=HUMAN),
    ),
    Template("spouse_birthplace", "lookup", chain([(SPOUSE, False), (PLACE_OF_BIRTH, False)], "Where was the spouse of {} born?", of=HUMAN)),
    Template("children_awards", "lookup", chain([(CHILD, False), (AWARD, False)], "Which awards did the children of {} receive?", of=HUMAN)),
    Template("count_children", "count", count(CHILD, "How many children did {} have?", of=HUMAN)),
    Template("born_in_city", "verification", _has([PLACE_OF_BIRTH], "Was {} born in {}?", _of_type("city"))),
    Template("born_in_country", "verification", _has([PLACE_OF_BIRTH, COUNTRY], "Was {} born in {}?", _of_type("country"))),
    Template("citizen_of", "verification", _has([CITIZENSHIP], "Was {} a citizen of {}?", _of_type("country"))),
    Template("worked_in_field", "verification", _has([FIELD], "Did {} work in {}?", _values_of(FIELD))),
    Template("married_to", "verification", _has([SPOUSE], "Was {} married to {}?", _of_type(HUMAN))),
    Template("child_award", "verification", _has([CHILD, AWARD], "Did a child of {} receive the {}?", _values_of(AWARD))),
    Template("born_before", "comparison", _born_before),
)  # fmt: skip
