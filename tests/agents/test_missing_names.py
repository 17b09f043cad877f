"""A question naming what the KG does not have: None, naming the missing name, before any model call,
for every strategy that reads a KG, in the API and the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arkg.agents.strategy import strategy_info, strategy_names
from arkg.agents.unknown_names import missing_names
from arkg.cli import app
from arkg.graph import open_graph
from arkg.session import Session

KG_STRATEGIES = [name for name in strategy_names() if strategy_info(name).uses_kg]
QUESTION = "Was Marie Kowalska born in Warsaw?"


def test_only_names_the_kg_lacks_are_missing():
    kg = open_graph("sample")
    assert [name.name for name in missing_names(kg, QUESTION)] == ["Marie Kowalska"]
    assert "Marie Curie" in missing_names(kg, QUESTION)[0].closest
    assert missing_names(kg, "Was Marie Curi born in Warsaw?") == []  # a typo of a name it has
    assert missing_names(kg, "Was Curie born in Warsaw?") == []  # part of a name it has
    assert missing_names(kg, "Who is the CEO of Warsaw?") == []  # an acronym names a relation, not an entity


@pytest.mark.parametrize("strategy", KG_STRATEGIES)
def test_every_kg_strategy_answers_none_and_names_the_missing_name(strategy: str):
    with Session(model="test") as session:
        result = session.ask(QUESTION, strategy)
    assert result.answer is None
    assert result.basis == "unknown entity"
    assert result.support is not None and result.support.missing == ["Marie Kowalska"]
    assert result.stop_reason.startswith("unknown entity: Marie Kowalska is not in the KG (closest: ")
    assert result.usage.total_calls == 0


def test_the_cli_says_which_name_is_missing():
    shown = CliRunner().invoke(app, ["ask", QUESTION, "--model", "test"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "basis: unknown entity" in shown.output
    assert "Marie Kowalska is not in the KG (closest: " in shown.output
    result = json.loads(CliRunner().invoke(app, ["ask", QUESTION, "--model", "test", "--json"]).output)
    assert result["answer"] is None and result["basis"] == "unknown entity"
