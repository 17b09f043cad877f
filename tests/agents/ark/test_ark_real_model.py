"""The ARK agent with the real bundled model (SmolLM2-135M via llama.cpp) over the bundled sample KG."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arkg.agents.ark import ArkAgent
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.modes import SelectionMode
from arkg.agents.ark.trace import AnchorAttempt, RelationAttempt, StopReason
from arkg.cli import app
from arkg.graph import SAMPLE_QUESTIONS

from support.grounding import assert_grounded

pytestmark = pytest.mark.slow
SHORT = {"k_max": 2, "c_max": 2}


def test_constrained_run_ends_grounded_without_invalid_attempts(bundled_model, sample_kg):
    settings = ArkSettings(mode=SelectionMode.CONSTRAINED, **SHORT)
    result = ArkAgent(sample_kg, bundled_model, settings).ask(SAMPLE_QUESTIONS[0].question)
    assert_grounded(result, sample_kg)
    assert result.trace.invalid_attempts == 0
    assert int(result.trace.nodes[0]) == 1 and int(result.trace.nodes[-1]) == 11


def test_free_run_checks_every_pick_against_the_kg(bundled_model, sample_kg):
    settings = ArkSettings(mode=SelectionMode.FREE, **SHORT)
    result = ArkAgent(sample_kg, bundled_model, settings).ask(SAMPLE_QUESTIONS[0].question)
    assert_grounded(result, sample_kg)
    anchors = [event for event in result.trace.events if isinstance(event, AnchorAttempt)]
    relations = [event for event in result.trace.events if isinstance(event, RelationAttempt)]
    for attempt in anchors:
        assert attempt.valid == sample_kg.is_head(attempt.proposed)
        assert attempt.valid or "Closest entities" in attempt.feedback
    for attempt in relations:
        assert (attempt.outcome == "valid") == (attempt.proposed in sample_kg.relations(attempt.anchor))
    # At temperature 0 the bundled model anchors on Marie Curie, then twice offers her name as a
    # relation: both picks are rejected, the second is told why the first was, and repeating a
    # rejected pick ends the run, which then has no fact to cite.
    assert [(a.proposed, a.outcome) for a in relations] == [("Marie Curie", "invalid")] * 2
    assert relations[0].feedback in relations[1].call.shown.splitlines()
    assert result.stop_reason == StopReason.REPEATED_RELATION.value
    assert result.trace.invalid_attempts == 2 and result.cited_triples == []


def test_cli_answers_over_the_sample_kg_as_json_and_writes_the_trace(tmp_path):
    trace_file = tmp_path / "trace.json"
    question = SAMPLE_QUESTIONS[0].question
    args = ["ask", question, "--strategy", "ark", "--json", "--k-max", "1", "--c-max", "1", "--no-cache", "--trace", str(trace_file)]
    outcome = CliRunner().invoke(app, args)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout)
    assert result["strategy"] == "ark" and result["answer"] in (True, False, None)
    assert json.loads(trace_file.read_text())["question"] == question


def test_cli_reports_a_missing_store_in_one_line(tmp_path):
    outcome = CliRunner().invoke(app, ["ask", "Is it?", "--db", str(tmp_path / "missing.db")])
    assert outcome.exit_code == 1
    assert "missing.db: no such KG store" in outcome.output and "Traceback" not in outcome.output
