"""`arkg ask` checks its input before opening anything, passes --timeout/--retries to the model, and
runs on the strategy's tuned model unless --model names another (showing which one answered)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.agents import MAX_QUESTION_CHARS
from arkg.cli import app
from arkg.data import TUNED_ADAPTERS
from arkg.errors import ModelError
from arkg.llm import TestModel, parse_model_spec

runner = CliRunner()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Options open_model was called with; the call then fails, so nothing runs."""
    calls: list[dict] = []

    def open_model(spec=None, **options):
        calls.append(options)
        raise ModelError("no model in this test")

    monkeypatch.setattr(arkg.session, "open_model", open_model)
    return calls


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_is_refused_before_anything_opens(opened: list[dict], question: str) -> None:
    """`arkg ask ""` is an error, and no model is opened."""
    result = runner.invoke(app, ["ask", question])
    assert result.exit_code == 2
    assert "Invalid value for 'question': the question is empty" in " ".join(result.output.split())
    assert opened == []


def test_a_question_over_the_length_limit_is_refused_before_anything_opens(opened: list[dict]) -> None:
    """The limit `arkg serve`, `arkg mcp` and `arkg eval` hold to (MAX_QUESTION_CHARS); one line, exit 2."""
    result = runner.invoke(app, ["ask", "Why? " * 2_000])
    assert result.exit_code == 2
    assert "Invalid value for 'question': 9,999 characters; a question is at most 1,000" in " ".join(result.output.split())
    assert opened == []
    at_the_limit = runner.invoke(app, ["ask", "w" * (MAX_QUESTION_CHARS - 1) + "?"])
    assert at_the_limit.exit_code == 1 and len(opened) == 1  # taken: the model (failing here) is opened


def test_temperature_above_2_is_refused(opened: list[dict]) -> None:
    """--temperature must be within 0-2."""
    result = runner.invoke(app, ["ask", "Was Marie Curie born in Warsaw?", "--temperature", "5"])
    assert result.exit_code == 2
    assert "Invalid value for '--temperature'" in result.output
    assert opened == []


def test_timeout_and_retries_reach_open_model(opened: list[dict]) -> None:
    """`arkg ask --timeout S --retries N` passes both to open_model."""
    result = runner.invoke(app, ["ask", "Was Marie Curie born in Warsaw?", "--timeout", "7", "--retries", "2", "--no-cache"])
    assert result.exit_code == 1
    assert "no model in this test" in result.output
    assert [{name: options[name] for name in ("cache", "timeout", "retries")} for options in opened] == [
        {"cache": False, "timeout": 7.0, "retries": 2}
    ]


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Specs `arkg ask` opens, each answered by a TestModel named as llama.cpp names the model it means."""
    specs: list[str] = []

    def open_model(spec=None, **options):
        specs.append(spec)
        adapter = parse_model_spec(spec).adapter
        return TestModel(name="llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf" + (f"+{TUNED_ADAPTERS[adapter]}" if adapter else ""))

    monkeypatch.setattr(arkg.session, "open_model", open_model)
    return specs


@pytest.mark.parametrize(
    ("arguments", "spec", "shown"),
    [
        (["--strategy", "ark"], "llamacpp:tuned", "SmolLM2-135M-Instruct + tuned (the adapter tuned for ark)"),
        # No strategy and no model: the default strategy for the bundled model, with its adapter.
        ([], "llamacpp:tuned-kg-agent", "SmolLM2-135M-Instruct + tuned-kg-agent (the adapter tuned for kg-agent)"),
        (["--strategy", "kg-agent"], "llamacpp:tuned-kg-agent", "SmolLM2-135M-Instruct + tuned-kg-agent (the adapter tuned for kg-agent)"),
        (["--strategy", "cot"], "llamacpp", "SmolLM2-135M-Instruct, no adapter"),
        (["--model", "llamacpp"], "llamacpp", "SmolLM2-135M-Instruct, no adapter"),
    ],
)
def test_the_model_that_answers_is_the_strategys_tuned_one_unless_named_and_is_shown(
    named: list[str], arguments: list[str], spec: str, shown: str
) -> None:
    question = ["ask", "Was Marie Curie born in Warsaw?", *arguments]
    result = runner.invoke(app, question, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert named == [spec] and f"model: {shown}" in result.output.splitlines()
    as_json = runner.invoke(app, [*question, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout)["model"] == shown


def test_help_says_the_default_is_the_tuned_model_and_llamacpp_the_plain_one() -> None:
    output = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"}).output
    shown = " ".join(output.replace("│", " ").split())  # the words, without rich's frame
    assert "Default: the bundled SmolLM2-135M-Instruct with the LoRA adapter tuned for the strategy" in shown
    assert "llamacpp:tuned for ark" in shown and "`llamacpp`: the plain bundled model, no adapter" in shown
