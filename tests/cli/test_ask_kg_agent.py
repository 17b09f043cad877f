"""`arkg ask --strategy kg-agent` with a scripted model: the steps are printed as they run, settings
reach the strategy, and --json carries the trace."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.cli import app
from arkg.llm.scripted import Reply, ScriptedModel

runner = CliRunner()
QUESTION = "Was Marie Curie born in Warsaw?"
PROGRAM = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Warsaw")', "v3 = end(v2)"]


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[Reply]], list[ScriptedModel]]:
    """Make `arkg ask` open a scripted model with these replies; the models opened are listed."""
    monkeypatch.setenv("COLUMNS", "250")  # wide enough that no line of a step wraps
    opened: list[ScriptedModel] = []

    def use(replies: list[Reply]) -> list[ScriptedModel]:
        def open_model(spec=None, **options):
            opened.append(ScriptedModel.from_replies(replies))
            return opened[-1]

        monkeypatch.setattr(arkg.session, "open_model", open_model)
        return opened

    return use


def test_ask_prints_each_line_its_result_the_answer_and_the_program(scripted) -> None:
    scripted(PROGRAM)
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", QUESTION])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  topic entities: Marie Curie, Warsaw" in lines
    assert any(line.startswith(f"  1.1 line: {PROGRAM[0]} ✓  (chosen among ") for line in lines)
    assert "        → 1 entity: Warsaw  (1 triple read)" in lines
    assert any(line.startswith(f"  2.1 line: {PROGRAM[1]} ✓") for line in lines)
    assert "        → True" in lines
    assert "  end: the program ended" in lines
    assert any(line.startswith("answer: True  basis: kg (") for line in lines)
    assert lines[lines.index("program (3 lines, 0 invalid attempts):") + 1 :][:3] == [f"  {line}" for line in PROGRAM]
    assert "kg-agent: 3 model calls" in result.output and "stopped because the program ended" in result.output


def test_free_mode_from_the_command_line_shows_the_failed_line_and_its_feedback(scripted) -> None:
    replies = [{"line": 'v1 = get_tail_entity(["Marie Curie"], "born in")'}, *({"line": line} for line in PROGRAM)]
    models = scripted(replies)
    args = ["ask", "--strategy", "kg-agent", "--mode", "free", "--c-max", "2", "--set", "max_steps=5", QUESTION]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "1.1 line: v1 = get_tail_entity([\"Marie Curie\"], \"born in\") ✗  no edge 'born in' leaves Marie Curie" in result.output
    assert f"1.2 line: {PROGRAM[0]} ✓" in result.output
    assert "answer: True" in result.output and "1 invalid attempts" in result.output
    assert len(models[0].calls) == 4


def test_json_output_carries_the_answer_citations_and_trace(scripted) -> None:
    scripted(PROGRAM)
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", "--json", QUESTION])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["strategy"] == "kg-agent" and data["answer"] is True
    assert data["cited_triples"] == [{"head": "Marie Curie", "relation": "place of birth", "tail": "Warsaw", "props": {}}]
    assert [event["kind"] for event in data["trace"]["events"]] == ["topic", "line", "line", "line", "end"]
    assert data["trace"]["events"][1]["record"]["sample"] == ["Warsaw"]


def test_an_ark_flag_is_refused_for_kg_agent(scripted) -> None:
    models = scripted(PROGRAM)
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", "--k-max", "3", QUESTION])
    assert result.exit_code == 1 and "--k-max does not apply to strategy 'kg-agent'" in result.output
    assert "; ark takes it: add --strategy ark" in result.output  # the strategies whose flag it is
    assert models == []


def test_ask_notes_the_adapter_tuned_for_the_strategy(scripted) -> None:
    scripted(PROGRAM)
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", "--model", "llamacpp:tuned", QUESTION])
    assert result.exit_code == 0, result.output
    assert "note: llamacpp:tuned-kg-agent is the adapter tuned for kg-agent; this run uses llamacpp:tuned" in result.stderr
    scripted(PROGRAM)
    result = runner.invoke(app, ["ask", "--strategy", "kg-agent", "--model", "llamacpp:tuned-kg-agent", QUESTION])
    assert result.exit_code == 0 and "note:" not in result.stderr
