"""The chain-of-thought baselines, driven by ScriptedModel."""

from __future__ import annotations

import pytest

from arkg.agents.cot import ChainOfThought, CotReply, CotSettings
from arkg.agents.run import RunOptions
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel


@pytest.mark.parametrize(("reply", "expected"), [("True", True), ("False", False), ("None", None)])
def test_answer_maps_to_true_false_none(reply: str, expected: bool | None) -> None:
    model = ScriptedModel.from_replies([{"reasoning": "because", "answer": reply}])
    result = ChainOfThought(model).ask("Is it so?")
    assert result.answer is expected
    assert result.strategy == "cot"
    assert result.explanation == "because"
    assert result.usage.calls == 1
    [reasoned] = result.trace.events  # CoT records its one call as an event, as every strategy does
    assert reasoned.call.raw == '{"reasoning": "because", "answer": "' + reply + '"}'


def test_zero_shot_prompt_has_no_examples_and_asks_the_question() -> None:
    model = ScriptedModel.from_replies([{"reasoning": "r", "answer": "None"}])
    ChainOfThought(model).ask("Did X own a dog?", RunOptions(sampling=Sampling(temperature=0.7, seed=3)))
    [call] = model.calls
    system, user = call.messages
    assert "Examples" not in system.content
    assert user.content == "Question: Did X own a dog?"
    assert call.output is CotReply
    assert call.sampling == Sampling(temperature=0.7, seed=3)


def test_few_shot_prompt_carries_examples_of_each_answer() -> None:
    model = ScriptedModel.from_replies([{"reasoning": "r", "answer": "True"}])
    result = ChainOfThought(model, CotSettings(few_shot=True)).ask("Is it so?")
    system = model.calls[0].messages[0].content
    assert result.strategy == "cot-fewshot"
    assert "Examples" in system
    for answer in ('"answer": "True"', '"answer": "False"', '"answer": "None"'):
        assert answer in system
    assert "$" not in system
