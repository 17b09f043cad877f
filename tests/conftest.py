"""Fixtures shared by the whole test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.graph import KnowledgeGraph, open_graph

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The benchmark data that lives beside the repository (../shared); skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED} (it lies beside the repository as ../shared)")
    return SHARED


@pytest.fixture(scope="session")
def colota_dir(shared_dir: Path) -> Path:
    path = shared_dir / "benchmarks" / "colota"
    if not (path / "CR-LT-QA.json").is_file():
        pytest.skip(f"CoLoTa data not found at {path}")
    return path


@pytest.fixture(scope="session")
def sample_kg() -> Iterator[KnowledgeGraph]:
    """The bundled sample KG (Curie family), in memory, opened once: tests read it and must not add to it."""
    graph = open_graph(None)
    yield graph
    graph.close()


@pytest.fixture(scope="session")
def bundled_model():
    """The bundled SmolLM2-135M through llama.cpp, loaded once for the whole test session."""
    from arkg.llm import LlamaCppModel

    return LlamaCppModel(n_ctx=4096)
