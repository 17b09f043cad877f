"""The `kg-agent` strategy with the real bundled model (SmolLM2-135M via llama.cpp) over the sample KG.

Short programs only (a few lines): what is checked is that a real model drives the loop to an
answer of the right type, every line it chose ran, and every cited or retrieved triple is in the KG.
"""

from __future__ import annotations

import pytest

from arkg.agents import Query
from arkg.agents.kg_agent import KgAgent, KgAgentSettings, LineAttempt
from arkg.agents.modes import SelectionMode
from arkg.graph import KnowledgeGraph, Triple

pytestmark = pytest.mark.slow


def assert_grounded(result, kg: KnowledgeGraph) -> None:
    for listed in (result.cited_triples, result.retrieved_triples):
        for triple in listed:
            assert Triple(**triple) in kg.triples(triple["head"], triple["relation"])
    assert {Triple(**t).head for t in result.cited_triples} <= {Triple(**t).head for t in result.retrieved_triples}
    assert result.usage.calls >= 1 and result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def test_constrained_mode_answers_a_yes_no_question_with_lines_that_all_ran(bundled_model, sample_kg: KnowledgeGraph) -> None:
    result = KgAgent(sample_kg, bundled_model, KgAgentSettings(max_steps=3)).ask("Was Marie Curie born in Warsaw?")
    assert result.answer in (True, False, None)
    assert_grounded(result, sample_kg)
    attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
    assert attempts and all(event.valid and event.options > 0 for event in attempts)
    assert len(result.trace.program) <= 3 and result.usage.calls == len(attempts)


def test_free_mode_checks_every_line_it_writes(bundled_model, sample_kg: KnowledgeGraph) -> None:
    settings = KgAgentSettings(mode=SelectionMode.FREE, max_steps=1, c_max=2)
    result = KgAgent(sample_kg, bundled_model, settings).ask(Query(text="Who was the spouse of Marie Curie?"))
    assert result.answer is None or isinstance(result.answer, (str, bool))
    assert_grounded(result, sample_kg)
    for event in result.trace.events:
        if isinstance(event, LineAttempt):
            assert (event.record is None) == bool(event.error)
