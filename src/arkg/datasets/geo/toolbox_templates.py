"""Question templates whose gold programs use the rest of KG-Agent's toolbox (paper Table 8): the
relation lookup before a hop (`get_relation`, then `retrieve_relation` narrowing it to the question),
type constraints (`get_entity_by_type`), linking a name the KG spells otherwise or shares between
places (`get_candidate_entity`, `disambiguate_entity`) and set intersections (`intersect`).

`retrieve_relation` is given the question and keeps 5 relations, as the constrained planner offers
it; whether the relation a hop follows is among those kept depends on the ranker, so synthesis checks
it when it replays the program (arkg.synth.programs), not here.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator

from arkg.datasets.geo.build import AREA, BORDER, CONTINENT, COUNTRY, CURRENCY, INSTANCE_OF, LANGUAGE, POPULATION
from arkg.datasets.geo.reasoning import GraphIndex, Program, Support, above, best, evidence, follow, given
from arkg.datasets.geo.templates import Draft, Template, shuffled
from arkg.graph.model import Triple

DraftMaker = Callable[[GraphIndex, random.Random], Iterator[Draft]]
RETRIEVED = 5  # relations retrieve_relation keeps (what the planner's options offer)


def _relation_hops(hops: list[str], text: str, of: str, at_most: int = 8) -> DraftMaker:
    """Paper-style hops: before each, the relations of the current entities, narrowed to the question."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in shuffled(index.of_type(of), rng):
            question = text.format(subject)
            program, items, current = Program(), given(subject), (subject,)
            for relation in hops:
                items = follow(index, items, relation)
                if not items:
                    break
                relations = program("get_relation", current)
                program("retrieve_relation", question, relations, RETRIEVED)
                current = program("get_tail_entity", current, relation)  # type: ignore[assignment]
            if not items or len(items) > at_most:
                continue
            program("end", current)
            yield Draft(question, list(items), program, evidence(items), (subject,))

    return draft


def _typed(type: str) -> Callable[[GraphIndex], Support]:
    """The entities of a type, each grounded by its type edge (as get_entity_by_type gives them)."""
    return lambda index: {name: (Triple(name, INSTANCE_OF, type),) for name in index.of_type(type)}


def _count_of_type_above(type: str, relation: str, thresholds: tuple[int, ...], text: str) -> DraftMaker:
    """How many entities of a type have a value above a threshold: a type constraint, then a filter."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        typed = _typed(type)(index)
        for threshold in rng.sample(thresholds, len(thresholds)):
            kept = above(index, typed, relation, threshold)
            if not kept or len(kept) == len(typed):
                continue
            program = Program()
            number = program("count", program("get_entity_by_constraint", program("get_entity_by_type", type), relation, ">", threshold))
            program("end", number)
            yield Draft(text.format(threshold), len(kept), program, evidence(kept), (type,))

    return draft


def _best_of_type(type: str, relation: str, largest: bool, text: str) -> DraftMaker:
    """The entity of a type with the largest / smallest value (one question; none when tied)."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        winner = best(index, _typed(type)(index), relation, largest)
        if winner is None:
            return
        program = Program()
        program("end", program("get_entity_by_constraint", program("get_entity_by_type", type), relation, "argmax" if largest else "argmin"))
        yield Draft(text, list(winner), program, evidence(winner), (type,))

    return draft


def _both(items_a: Support, items_b: Support) -> Support:
    """intersect's result: the items of a also in b, grounded by both sides."""
    return {name: (*support, *items_b[name]) for name, support in items_a.items() if name in items_b}


def _shared(relation: str, text: str, incoming: bool = False, of: str = "country") -> DraftMaker:
    """The values two subjects of one continent share (languages, neighbours): an intersection."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        names = shuffled(index.of_type(of), rng)
        for a in names:
            others = [b for b in names if b != a and index.one(b, CONTINENT) == index.one(a, CONTINENT)]
            if not others:
                continue
            b = rng.choice(others)
            first, second = follow(index, given(a), relation, incoming), follow(index, given(b), relation, incoming)
            shared = _both(first, second)
            if not shared or len(shared) > 8 or {a, b} & set(shared):
                continue
            program = Program()
            tool = "get_head_entity" if incoming else "get_tail_entity"
            program("end", program("intersect", program(tool, (a,), relation), program(tool, (b,), relation)))
            yield Draft(text.format(a, b), list(shared), program, evidence(shared), (a, b))

    return draft


def _count_on_continent_using(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    """How many countries of a continent use a currency that is also used elsewhere."""
    for currency in shuffled(index.of_type("currency"), rng):
        users = follow(index, given(currency), CURRENCY, incoming=True)
        for continent in sorted({index.one(country, CONTINENT) or "" for country in users} - {""}):
            members = follow(index, given(continent), CONTINENT, incoming=True)
            both = _both(members, users)
            if len(both) == len(users):
                continue  # every user is on the continent: the intersection would change nothing
            program = Program()
            joined = program("intersect", program("get_head_entity", (continent,), CONTINENT), program("get_head_entity", (currency,), CURRENCY))
            program("end", program("count", joined))
            question = f"How many countries in {continent} use the {currency}?"
            yield Draft(question, len(both), program, evidence(both), (continent, currency))


def _as_typed(name: str) -> str:
    """The name as a user types it: accents left out ("Cordoba, Argentina" for "Córdoba, Argentina")."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))


_MIN_NAME = 5


def _linked_city_population(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    """A city whose name other places share ("Córdoba, Spain", "Córdoba, Argentina"): the candidates
    for its bare name, then the one whose name with its country is closest to the question's."""
    cities = shuffled(index.of_type("city"), rng)
    places = Counter(city.partition(", ")[0] for city in cities)
    for city in cities:
        base, separator, country = city.partition(", ")
        # Two places of the name at least (one of a country's same-named cities is kept); a short
        # name is left out, as a search for it returns more unrelated names than it has candidates.
        if not separator or places[base] < 2 or len(base) < _MIN_NAME or index.one(city, COUNTRY) != country:
            continue
        population = follow(index, given(city), POPULATION)
        if len(population) != 1:
            continue
        mention, bare = _as_typed(city), _as_typed(base)
        program = Program()
        candidates = program("get_candidate_entity", bare)
        linked = program("disambiguate_entity", mention, candidates)
        program("end", program("get_tail_entity", linked, POPULATION))
        # The topic entity is the country, the one KG name the question writes exactly.
        yield Draft(f"How many people live in {mention}?", list(population), program, evidence(population), (country,))


TOOLBOX_TEMPLATES: tuple[Template, ...] = (
    Template("currency_via_relations", "lookup", _relation_hops([CURRENCY], "What currency does {} use?", of="country")),
    Template("languages_via_relations", "lookup", _relation_hops([LANGUAGE], "What languages do people speak in {}?", of="country", at_most=6)),
    Template(
        "city_languages_via_relations", "lookup",
        _relation_hops([COUNTRY, LANGUAGE], "What languages are spoken in the country of the city {}?", of="city", at_most=6),
    ),
    Template(
        "count_populous_countries", "count",
        _count_of_type_above("country", POPULATION, (10_000_000, 50_000_000, 100_000_000, 200_000_000), "Counting every country, how many have more than {:,} inhabitants?"),
    ),
    Template("most_populous_country", "superlative", _best_of_type("country", POPULATION, True, "Which country has the most inhabitants?")),
    Template("smallest_country", "superlative", _best_of_type("country", AREA, False, "Which country has the smallest area?")),
    Template("shared_languages", "lookup", _shared(LANGUAGE, "Which languages are spoken in both {} and {}?")),
    Template("common_neighbours", "lookup", _shared(BORDER, "Which countries border both {} and {}?")),
    Template("count_currency_on_continent", "count", _count_on_continent_using),
    Template("population_of_shared_name_city", "lookup", _linked_city_population),
)  # fmt: skip
