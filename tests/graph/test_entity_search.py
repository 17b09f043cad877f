"""search_entities / search_relations: which name did the agent probably mean?"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arkg.graph import Direction, SQLiteGraph, Triple, sqlite_store
from arkg.graph.matching import fold

NAMES = [
    "Sablé", "Sable Island", "Sabine", "Table Mountain", "Yui Yuigahama", "Yui", "Yuigahama",
    "Mahmoud Dowlatabadi", "Dowlat Khan", "Warsaw", "Wars of the Roses", "Nobel Prize",
    "Nobel Prize in Physics", "Nobel Prize in Chemistry", "Irène Joliot-Curie",
]  # fmt: skip


@pytest.fixture(params=["scan small graphs", "trigram pieces only"])
def graph(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLiteGraph]:
    """Both fallbacks for poor matches: comparing every name (small graphs) and trigram pieces (large)."""
    if request.param == "trigram pieces only":
        monkeypatch.setattr(sqlite_store, "_SCAN_ALL_UP_TO", 0)
    with SQLiteGraph() as store:
        store.add_triples(Triple(name, "instance of", "thing") for name in NAMES)
        yield store


def best(graph: SQLiteGraph, text: str) -> str:
    return graph.search_entities(text, 5)[0].name


def test_fold_ignores_case_accents_and_spacing() -> None:
    assert fold("  SABLÉ  ") == "sable"
    assert fold("Irène   Joliot-Curie") == "irene joliot-curie"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Sablé", "Sablé"),
        ("Sable", "Sablé"),
        ("sable", "Sablé"),
        ("yui yuigahama", "Yui Yuigahama"),
        ("YUI YUIGAHAMA", "Yui Yuigahama"),
        ("Dowlatabadi", "Mahmoud Dowlatabadi"),
        ("Irene Joliot Curie", "Irène Joliot-Curie"),
        ("nobel prize in physic", "Nobel Prize in Physics"),
    ],
)
def test_names_differing_in_case_accents_or_length(graph: SQLiteGraph, text: str, meant: str) -> None:
    assert best(graph, text) == meant


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Yui Yuigahma", "Yui Yuigahama"),
        ("Mahmud Dowlatabadi", "Mahmoud Dowlatabadi"),
        ("Nobel Prise in Chemistry", "Nobel Prize in Chemistry"),
    ],
)
def test_typos(graph: SQLiteGraph, text: str, meant: str) -> None:
    assert best(graph, text) == meant


def test_a_transposition_in_a_short_name_is_found_in_a_small_graph() -> None:
    with SQLiteGraph() as store:
        store.add_triples(Triple(name, "instance of", "thing") for name in NAMES)
        assert best(store, "Wasraw") == "Warsaw"


def test_short_queries_match_name_prefixes(graph: SQLiteGraph) -> None:
    assert {match.name for match in graph.search_entities("Yu", 5)} >= {"Yui", "Yui Yuigahama", "Yuigahama"}


def test_results_are_ranked_limited_to_k_and_scored(graph: SQLiteGraph) -> None:
    matches = graph.search_entities("Nobel Prize", 2)
    assert [match.name for match in matches] == [
        "Nobel Prize",
        "Nobel Prize in Physics",
    ]  # the shorter extension is closer
    assert matches[0].score == 100
    assert matches[0].score >= matches[1].score


def test_nothing_close_gives_no_matches(graph: SQLiteGraph) -> None:
    assert graph.search_entities("zzzzqqq", 5) == []
    assert graph.search_entities("", 5) == []
    assert graph.search_entities("Sable", 0) == []


def test_names_added_later_are_searchable(graph: SQLiteGraph) -> None:
    assert best(graph, "Sable") == "Sablé"
    graph.add_triples([Triple("Chiba Municipal Sōbu High School", "country", "Japan")])
    assert best(graph, "sobu high school") == "Chiba Municipal Sōbu High School"


def test_search_relations_ranks_the_entitys_relations_in_a_direction() -> None:
    with SQLiteGraph() as store:
        store.add_triples(
            [
                Triple("Yui Yuigahama", "has pet", "Sablé"),
                Triple("Yui Yuigahama", "voice actor", "Nao Tōyama"),
                Triple("Sablé", "owned by", "Yui Yuigahama"),
            ]
        )
        assert store.search_relations("Yui Yuigahama", "pet", 1)[0].name == "has pet"
        assert [m.name for m in store.search_relations("Yui Yuigahama", "voice", 5)][0] == "voice actor"
        assert [m.name for m in store.search_relations("Yui Yuigahama", "owner", 5, Direction.IN)] == ["owned by"]
        assert store.search_relations("Nobody", "pet", 5) == []


def test_many_names_containing_the_query_are_ranked_before_truncation() -> None:
    with SQLiteGraph() as store:
        store.add_triples(Triple(f"Sable Island {index}", "instance of", "island") for index in range(500))
        store.add_triples([Triple("Sablé", "instance of", "dog")])
        assert best(store, "Sable") == "Sablé"


def test_the_exact_spelling_comes_before_its_accentless_twin() -> None:
    with SQLiteGraph() as store:
        store.add_triples([Triple("Sable", "instance of", "colour"), Triple("Sablé", "instance of", "dog")])
        assert best(store, "Sablé") == "Sablé"
        assert best(store, "Sable") == "Sable"
