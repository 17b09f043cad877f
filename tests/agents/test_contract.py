"""The contract every registered strategy keeps, built-in or plugin: run with the library's TestModel
over the sample KG, its trace reads back from JSON by its name, its events reach the caller as they
happen, its settings are checked, `arkg ask` prints one answer line, and the run budget holds."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.agents import REGISTRY, Budget, Result, RunOptions, build_strategy, strategy_info, strategy_settings
from arkg.agents.run import BUDGET_SPENT
from arkg.agents.strategy import answer_support
from arkg.cli import app
from arkg.errors import ArkgError
from arkg.graph import open_graph
from arkg.llm.testing import TestModel

QUESTION = "Was Marie Curie born in Warsaw?"
STRATEGIES = sorted(REGISTRY)


@pytest.fixture(scope="module")
def kg():
    return open_graph(None)


def run(name: str, kg, options: RunOptions | None = None) -> tuple[Result, TestModel]:
    model = TestModel()
    return build_strategy(name, model, kg if strategy_info(name).uses_kg else None).ask(QUESTION, options), model


@pytest.mark.parametrize("name", STRATEGIES)
def test_the_trace_reads_back_from_json_by_the_strategy_name(name: str, kg) -> None:
    result, _ = run(name, kg)
    info = strategy_info(name)
    assert type(result.trace) is info.trace_type and result.trace.strategy == name
    restored = Result.model_validate_json(result.model_dump_json())
    assert type(restored.trace) is info.trace_type
    assert restored.model_dump(mode="json") == result.model_dump(mode="json")
    assert [type(event) for event in restored.trace.events] == [type(event) for event in result.trace.events]


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_event_reaches_the_callback_as_it_happens_and_usage_comes_from_the_trace(name: str, kg) -> None:
    seen: list = []
    result, model = run(name, kg, RunOptions(on_event=seen.append))
    assert seen and seen == result.trace.events
    assert result.usage == result.trace.usage and result.usage.calls == len(model.calls) == len(result.trace.calls)
    assert result.stop_reason == result.trace.stop_reason


@pytest.mark.parametrize("name", STRATEGIES)
def test_the_result_says_whether_its_cited_facts_support_it_as_the_check_over_its_trace_does(name: str, kg) -> None:
    result, _ = run(name, kg)
    is_entity = kg.has_entity if strategy_info(name).uses_kg else None
    assert result.support == answer_support(result.answer, QUESTION, result.cited_triples, result.trace, is_entity)
    assert all(kg.has_entity(entity) for entity in result.trace.linked_entities())
    assert result.model_dump(mode="json")["support"] == result.support.model_dump(mode="json")


@pytest.mark.parametrize("name", STRATEGIES)
def test_unknown_and_invalid_settings_are_errors_naming_them(name: str) -> None:
    with pytest.raises(ArkgError, match=rf"strategy '{name}' has no setting 'no_such_setting'"):
        strategy_settings(name, {"no_such_setting": 1})
    fields = list(strategy_info(name).settings.model_fields)
    if fields:
        with pytest.raises(ArkgError, match=rf"strategy '{name}': invalid setting \({fields[0]}: "):
            strategy_settings(name, {fields[0]: {"not": "a value"}})


@pytest.mark.parametrize("name", STRATEGIES)
def test_arkg_ask_prints_one_answer_line_and_each_event_as_the_strategy_view_reads_it(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: TestModel())
    shown = CliRunner().invoke(app, ["ask", QUESTION, "--strategy", name], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert len([line for line in lines if line.startswith("answer:")]) == 1
    assert f"{name}: " in lines[-1] and "stopped because" in lines[-1]
    assert "{'" not in shown.output  # no event falls back to a dump of its fields


@pytest.mark.parametrize("name", STRATEGIES)
def test_the_run_budget_stops_the_run_before_the_call_that_would_exceed_it(name: str, kg) -> None:
    unbounded, _ = run(name, kg)
    result, model = run(name, kg, RunOptions(budget=Budget(max_calls=1)))
    assert len(model.calls) == result.usage.calls <= 1
    if unbounded.usage.calls > 1:
        assert result.answer is None and result.stop_reason == result.trace.stop_reason == BUDGET_SPENT
        assert json.loads(result.model_dump_json())["trace"]["events"]  # the stop is recorded, not an exception
