"""`--protocol paper`: each seed system run as its paper specifies, every route of the paper reachable,
and a run's recorded settings telling whether it followed the paper."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arkg.agents import REGISTRY, build_strategy, follows_protocol, protocol_settings, strategy_settings
from arkg.agents.ark.trace import StopReason as ArkStop
from arkg.agents.kg_agent import LineAttempt
from arkg.agents.modes import SelectionMode
from arkg.cli import app
from arkg.errors import ArkgError
from arkg.llm.scripted import ScriptedModel

PAPERS = [name for name, info in REGISTRY.items() if info.paper is not None]


def test_the_three_seed_systems_and_only_they_have_a_paper_protocol() -> None:
    assert sorted(PAPERS) == ["ark", "kg-agent", "r3"]
    with pytest.raises(ArkgError, match="strategy 'kaping' follows no paper"):
        protocol_settings("kaping", "paper")
    with pytest.raises(ArkgError, match="unknown protocol 'papers'"):
        protocol_settings("ark", "papers")


@pytest.mark.parametrize("name", PAPERS)
def test_a_run_with_the_paper_settings_follows_the_paper_and_any_change_does_not(name: str) -> None:
    settings = strategy_settings(name, protocol_settings(name, "paper")).model_dump(mode="json")
    assert settings["mode"] == SelectionMode.FREE.value  # every paper generates its picks freely
    assert follows_protocol(name, settings) is REGISTRY[name].paper
    defaults = strategy_settings(name).model_dump(mode="json")
    assert follows_protocol(name, defaults) is None  # arkg's defaults are not the papers'
    changed = {**settings, "c_max": settings["c_max"] + 1}
    assert follows_protocol(name, changed) is None


def test_paper_settings_keep_what_the_user_sets_on_top() -> None:
    assert protocol_settings("ark", "paper", {"k_max": 3})["k_max"] == 3
    assert protocol_settings("ark", "arkg", {"k_max": 3}) == {"k_max": 3}


def ark_paper(kg, replies: list[dict]):
    model = ScriptedModel.from_replies(replies)
    agent = build_strategy("ark", model, kg, protocol_settings("ark", "paper"))
    return agent.ask("Was Marie Curie born in Warsaw?"), model


def test_ark_paper_mode_rejects_invalid_anchors_with_feedback_and_gives_up_after_c_max(sample_kg) -> None:
    """Eq. 3 under the paper's protocol: an anchor that is no entity goes back to node 3 with
    feedback, a repeated one too (the paper's retries), and the fifth invalid one ends the run (node 11)."""
    bad = [{"anchor_entity": "Marie Curie's dog"}] * 5
    result, model = ark_paper(sample_kg, [*bad, {"explanation": "No anchor.", "answer": "unknown"}])
    assert result.trace.invalid_attempts == 5
    assert result.trace.events[-1].stop_reason is ArkStop.C_MAX_ANCHOR
    assert "Marie Curie's dog" in model.calls[1].messages[-1].content  # the retry is told what was wrong
    assert result.answer is None


def test_kg_agent_paper_mode_writes_lines_freely_and_stops_after_c_max_lines_that_cannot_run(sample_kg) -> None:
    model = ScriptedModel.from_replies([{"line": "v1 = fly()"}] * 3)
    agent = build_strategy("kg-agent", model, sample_kg, protocol_settings("kg-agent", "paper"))
    result = agent.ask("Was Marie Curie born in Warsaw?")
    attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
    assert [event.valid for event in attempts] == [False, False, False]
    assert result.answer is None and result.usage.calls == 3
    assert agent.settings.max_steps == 30


def test_arkg_ask_runs_the_paper_protocol_and_refuses_it_for_a_strategy_without_a_paper() -> None:
    runner = CliRunner()
    ran = runner.invoke(app, ["ask", "Was Marie Curie born in Warsaw?", "--protocol", "paper", "--strategy", "kg-agent", "--model", "test", "--json"])
    assert ran.exit_code == 0, ran.output
    settings = json.loads(ran.output)["trace"]["settings"]
    assert settings["mode"] == "free" and settings["max_steps"] == 30
    refused = runner.invoke(app, ["ask", "Is it?", "--protocol", "paper", "--strategy", "cot", "--model", "test"])
    assert refused.exit_code == 1 and "follows no paper" in refused.output
