"""`arkg ask` checks its input before opening anything, and passes --timeout/--retries to the model."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.cli import app
from arkg.errors import ModelError

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
    assert opened == [{"cache": False, "timeout": 7.0, "retries": 2}]
