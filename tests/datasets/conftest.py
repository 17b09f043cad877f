"""The geography KG, built once for the dataset tests (from the `geo` extra's packages)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.datasets.geo import GeoQuestion, build_geo_kg, generate_questions
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
