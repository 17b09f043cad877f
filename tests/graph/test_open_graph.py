"""open_graph specs and the bundled sample KG with its demo questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from arkg.data import SampleQuestion
from arkg.errors import ArkgError
from arkg.graph import SAMPLE_QUESTIONS, Direction, KnowledgeGraph, SQLiteGraph, Triple, open_graph, sample_graph_path


def test_none_opens_the_sample_kg_in_memory() -> None:
    graph = open_graph(None)
    assert isinstance(graph, KnowledgeGraph)
    stats = graph.stats()
    assert stats.triples == sum(1 for line in sample_graph_path().read_text(encoding="utf-8").splitlines() if line)
    assert stats.triples >= 30


def test_the_sample_kg_has_parallel_edges_props_and_tail_only_entities() -> None:
    graph = open_graph(None)
    assert {"spouse", "collaborator"} <= set(graph.relations("Pierre Curie", Direction.IN))
    [spouse] = graph.triples("Marie Curie", "spouse")
    assert spouse.props == {"start time": "1895", "end time": "1906"}
    assert graph.has_entity("Poland") and not graph.is_head("Poland")


@pytest.mark.parametrize("sample", SAMPLE_QUESTIONS, ids=lambda sample: sample.question)
def test_every_sample_question_is_grounded_in_the_sample_kg(sample: SampleQuestion) -> None:
    graph = open_graph(None)
    for head, relation, tail in sample.path:
        assert graph.is_head(head)
        assert tail in [triple.tail for triple in graph.triples(head, relation)]


def test_the_first_sample_question_needs_one_hop() -> None:
    assert len(SAMPLE_QUESTIONS[0].path) == 1


def test_a_path_opens_an_existing_store(tmp_path: Path) -> None:
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples([Triple("a", "r", "b")])
    graph = open_graph(tmp_path / "kg.db")
    assert graph.triples("a", "r") == [Triple("a", "r", "b")]
    graph.close()


def test_a_missing_path_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(ArkgError, match="no such KG store"):
        open_graph(str(tmp_path / "typo.db"))
    assert not (tmp_path / "typo.db").exists()
