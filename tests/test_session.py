"""The library call behind `arkg ask`: open a KG and a model once, ask with any registered strategy."""

from __future__ import annotations

import pytest

from arkg.agents import REGISTRY, Budget
from arkg.errors import ArkgError
from arkg.llm.testing import TestModel
from arkg.session import Session


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_every_registered_strategy_answers_through_a_session(strategy):
    events = []
    with Session(db=None, model=TestModel()) as session:
        result = session.ask("Was Marie Curie born in Warsaw?", strategy, on_event=events.append)
    assert result.strategy == strategy
    assert result.answer in (True, False, None)
    assert result.usage.calls >= 1
    if hasattr(result.trace, "events"):
        assert events == result.trace.events


def test_settings_and_budget_reach_the_strategy():
    with Session(model=TestModel()) as session:
        result = session.ask("Was Marie Curie born in Warsaw?", "ark", {"k_max": 1}, budget=Budget(max_calls=1))
    assert result.trace.settings.k_max == 1 and result.usage.calls == 1 and result.answer is None


def test_an_empty_question_is_refused_before_any_model_call():
    model = TestModel()
    with Session(model=model) as session, pytest.raises(ArkgError, match="empty"):
        session.ask("  ")
    assert model.calls == []
