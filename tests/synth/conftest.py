"""Fixtures for the synthesis tests: a small geography KG (a dozen European countries with their
cities) and its questions, written to real files, and the sample source."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.datasets.geo import generate_questions, geo_triples, load_facts, write_questions
from arkg.datasets.geo.build import BORDER, COUNTRY, INSTANCE_OF
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth import Source, geo_source, sample_source

COUNTRIES = frozenset(
    "France Germany Spain Portugal Belgium Switzerland Italy Austria Netherlands Luxembourg Andorra Monaco".split()
)


@pytest.fixture(scope="session")
def small_geo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(KG store, questions file) for a few European countries."""
    triples = geo_triples(load_facts())
    cities = {t.head for t in triples if t.relation == COUNTRY and t.tail in COUNTRIES}
    kept = [t for t in triples if t.head in COUNTRIES | cities and (t.relation != BORDER or t.tail in COUNTRIES)]
    tails = {t.tail for t in kept}
    kept += [t for t in triples if t.relation == INSTANCE_OF and t.head in tails]
    folder = tmp_path_factory.mktemp("small-geo")
    db, questions = folder / "geo.db", folder / "geo.jsonl"
    with SQLiteGraph(db) as graph:
        graph.add_triples(kept)
    write_questions(generate_questions(kept, seed=0, per_template=2), questions)
    return db, questions


@pytest.fixture
def geo(small_geo: tuple[Path, Path]) -> Iterator[Source]:
    source = geo_source(*small_geo)
    yield source
    source.close()


@pytest.fixture
def sample() -> Iterator[Source]:
    source = sample_source()
    yield source
    source.close()
