"""The geography KG: facts turned into triples, written to an arkg SQLite store.

Relations (English labels, as a Wikidata-style KG would have them):

    country   instance of "country"; continent; capital; currency; language spoken;
              shares border with (stored both ways); population; area (props: unit km²)
    city      instance of "city"; country; population; latitude; longitude
    continent / language / currency   instance of "continent" / "language" / "currency"

Cities: those with at least `min_city_population` people, and every capital (the city of its
country whose accent-folded name is the capital GeoNames names: "Brasilia" is Brasília). A city name shared
with another kept city or any other entity becomes "name, country" ("Córdoba, Argentina"); of two
same-named cities of one country only the capital, else the most populous, is kept. Numbers are
plain digits ("82927922"); coordinates have four decimals.

`people=N` adds N fictional people born in those cities (arkg.datasets.geo.people); without it the
KG holds geography only.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from arkg.datasets.geo.facts import City, GeoFacts, load_facts
from arkg.datasets.geo.people import people_triples
from arkg.errors import ArkgError
from arkg.graph.matching import fold
from arkg.graph.model import KGStats, Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.paths import check_writable_file

INSTANCE_OF = "instance of"
CONTINENT, CAPITAL, CURRENCY, LANGUAGE = "continent", "capital", "currency", "language spoken"
BORDER, POPULATION, AREA, COUNTRY = "shares border with", "population", "area", "country"
LATITUDE, LONGITUDE = "latitude", "longitude"
DEFAULT_MIN_CITY_POPULATION = 200_000
_CHUNK = 5_000

Progress = Callable[[int, int], None]  # (triples written, triples in all)


@dataclass(frozen=True)
class GeoBuild:
    path: Path
    stats: KGStats
    seconds: float


def _city_names(facts: GeoFacts, cities: list[City], capitals: set[int], taken: set[str]) -> dict[int, str]:
    """Unique entity names for the kept cities (geonameid -> name)."""
    shared = Counter(city.name for city in cities)
    names: dict[int, str] = {}
    owner: dict[str, City] = {}
    # Capitals first, then by population: the one kept when two names still clash.
    for city in sorted(cities, key=lambda c: (c.geonameid not in capitals, -c.population, c.geonameid)):
        name = city.name
        if shared[name] > 1 or name in taken:
            name = f"{city.name}, {facts.countries[city.country].name}"
        if name in owner or name in taken:
            continue
        owner[name] = city
        names[city.geonameid] = name
    return names


def geo_triples(facts: GeoFacts, min_city_population: int = DEFAULT_MIN_CITY_POPULATION, people: int = 0, people_seed: int = 0) -> list[Triple]:
    """The KG's triples, in a fixed order (countries by code, cities by GeoNames id), then `people`
    synthetic biographies (arkg.datasets.geo.people) when asked for."""
    countries = {code: c for code, c in facts.countries.items() if c.name not in facts.continents}
    by_name = {(city.country, fold(city.name)): city for city in sorted(facts.cities, key=lambda c: c.population)}
    capital_cities = {
        code: by_name[(code, fold(country.capital))]
        for code, country in countries.items()
        if (code, fold(country.capital)) in by_name
    }
    capital_ids = {city.geonameid for city in capital_cities.values()}
    kept = [city for city in facts.cities if city.country in countries and (city.population >= min_city_population or city.geonameid in capital_ids)]
    languages = sorted({name for country in countries.values() for name in country.languages})
    currencies = sorted({country.currency for country in countries.values() if country.currency})
    taken = {c.name for c in countries.values()} | set(facts.continents) | set(languages) | set(currencies)
    city_names = _city_names(facts, kept, capital_ids, taken)
    borders: dict[str, set[str]] = {code: set() for code in countries}
    for code, country in countries.items():
        for other in country.neighbours:
            if other in countries and other != code:
                borders[code].add(other)
                borders[other].add(code)

    triples = [Triple(name, INSTANCE_OF, CONTINENT) for name in facts.continents]
    for code, country in countries.items():
        name = country.name
        triples += [Triple(name, INSTANCE_OF, COUNTRY), Triple(name, CONTINENT, country.continent)]
        if code in capital_cities and capital_cities[code].geonameid in city_names:
            triples.append(Triple(name, CAPITAL, city_names[capital_cities[code].geonameid]))
        elif country.capital and country.capital not in taken:
            triples.append(Triple(name, CAPITAL, country.capital))
        if country.currency:
            triples.append(Triple(name, CURRENCY, country.currency))
        triples += [Triple(name, LANGUAGE, language) for language in country.languages]
        triples += [Triple(name, BORDER, other) for other in sorted(countries[n].name for n in borders[code])]
        if country.population:
            triples.append(Triple(name, POPULATION, str(country.population)))
        if country.area_km2:
            triples.append(Triple(name, AREA, str(country.area_km2), {"unit": "km²"}))
    for city in kept:
        if city.geonameid not in city_names:
            continue
        name = city_names[city.geonameid]
        triples += [
            Triple(name, INSTANCE_OF, "city"),
            Triple(name, COUNTRY, countries[city.country].name),
            Triple(name, POPULATION, str(city.population)),
            Triple(name, LATITUDE, f"{city.latitude:.4f}"),
            Triple(name, LONGITUDE, f"{city.longitude:.4f}"),
        ]
    triples += [Triple(name, INSTANCE_OF, "language") for name in languages]
    triples += [Triple(name, INSTANCE_OF, "currency") for name in currencies]
    if people:
        births = [(city_names[c.geonameid], countries[c.country].name) for c in kept if c.geonameid in city_names]
        taken |= set(city_names.values())
        triples += people_triples(births, people, people_seed, taken)
    return triples


def build_geo_kg(
    path: str | Path,
    *,
    min_city_population: int = DEFAULT_MIN_CITY_POPULATION,
    people: int = 0,
    people_seed: int = 0,
    overwrite: bool = False,
    progress: Progress | None = None,
) -> GeoBuild:
    """Write the geography KG to a new arkg SQLite store at `path`.

    The store is written beside `path` under a temporary name and moved into place only when
    complete: a failed or interrupted build leaves no file (and an existing one untouched).
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise ArkgError(f"{path} already exists; choose another path or overwrite it")
    check_writable_file(path, "KG store")
    started = time.perf_counter()
    triples = geo_triples(load_facts(), min_city_population, people, people_seed)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(handle)
    try:
        with SQLiteGraph(temporary) as graph:
            written, iterator = 0, iter(triples)
            while chunk := list(islice(iterator, _CHUNK)):
                written += graph.add_triples(chunk)
                if progress is not None:
                    progress(written, len(triples))
            graph.build_search_index()
            stats = graph.stats()
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return GeoBuild(path, stats, time.perf_counter() - started)
