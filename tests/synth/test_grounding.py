"""Grounding stated facts on a KG: exact matches, close matches with notes, and unmatched facts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth import Ungrounded, ground_fact, ground_name

MARRIAGE = Triple("Ilary Blast", "spouse", "Francesco Totti", {"start time": "2005", "end time": "2022"})
POPULATION = Triple("Horsens", "population", "59,449")
OCCUPATION = Triple("Stefanie Hertel", "occupation", "singer")
TERM_1 = Triple("Lokendra Bahadur Chand", "position held", "Prime Minister of Nepal", {"start time": "12 July 1983", "end time": "21 March 1986"})
TERM_2 = Triple("Lokendra Bahadur Chand", "position held", "Prime Minister of Nepal", {"start time": "7 October 2002", "end time": "5 June 2003"})


@pytest.fixture
def kg() -> Iterator[SQLiteGraph]:
    with SQLiteGraph() as graph:
        graph.add_triples([MARRIAGE, POPULATION, OCCUPATION, TERM_1, TERM_2])
        yield graph


def test_a_fact_as_the_kg_holds_it_grounds_exactly(kg: SQLiteGraph) -> None:
    fact = ground_fact(kg, MARRIAGE)
    assert fact.exact and fact.notes == () and fact.triples == (MARRIAGE,)
    assert ground_fact(kg, POPULATION).triples == (POPULATION,)


def test_a_misspelt_name_and_a_qualifier_left_out_ground_with_notes(kg: SQLiteGraph) -> None:
    fact = ground_fact(kg, Triple("Ilary Blasi", "spouse", "Francesco Totti", {"start time": "2005"}))
    assert fact.triples == (MARRIAGE,)
    assert not fact.exact
    assert fact.notes == ("'Ilary Blasi' is 'Ilary Blast' in the KG", "props end time not stated")


def test_a_misspelt_relation_and_a_value_written_another_way_ground_with_notes(kg: SQLiteGraph) -> None:
    assert ground_fact(kg, Triple("Stefanie Hertel", "occuption", "singer")).notes == (
        "relation 'occuption' is 'occupation'",
    )
    assert ground_fact(kg, Triple("Horsens", "population", "59449")).notes == ("tail '59449' is '59,449'",)


def test_a_qualifier_written_into_the_tail_grounds_on_the_edge_it_names(kg: SQLiteGraph) -> None:
    stated = Triple("Lokendra Bahadur Chand", "position held", "Prime Minister of Nepal {end time, 5 June 2003", {"start time": "7 October 2002"})
    fact = ground_fact(kg, stated)
    assert fact.triples == (TERM_2,)
    assert fact.notes[0].endswith("is 'Prime Minister of Nepal' (a qualifier written into it)")


def test_a_fact_without_its_props_grounds_on_every_parallel_edge(kg: SQLiteGraph) -> None:
    fact = ground_fact(kg, Triple("Lokendra Bahadur Chand", "position held", "Prime Minister of Nepal"))
    assert fact.triples == (TERM_1, TERM_2)
    assert fact.notes == ("props end time, start time not stated",)  # the store keeps props in key order


def test_a_fact_the_kg_lacks_is_ungrounded_with_what_the_kg_has_instead(kg: SQLiteGraph) -> None:
    with pytest.raises(Ungrounded, match=r"\(Horsens, population\) leads to '59,449', not '59,448'"):
        ground_fact(kg, Triple("Horsens", "population", "59,448"))  # a close number is another number
    with pytest.raises(Ungrounded, match=r"'Horsens' has no relation like 'area' \(its relations: 'population'\)"):
        ground_fact(kg, Triple("Horsens", "area", "51 km²"))
    with pytest.raises(Ungrounded, match=r"no entity named 'Aarhus' \(closest: "):
        ground_fact(kg, Triple("Aarhus", "population", "1"))
    with pytest.raises(Ungrounded, match="has other props"):
        ground_fact(kg, Triple("Ilary Blast", "spouse", "Francesco Totti", {"start time": "1999"}))


def test_names_ground_exactly_or_to_a_close_spelling(kg: SQLiteGraph) -> None:
    assert ground_name(kg, "Horsens") == ("Horsens", None)
    assert ground_name(kg, "Ilary Blasi") == ("Ilary Blast", "'Ilary Blasi' is 'Ilary Blast' in the KG")
    with pytest.raises(Ungrounded):
        ground_name(kg, "Francesca")
