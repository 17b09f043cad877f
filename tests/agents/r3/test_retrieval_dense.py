"""R³'s fact retrieval: dense by default where the `dense` extra is installed (BM25 otherwise), and over
the sample KG a question about dying finds the `date of death` facts, which share no word with what
is asked (R³ ranks the facts of the question's entities against the missing information)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from arkg.agents.modes import EdgeSet
from arkg.agents.r3.settings import R3Settings
from arkg.agents.retrieval import RankerName, dense_installed, link_entities, neighbourhood, rank_facts
from arkg.graph import KnowledgeGraph

QUESTION = "Did Pierre Curie die before Marie Curie?"
MISSING = "When did they die?"


@pytest.fixture
def without_dense(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "wordllama", None)
    dense_installed.cache_clear()
    yield
    dense_installed.cache_clear()


def test_r3_ranks_facts_densely_when_the_extra_is_installed() -> None:
    assert R3Settings().ranker is RankerName.DENSE
    assert R3Settings(ranker=RankerName.LEXICAL).ranker is RankerName.LEXICAL  # still a setting


def test_without_the_dense_extra_r3_falls_back_to_bm25(without_dense: None) -> None:
    assert R3Settings().ranker is RankerName.LEXICAL


def test_a_died_question_retrieves_the_date_of_death_facts_with_dense_retrieval(sample_kg: KnowledgeGraph) -> None:
    entities = link_entities(sample_kg, QUESTION, limit=5)
    assert {"Pierre Curie", "Marie Curie"} <= set(entities)
    facts = neighbourhood(sample_kg, entities, EdgeSet.OUT)
    dense = [fact.triple for fact in rank_facts(facts, MISSING, 2, RankerName.DENSE)]
    assert {(t.head, t.relation) for t in dense} == {("Pierre Curie", "date of death"), ("Marie Curie", "date of death")}
    lexical = [fact.triple for fact in rank_facts(facts, MISSING, 2, RankerName.LEXICAL)]
    assert not any(t.relation == "date of death" for t in lexical)  # no word in common: BM25 misses them
