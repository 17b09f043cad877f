"""The geography KG builder: real data in, a deterministic store out, nothing left by a failure."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from arkg.datasets.geo import build_geo_kg, geo_triples, load_facts
from arkg.errors import ArkgError
from arkg.graph import Direction, SQLiteGraph, Triple


def test_the_kg_holds_countries_capitals_borders_cities_and_typed_values(geo_kg: SQLiteGraph) -> None:
    stats = geo_kg.stats()
    assert stats.triples > 15_000 and stats.relations == 11
    assert geo_kg.triples("Germany", "capital") == [Triple("Germany", "capital", "Berlin")]
    assert geo_kg.triples("Germany", "continent") == [Triple("Germany", "continent", "Europe")]
    assert geo_kg.triples("Germany", "currency") == [Triple("Germany", "currency", "Euro")]
    assert "German" in [t.tail for t in geo_kg.triples("Germany", "language spoken")]
    assert {t.tail for t in geo_kg.triples("Germany", "shares border with")} >= {"France", "Poland", "Austria"}
    assert geo_kg.triples("Germany", "area")[0].props == {"unit": "km²"}
    assert "Germany" in {t.tail for t in geo_kg.triples("France", "shares border with")}  # borders go both ways
    assert {t.head for t in geo_kg.triples("Germany", "country", Direction.IN)} >= {"Berlin", "Hamburg", "Munich"}
    assert int(geo_kg.triples("Berlin", "population")[0].tail) > 3_000_000
    assert float(geo_kg.triples("Oslo", "latitude")[0].tail) == pytest.approx(59.91, abs=0.05)
    assert {t.head for t in geo_kg.triples("country", "instance of", Direction.IN)} >= {"Germany", "Brazil", "Japan"}


def test_capitals_spelled_without_accents_are_matched_to_their_city(geo_kg: SQLiteGraph) -> None:
    assert geo_kg.triples("Brazil", "capital")[0].tail == "Brasília"
    assert geo_kg.triples("Brasília", "country")[0].tail == "Brazil"


def test_city_names_shared_with_other_entities_get_their_country(geo_kg: SQLiteGraph) -> None:
    cities = {t.head for t in geo_kg.triples("city", "instance of", Direction.IN)}
    assert "Córdoba, Argentina" in cities and "Córdoba, Spain" in cities and "Córdoba" not in cities
    names = [t.head for t in geo_kg.triples("city", "instance of", Direction.IN)]
    assert len(names) == len(set(names))


def test_the_build_is_deterministic(tmp_path: Path) -> None:
    first = build_geo_kg(tmp_path / "a.db", min_city_population=1_000_000)
    second = build_geo_kg(tmp_path / "b.db", min_city_population=1_000_000)
    assert first.stats == second.stats
    with SQLiteGraph(first.path, create=False) as a, SQLiteGraph(second.path, create=False) as b:
        assert list(a.iter_triples()) == list(b.iter_triples())
    digest = [hashlib.sha256(path.read_bytes()).hexdigest() for path in (first.path, second.path)]
    assert digest[0] == digest[1]
    assert geo_triples(load_facts(), 1_000_000) == list(SQLiteGraph(first.path, create=False).iter_triples())


def test_progress_is_reported_and_a_failed_build_leaves_no_file(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []

    def stop_halfway(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= total / 2:
            raise KeyboardInterrupt

    target = tmp_path / "geo.db"
    with pytest.raises(KeyboardInterrupt):
        build_geo_kg(target, min_city_population=1_000_000, progress=stop_halfway)
    assert seen and seen[0][0] == 5_000 and not list(tmp_path.iterdir())

    target.write_bytes(b"keep me")
    with pytest.raises(ArkgError, match="already exists"):
        build_geo_kg(target)
    with pytest.raises(KeyboardInterrupt):
        build_geo_kg(target, min_city_population=1_000_000, overwrite=True, progress=stop_halfway)
    assert target.read_bytes() == b"keep me" and [p.name for p in tmp_path.iterdir()] == ["geo.db"]
    with pytest.raises(ArkgError, match="folder .*missing does not exist"):
        build_geo_kg(tmp_path / "missing" / "geo.db")
