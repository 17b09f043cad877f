"""The `kg-agent` strategy with the real bundled model (SmolLM2-135M via llama.cpp) over the sample KG.

Short programs only (a few lines): what is checked is that a real model drives the loop to an
answer of the right type, every line it chose ran, every cited triple is grounded, and a line that
cannot run is sent back and, after c_max of them, ends the run without an answer.
"""

from __future__ import annotations

import pytest

from arkg.agents import Query
from arkg.agents.kg_agent import KgAgent, KgAgentSettings, LineAttempt, StopReason
from arkg.agents.modes import SelectionMode
from arkg.graph import KnowledgeGraph

from support.grounding import assert_grounded

pytestmark = pytest.mark.slow


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
    attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
    assert all((event.record is None) == bool(event.error) for event in attempts)
    # At temperature 0 the bundled model, untuned, writes no line of the program language: the second
    # attempt is shown why the first could not run, and after c_max = 2 such lines the run ends
    # without an answer rather than with a guess.
    assert [(event.step, event.valid) for event in attempts] == [(1, False), (1, False)]
    assert attempts[0].error in attempts[1].call.shown
    assert result.stop_reason == StopReason.C_MAX.value and result.answer is None
    assert result.cited_triples == [] and result.usage.calls == 2
