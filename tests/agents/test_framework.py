"""The strategy framework: one registry, typed settings, per-call sampling, the run budget, cancelling."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel, ConfigDict

from arkg.agents import (
    REGISTRY,
    Budget,
    Query,
    Result,
    RunKit,
    RunOptions,
    RunStopped,
    StrategyInfo,
    build_strategy,
    register,
    strategy_settings,
)
from arkg.agents.ark import ArkAgent, ArkSettings
from arkg.agents.ark.trace import StopReason
from arkg.errors import ArkgError
from arkg.graph import open_graph
from arkg.llm.base import Choice, Sampling
from arkg.llm.scripted import ScriptedModel


class EchoSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    loud: bool = False


class Echo:
    """A toy strategy: asks the model once to choose yes or no."""

    name = "echo-test"

    def __init__(self, model, settings: EchoSettings) -> None:
        self.model, self.settings = model, settings

    def ask(self, query, options=None) -> Result:
        kit = RunKit(self.model, options or RunOptions())
        from arkg.llm.base import Message

        value, _ = kit.complete([Message(role="user", content=str(query))], Choice(["yes", "no"]), "answer")
        return Result(strategy=self.name, question=str(query), answer=value == "yes", usage=kit.usage)


@pytest.fixture
def echo_registered():
    info = register(StrategyInfo("echo-test", "a toy", EchoSettings, lambda model, kg, s: Echo(model, s), uses_kg=False))
    yield info
    del REGISTRY["echo-test"]


def test_the_built_in_strategies_are_registered():
    assert {"ark", "cot", "cot-fewshot", "kaping"} <= set(REGISTRY)


def test_one_registration_makes_a_strategy_buildable_by_name(echo_registered):
    strategy = build_strategy("echo-test", ScriptedModel.from_replies(["yes"]), settings={"loud": True})
    assert strategy.settings.loud is True
    assert strategy.ask("Is it?").answer is True


def test_a_name_is_registered_once(echo_registered):
    with pytest.raises(ArkgError, match="registered already"):
        register(echo_registered)


def test_settings_are_typed_and_unknown_or_invalid_ones_are_named():
    assert strategy_settings("ark", {"k_max": 3}) == ArkSettings(k_max=3)
    with pytest.raises(ArkgError, match=r"no setting 'depth'.*c_max"):
        strategy_settings("ark", {"depth": 3})
    with pytest.raises(ArkgError, match=r"k_max: Input should be greater than or equal to 1"):
        strategy_settings("ark", {"k_max": 0})
    with pytest.raises(ArkgError, match="unknown strategy 'nope'; choose one of: ark"):
        strategy_settings("nope")


def test_a_kg_strategy_without_a_kg_is_an_error():
    with pytest.raises(ArkgError, match="needs a knowledge graph"):
        build_strategy("ark", ScriptedModel.from_replies([]))


def test_one_strategy_object_serves_runs_with_different_sampling():
    replies = ["Marie Curie", "place of birth", {"cited_keys": ["T1"], "implication": "x", "continue_exploring": False},
               {"explanation": "x", "answer": "yes"}] * 2  # fmt: skip
    model = ScriptedModel.from_replies(replies)
    agent = ArkAgent(open_graph(None), model)
    for seed in (10, 20):
        agent.ask("Was Marie Curie born in Warsaw?", RunOptions(sampling=Sampling(seed=seed, temperature=0.7)))
    assert [call.sampling.seed for call in model.calls] == [10, 11, 12, 13, 20, 21, 22, 23]


def test_the_call_budget_stops_a_run_before_the_call_that_would_exceed_it():
    model = ScriptedModel.from_replies(["Marie Curie", "place of birth"])
    result = ArkAgent(open_graph(None), model).ask("Was Marie Curie born in Warsaw?", RunOptions(budget=Budget(max_calls=2)))
    assert len(model.calls) == 2 and result.usage.calls == 2
    assert result.answer is None
    assert result.stop_reason == StopReason.BUDGET.value
    final = result.trace.events[-1]
    assert final.kind == "answer" and final.call is None and "max_calls=2" in final.note


def test_the_token_budget_counts_prompt_and_completion_tokens():
    model = ScriptedModel.from_replies(["Marie Curie", "place of birth"])
    result = ArkAgent(open_graph(None), model).ask("Was Marie Curie born in Warsaw?", RunOptions(budget=Budget(max_tokens=1)))
    assert len(model.calls) == 1 and result.answer is None and "max_tokens=1" in result.trace.events[-1].note


def test_a_cancelled_run_stops_at_its_next_model_call_and_is_not_an_answer():
    cancel = threading.Event()

    def reply(messages, output, sampling):
        cancel.set()  # the user presses Ctrl-C while the first call runs
        return "Marie Curie"

    model = ScriptedModel(reply)
    with pytest.raises(RunStopped) as stopped:
        ArkAgent(open_graph(None), model).ask("Was Marie Curie born in Warsaw?", RunOptions(cancel=cancel))
    assert stopped.value.cancelled and len(model.calls) == 1


def test_queries_know_claims_and_answer_kinds():
    assert Query(text="Marie Curie was born in Warsaw.").is_claim
    assert Query(text="Marie Curie was born in Warsaw.").yes_no
    assert not Query(text="Who was Marie Curie's spouse?").yes_no
    with pytest.raises(ArkgError, match="empty"):
        build_strategy("cot", ScriptedModel.from_replies([])).ask("   ")
