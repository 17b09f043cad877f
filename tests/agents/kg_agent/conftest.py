"""Fixtures of the KG-Agent tests: an executor over the bundled sample KG (Curie family)."""

from __future__ import annotations

import pytest

from arkg.agents.kg_agent import Executor
from arkg.graph import KnowledgeGraph


@pytest.fixture()
def executor(sample_kg: KnowledgeGraph) -> Executor:
    return Executor(sample_kg)
