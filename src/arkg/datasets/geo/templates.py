"""Question templates over the geography KG. Each yields drafts: the question, its gold program
(written while the answer is computed), gold answer, evidence and topic entities.

A template skips a subject when the answer would be ambiguous in the data: a missing or tied
value, a country without the relation asked about.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arkg.datasets.geo.build import AREA, BORDER, CAPITAL, CONTINENT, COUNTRY, CURRENCY, LANGUAGE, LATITUDE, POPULATION
from arkg.datasets.geo.reasoning import GraphIndex, Program, Support, above, best, evidence, follow, given
from arkg.graph.matching import fold
from arkg.graph.model import Triple

Answer = bool | int | list[str]


@dataclass(frozen=True)
class Draft:
    question: str
    answer: Answer
    program: Program
    evidence: list[Triple]
    entities: tuple[str, ...]


def reveals(draft: Draft) -> bool:
    """An answer named in the question, other than the alternatives it offers ("A or B"): nothing left to find."""
    if not isinstance(draft.answer, list):
        return False
    text = fold(draft.question)
    return any(fold(name) in text for name in draft.answer if name not in draft.entities)


def unbalancing(draft: Draft, polarity: dict[bool, int]) -> bool:
    """A yes/no answer already ahead of the other (True and False are kept in equal numbers)."""
    return isinstance(draft.answer, bool) and polarity[draft.answer] > polarity[not draft.answer]


@dataclass(frozen=True)
class Template:
    name: str
    kind: str  # lookup | verification | comparison | count | superlative
    draft: Callable[[GraphIndex, random.Random], Iterator[Draft]]


def shuffled(items: list[str], rng: random.Random) -> list[str]:
    ordered = sorted(items)
    rng.shuffle(ordered)
    return ordered


def _countries(index: GraphIndex, rng: random.Random) -> list[str]:
    return shuffled(index.of_type("country"), rng)


def _cities(index: GraphIndex, rng: random.Random) -> list[str]:
    return shuffled(index.of_type("city"), rng)


def lookup(relation: str, text: str, incoming: bool = False, at_most: int = 8, of: str = "country") -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    """One hop: the tails (or heads) of `relation` for a subject."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in shuffled(index.of_type(of), rng):
            found = follow(index, given(subject), relation, incoming)
            if not found or len(found) > at_most:
                continue
            program = Program()
            found_var = program("get_head_entity" if incoming else "get_tail_entity", (subject,), relation)
            program("end", found_var)
            yield Draft(text.format(subject), list(found), program, evidence(found), (subject,))

    return draft


def chain(relations: list[tuple[str, bool]], text: str, of: str, at_most: int = 8, skip: Callable[[GraphIndex, str], bool] | None = None) -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    """Several hops along the relations (each outgoing, or incoming when flagged)."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in shuffled(index.of_type(of), rng):
            if skip is not None and skip(index, subject):
                continue
            program = Program()
            items: Support = given(subject)
            current: object = (subject,)
            for relation, incoming in relations:
                items = follow(index, items, relation, incoming)
                if not items:
                    break
                current = program("get_head_entity" if incoming else "get_tail_entity", current, relation)
            if not items or len(items) > at_most:
                continue
            program("end", current)
            yield Draft(text.format(subject), list(items), program, evidence(items), (subject,))

    return draft


def count(relation: str, text: str, incoming: bool = False, of: str = "country") -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in shuffled(index.of_type(of), rng):
            found = follow(index, given(subject), relation, incoming)
            if not found:
                continue
            program = Program()
            number = program("count", program("get_head_entity" if incoming else "get_tail_entity", (subject,), relation))
            program("end", number)
            yield Draft(text.format(subject), len(found), program, evidence(found), (subject,))

    return draft


def _big_cities(hops: list[tuple[str, bool]], text: str) -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    """How many cities reached along `hops` from a country have more than N people."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in _countries(index, rng):
            threshold = rng.choice((500_000, 1_000_000, 2_000_000, 5_000_000))
            program = Program()
            items, current = given(subject), (subject,)
            for relation, incoming in hops:
                items = follow(index, items, relation, incoming)
                current = program("get_head_entity" if incoming else "get_tail_entity", current, relation)  # type: ignore[assignment]
                if not items:
                    break
            if not items:
                continue
            kept = above(index, items, POPULATION, threshold)
            number = program("count", program("get_entity_by_constraint", current, POPULATION, ">", threshold))
            program("end", number)
            yield Draft(text.format(subject, threshold), len(kept), program, evidence(kept), (subject,))

    return draft


def _superlative(hops: list[tuple[str, bool]], relation: str, largest: bool, text: str, of: str, then: str | None = None) -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    """The entity with the largest / smallest value among those reached along `hops` (then, optionally, one more hop)."""

    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        for subject in shuffled(index.of_type(of), rng):
            program = Program()
            items, current = given(subject), (subject,)
            for hop, incoming in hops:
                items = follow(index, items, hop, incoming)
                current = program("get_head_entity" if incoming else "get_tail_entity", current, hop)  # type: ignore[assignment]
            winner = best(index, items, relation, largest) if items else None
            if winner is None:
                continue
            current = program("get_entity_by_constraint", current, relation, "argmax" if largest else "argmin")  # type: ignore[assignment]
            if then is not None:
                winner = follow(index, winner, then)
                if len(winner) != 1:
                    continue
                current = program("get_tail_entity", current, then)  # type: ignore[assignment]
            program("end", current)
            yield Draft(text.format(subject), list(winner), program, evidence(winner), (subject,))

    return draft


def _pairs(names: list[str], rng: random.Random, group: Callable[[str], object]) -> Iterator[tuple[str, str]]:
    """Each name with a random other name of the same group (comparisons within a continent or country)."""
    members: dict[object, list[str]] = {}
    for name in names:
        members.setdefault(group(name), []).append(name)
    for first in names:
        others = [name for name in members[group(first)] if name != first]
        if others:
            yield first, rng.choice(others)


def _which_is_more(relation: str, text: str, largest: bool = True, of: str = "country") -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        names = shuffled(index.of_type(of), rng)
        group = CONTINENT if of == "country" else COUNTRY
        for a, b in _pairs(names, rng, lambda name: index.one(name, group)):
            winner = best(index, given(a, b), relation, largest)
            if winner is None:
                continue
            program = Program()
            program("end", program("get_entity_by_constraint", program("union", (a,), (b,)), relation, "argmax" if largest else "argmin"))
            yield Draft(text.format(a, b), list(winner), program, evidence(winner), (a, b))

    return draft


def _is_more(relation: str, text: str, op: str, of: str = "country") -> Callable[[GraphIndex, random.Random], Iterator[Draft]]:
    def draft(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
        names = shuffled(index.of_type(of), rng)
        group = CONTINENT if of == "country" else COUNTRY
        for a, b in _pairs(names, rng, lambda name: index.one(name, group)):
            left, right = index.number(a, relation), index.number(b, relation)
            if left is None or right is None or left == right:
                continue
            program = Program()
            first, second = program("get_tail_entity", (a,), relation), program("get_tail_entity", (b,), relation)
            program("end", program("judge", first, op, second))
            grounds = evidence(follow(index, given(a), relation), follow(index, given(b), relation))
            answer = left > right if op == ">" else left < right
            yield Draft(text.format(a, b), answer, program, grounds, (a, b))

    return draft


def _more_neighbours(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    names = [name for name in _countries(index, rng) if index.tails(name, BORDER)]
    for a, b in _pairs(names, rng, lambda name: index.one(name, CONTINENT)):
        if len(index.tails(a, BORDER)) == len(index.tails(b, BORDER)):
            continue
        program = Program()
        first = program("count", program("get_tail_entity", (a,), BORDER))
        second = program("count", program("get_tail_entity", (b,), BORDER))
        program("end", program("judge", first, ">", second))
        grounds = evidence(follow(index, given(a), BORDER), follow(index, given(b), BORDER))
        answer = len(index.tails(a, BORDER)) > len(index.tails(b, BORDER))
        yield Draft(f"Does {a} border more countries than {b}?", answer, program, grounds, (a, b))


def _is_capital(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    for country in _countries(index, rng):
        capital = index.one(country, CAPITAL)
        others = [city for city in index.heads(country, COUNTRY) if city != capital]
        if capital is None:
            continue
        candidate = capital if not others or rng.random() < 0.5 else rng.choice(sorted(others))
        program = Program()
        program("end", program("judge", program("get_tail_entity", (country,), CAPITAL), "=", candidate))
        support = follow(index, given(country), CAPITAL)
        yield Draft(f"Is {candidate} the capital of {country}?", candidate == capital, program, evidence(support), (country, candidate))


def _borders(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    for country in _countries(index, rng):
        neighbours = index.tails(country, BORDER)
        if not neighbours:
            continue
        continent = index.one(country, CONTINENT)
        strangers = [c for c in index.heads(continent or "", CONTINENT) if c not in neighbours and c != country]
        other = rng.choice(sorted(neighbours)) if not strangers or rng.random() < 0.5 else rng.choice(sorted(strangers))
        program = Program()
        program("end", program("judge", program("get_tail_entity", (country,), BORDER), "contains", other))
        support = follow(index, given(country), BORDER)
        yield Draft(f"Does {country} border {other}?", other in neighbours, program, evidence(support), (country, other))


def _same_continent(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    names = [name for name in _countries(index, rng) if index.one(name, CONTINENT) is not None]
    for a in names:
        same = [name for name in names if name != a and index.one(name, CONTINENT) == index.one(a, CONTINENT)]
        b = rng.choice(same if same and rng.random() < 0.5 else [name for name in names if name != a])
        program = Program()
        first, second = program("get_tail_entity", (a,), CONTINENT), program("get_tail_entity", (b,), CONTINENT)
        program("end", program("judge", first, "overlaps", second))
        grounds = evidence(follow(index, given(a), CONTINENT), follow(index, given(b), CONTINENT))
        answer = index.one(a, CONTINENT) == index.one(b, CONTINENT)
        yield Draft(f"Are {a} and {b} on the same continent?", answer, program, grounds, (a, b))


def _uses_currency(index: GraphIndex, rng: random.Random) -> Iterator[Draft]:
    currencies = sorted(index.of_type("currency"))
    for country in _countries(index, rng):
        own = index.tails(country, CURRENCY)
        if len(own) != 1:
            continue
        currency = own[0] if rng.random() < 0.5 else rng.choice(currencies)
        program = Program()
        program("end", program("judge", program("get_tail_entity", (country,), CURRENCY), "contains", currency))
        support = follow(index, given(country), CURRENCY)
        yield Draft(f"Is the {currency} used in {country}?", currency in own, program, evidence(support), (country, currency))


def _is_a_capital(index: GraphIndex, city: str) -> bool:
    return bool(index.heads(city, CAPITAL))


TEMPLATES: tuple[Template, ...] = (
    Template("capital_of", "lookup", lookup(CAPITAL, "What is the capital of {}?")),
    Template("country_with_capital", "lookup", lookup(CAPITAL, "Which country has {} as its capital?", incoming=True, at_most=1, of="city")),
    Template("continent_of", "lookup", lookup(CONTINENT, "On which continent is {}?")),
    Template("currency_of", "lookup", lookup(CURRENCY, "Which currency is used in {}?")),
    Template("languages_of", "lookup", lookup(LANGUAGE, "Which languages are spoken in {}?", at_most=6)),
    Template("neighbours_of", "lookup", lookup(BORDER, "Which countries border {}?")),
    Template("country_of_city", "lookup", lookup(COUNTRY, "In which country is the city of {}?", of="city")),
    Template("continent_of_city", "lookup", chain([(COUNTRY, False), (CONTINENT, False)], "On which continent is the city of {}?", of="city")),
    Template("capital_population", "lookup", chain([(CAPITAL, False), (POPULATION, False)], "What is the population of the capital of {}?", of="country")),
    Template("neighbour_capitals", "lookup", chain([(BORDER, False), (CAPITAL, False)], "What are the capitals of the countries that border {}?", of="country")),
    Template("currency_of_city", "lookup", chain([(COUNTRY, False), (CURRENCY, False)], "Which currency is used in the country where {} lies?", of="city")),
    Template(
        "capital_population_of_city_country", "lookup",
        chain([(COUNTRY, False), (CAPITAL, False), (POPULATION, False)], "How many people live in the capital of the country where {} lies?", of="city", skip=_is_a_capital),
    ),
    Template(
        "neighbour_currencies_of_capital", "lookup",
        chain([(CAPITAL, True), (BORDER, False), (CURRENCY, False)], "Which currencies are used in the countries bordering the country whose capital is {}?", of="city"),
    ),
    Template("count_neighbours", "count", count(BORDER, "How many countries border {}?")),
    Template("count_languages", "count", count(LANGUAGE, "How many languages are spoken in {}?")),
    Template("count_currency_users", "count", count(CURRENCY, "How many countries use the {}?", incoming=True, of="currency")),
    Template("count_big_cities", "count", _big_cities([(COUNTRY, True)], "How many cities in {} have more than {:,} inhabitants?")),
    Template(
        "count_big_cities_of_neighbours", "count",
        _big_cities([(BORDER, False), (COUNTRY, True)], "How many cities of more than {1:,} people lie in the countries that border {0}?"),
    ),
    Template("most_populous_city", "superlative", _superlative([(COUNTRY, True)], POPULATION, True, "What is the most populous city of {}?", of="country")),
    Template("largest_neighbour", "superlative", _superlative([(BORDER, False)], AREA, True, "Which country bordering {} has the largest area?", of="country")),
    Template("least_populous_neighbour", "superlative", _superlative([(BORDER, False)], POPULATION, False, "Which country bordering {} has the fewest inhabitants?", of="country")),
    Template("most_populous_on_continent", "superlative", _superlative([(CONTINENT, True)], POPULATION, True, "Which country in {} has the largest population?", of="continent")),
    Template("smallest_on_continent", "superlative", _superlative([(CONTINENT, True)], AREA, False, "Which country in {} has the smallest area?", of="continent")),
    Template(
        "capital_of_largest_on_continent", "superlative",
        _superlative([(CONTINENT, True)], AREA, True, "What is the capital of the largest country by area in {}?", of="continent", then=CAPITAL),
    ),
    Template(
        "most_populous_city_of_neighbours", "superlative",
        _superlative([(BORDER, False), (COUNTRY, True)], POPULATION, True, "What is the most populous city in the countries that border {}?", of="country"),
    ),
    Template("larger_population", "comparison", _which_is_more(POPULATION, "Which has a larger population, {} or {}?")),
    Template("larger_area", "comparison", _which_is_more(AREA, "Which is larger by area, {} or {}?")),
    Template("further_north", "comparison", _which_is_more(LATITUDE, "Which city lies further north, {} or {}?", of="city")),
    Template("more_populous_yes_no", "comparison", _is_more(POPULATION, "Does {} have more inhabitants than {}?", ">")),
    Template("larger_area_yes_no", "comparison", _is_more(AREA, "Is {} larger by area than {}?", ">")),
    Template("further_south_yes_no", "comparison", _is_more(LATITUDE, "Does {} lie further south than {}?", "<", of="city")),
    Template("more_neighbours_yes_no", "comparison", _more_neighbours),
    Template("is_capital", "verification", _is_capital),
    Template("borders", "verification", _borders),
    Template("same_continent", "verification", _same_continent),
    Template("uses_currency", "verification", _uses_currency),
)  # fmt: skip
