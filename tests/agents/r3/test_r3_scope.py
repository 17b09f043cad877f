"""What R³ refuses: open and multiple-choice questions, before any call, saying why and what to use instead."""

from __future__ import annotations

import pytest
from r3_helpers import axiom, judged, purposes, run, sample_kg, scripted
from typer.testing import CliRunner

from arkg.agents.r3 import R3, R3Settings
from arkg.cli import app
from arkg.errors import ArkgError

OTHERS = "(ark, cot, cot-fewshot, kaping, kg-agent)"


def test_a_multiple_choice_question_is_refused_before_any_call_saying_to_ask_each_option():
    model = scripted()
    with pytest.raises(ArkgError) as refused:
        R3(sample_kg(), model).ask("Which is older, Sablé or Kamakura?")
    message = str(refused.value)
    assert "checks whether the KG's facts meet the premises of a commonsense rule, so it cannot pick one of several options" in message
    assert "'Which is older, Sablé or Kamakura?' asks to choose between options" in message
    assert "ask about each option as a yes/no question or a claim" in message
    assert f"use a strategy that answers open questions {OTHERS}" in message
    assert model.calls == []


def test_an_open_question_is_refused_naming_the_strategies_that_answer_it():
    with pytest.raises(ArkgError) as refused:
        R3(sample_kg(), scripted()).ask("Which pet does Yui Yuigahama have?")
    message = str(refused.value)
    assert "so it cannot answer with a name or a value" in message
    assert "reads as an open question: ask it as a yes/no question" in message and OTHERS in message
    assert "options" not in message


def test_a_yes_no_question_with_options_is_a_claim_to_verify_not_a_choice():
    """"Is ... A or B?" asks yes or no; its "or" is for a disjunctive axiom to settle."""
    rule = axiom("A dog of either breed would do.", ("Sablé", "animal breed", "=", "dachshund"))
    settings = R3Settings(max_named=0, max_depth=1, max_breadth=1)
    result, _ = run(rule, judged(("P1", "unknown", [])), question="Is Sablé a dachshund or a corgi?", settings=settings)
    assert purposes(result) == ["axiom", "judgement"]


def test_arkg_ask_refuses_a_choice_with_r3_and_says_why():
    outcome = CliRunner().invoke(app, ["ask", "--strategy", "r3", "--model", "test", "Which is older, A or B?"])
    assert outcome.exit_code == 1
    text = " ".join(outcome.output.split())
    assert "Error: strategy 'r3' settles yes/no questions and claims (True / False / None)" in text
    assert "cannot pick one of several options" in text and f"answers open questions {OTHERS}" in text
    assert "Traceback" not in text
