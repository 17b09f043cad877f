"""`arkg ask` says whether the cited facts support the answer, and why not, in the terminal and in --json;
`--grounded` abstains on an answer they do not support."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.cli import app
from arkg.llm.scripted import Reply, ScriptedModel

runner = CliRunner()
QUESTION = "Where was Marie Curie born?"
# KAPING shows ten facts of Marie Curie: T1 names a child of hers, T9 her place of birth (Warsaw).
MEMORY = {"cited_keys": ["T1"], "explanation": "I recall it.", "answer": "Paris"}
FROM_THE_KG = {"cited_keys": ["T1", "T9"], "explanation": "Her place of birth is Warsaw.", "answer": "Warsaw"}


@pytest.fixture
def reply(monkeypatch: pytest.MonkeyPatch):
    """Make `arkg ask` open a scripted model that gives this one reply to each run."""
    monkeypatch.setenv("COLUMNS", "250")

    def use(answer: Reply) -> None:
        monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: ScriptedModel.from_replies([answer]))

    return use


def ask(*options: str) -> list[str]:
    shown = runner.invoke(app, ["ask", QUESTION, "--strategy", "kaping", *options])
    assert shown.exit_code == 0, shown.output
    return shown.output.splitlines()


def test_an_unsupported_answer_prints_its_basis_and_why(reply) -> None:
    reply(MEMORY)
    lines = ask("--answer-unsupported")
    at = next(index for index, line in enumerate(lines) if line.startswith("answer:"))
    assert lines[at] == "answer: Paris  basis: unsupported (1 cited fact, 0 rules)  unsupported"
    assert lines[at + 1].startswith("  unsupported: Paris is in no cited fact")
    result = json.loads(runner.invoke(app, ["ask", QUESTION, "--strategy", "kaping", "--answer-unsupported", "--json"]).output)
    assert result["basis"] == "unsupported" and result["support"]["supported"] is False
    assert result["support"]["reasons"][0].startswith("Paris is in no cited fact")


def test_with_the_bundled_model_an_unsupported_answer_is_withheld_by_default_and_shown_as_such(reply) -> None:
    reply(MEMORY)
    lines = ask()
    at = next(index for index, line in enumerate(lines) if line.startswith("answer:"))
    assert lines[at] == "answer: None (not settled by the knowledge graph)  basis: no answer"
    assert lines[at + 1].startswith("  withheld: Paris (unsupported: Paris is in no cited fact")
    with_a_model = runner.invoke(app, ["ask", QUESTION, "--strategy", "kaping", "--model", "llamacpp", "--json"])
    assert json.loads(with_a_model.output)["answer"] == "Paris"  # another model's answers are given, marked


def test_a_supported_answer_prints_no_reasons_and_cites_only_its_chain(reply) -> None:
    reply(FROM_THE_KG)
    lines = ask()
    at = next(index for index, line in enumerate(lines) if line.startswith("answer:"))
    assert lines[at] == "answer: Warsaw  basis: kg (1 cited fact, 0 rules)  supported"
    assert not any("unsupported" in line for line in lines)
    assert any("on a chain from the question to the answer: T9" in line for line in lines)


def test_grounded_abstains_on_an_unsupported_answer_and_keeps_a_supported_one(reply) -> None:
    reply(MEMORY)
    abstained = json.loads(runner.invoke(app, ["ask", QUESTION, "--strategy", "kaping", "--grounded", "--json"]).output)
    assert abstained["answer"] is None and abstained["basis"] == "no answer"
    assert abstained["stop_reason"].startswith("abstained: not supported by its cited facts: Paris is in no cited fact")
    reply(FROM_THE_KG)
    kept = json.loads(runner.invoke(app, ["ask", QUESTION, "--strategy", "kaping", "--grounded", "--json"]).output)
    assert kept["answer"] == "Warsaw" and kept["basis"] == "kg"
