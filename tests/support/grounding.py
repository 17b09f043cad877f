"""The grounding assertion of real-model tests: the library's own check, so tests and evaluations
hold runs to the same bar."""

from __future__ import annotations

from arkg.agents.strategy import Result
from arkg.eval.grounding import check_grounding
from arkg.graph import KnowledgeGraph


def assert_grounded(result: Result, kg: KnowledgeGraph) -> None:
    """Every triple the run cited is in `kg` and was shown to the model, as `check_grounding` judges."""
    violations = check_grounding(result, kg).violations
    assert violations == [], "ungrounded citations:\n" + "\n".join(violations)
