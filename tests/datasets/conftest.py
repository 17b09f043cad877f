"""The geography KG, built once for the dataset tests (from the `geo` extra's packages)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.datasets.geo import GeoQuestion, build_geo_kg, generate_questions
from arkg.datasets.geo.people_templates import PEOPLE_TEMPLATES
from arkg.graph import SQLiteGraph


@pytest.fixture(scope="session")
def geo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_geo_kg(tmp_path_factory.mktemp("geo") / "geo.db").path


@pytest.fixture(scope="session")
def geo_kg(geo_db: Path) -> Iterator[SQLiteGraph]:
    with SQLiteGraph(geo_db, create=False) as graph:
        yield graph


@pytest.fixture(scope="session")
def geo_questions(geo_kg: SQLiteGraph) -> list[GeoQuestion]:
    return generate_questions(geo_kg.iter_triples(), seed=0)


@pytest.fixture(scope="session")
def people_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteGraph]:
    """The geography KG with 400 fictional people."""
    path = build_geo_kg(tmp_path_factory.mktemp("people") / "people.db", people=400).path
    with SQLiteGraph(path, create=False) as graph:
        yield graph


@pytest.fixture(scope="session")
def people_questions(people_kg: SQLiteGraph) -> list[GeoQuestion]:
    """The questions of the people templates only."""
    return generate_questions(people_kg.iter_triples(), seed=0, templates=PEOPLE_TEMPLATES)
