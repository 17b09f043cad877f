"""Fixtures of the KG-Agent tests: the bundled sample KG (Curie family) and an executor over it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arkg.agents.kg_agent import Executor
from arkg.graph import KnowledgeGraph, open_graph


@pytest.fixture(scope="module")
def sample_kg() -> Iterator[KnowledgeGraph]:
    graph = open_graph(None)
    yield graph
    graph.close()


@pytest.fixture()
def executor(sample_kg: KnowledgeGraph) -> Executor:
    return Executor(sample_kg)
