"""Abstention options of every strategy: grounded abstention and self-consistency."""

from __future__ import annotations

from arkg.agents import RunOptions
from arkg.agents.abstention import Abstaining, Abstention, agreed_answer
from arkg.agents.cot import ChainOfThought
from arkg.agents.kaping import Kaping
from arkg.agents.strategy import AnswerKind, Query
from arkg.graph import open_graph
from arkg.llm.base import Sampling
from arkg.llm.scripted import ScriptedModel


def test_agreement_decides_or_abstains():
    assert agreed_answer([True, True, False], 0.6) is True
    assert agreed_answer([True, False, None], 0.6) is None
    assert agreed_answer([None, None, True], 0.3) is True
    assert agreed_answer([None, None], 0.5) is None


def test_grounded_abstention_turns_an_uncited_yes_into_none():
    """An answer citing no fact rests on the model's memory: with grounded abstention it is None."""
    model = ScriptedModel.from_replies([{"reasoning": "I recall so.", "answer": "True"}])
    result = Abstaining(ChainOfThought(model), Abstention(grounded=True)).ask("Was Marie Curie born in Warsaw?")
    assert result.answer is None
    assert result.stop_reason == "abstained: not supported by its cited facts: the answer cites no fact of the KG"
    assert result.trace.votes[0].cited == 0


def test_grounded_abstention_turns_an_answer_its_cited_facts_do_not_support_into_none():
    """A cited fact about Marie Curie's birth says nothing of her awards: the answer is not the KG's."""
    model = ScriptedModel.from_replies([{"cited_keys": ["T1"], "explanation": "I recall so.", "answer": "Nobel Peace Prize"}])
    kaping = Kaping(open_graph(None), model)
    result = Abstaining(kaping, Abstention(grounded=True)).ask(Query(text="Which prize did Marie Curie win?", kind=AnswerKind.OPEN))
    assert result.cited_triples and result.answer is None
    assert result.stop_reason.startswith("abstained: not supported by its cited facts: Nobel Peace Prize is in no cited fact")


def test_grounded_abstention_keeps_a_cited_answer():
    model = ScriptedModel.from_replies([{"cited_keys": ["T1"], "explanation": "x", "answer": "yes"}])
    result = Abstaining(Kaping(open_graph(None), model), Abstention(grounded=True)).ask("Was Marie Curie born in Warsaw?")
    assert result.answer is True and result.cited_triples


def test_self_consistency_samples_with_distinct_seeds_and_needs_agreement():
    answers = iter(["True", "False", "True", "None", "True"])
    model = ScriptedModel(lambda messages, output, sampling: {"reasoning": "r", "answer": next(answers)})
    policy = Abstention(samples=5, temperature=0.9, agreement=0.6)
    result = Abstaining(ChainOfThought(model), policy).ask("Is it?", RunOptions(sampling=Sampling(seed=3)))
    assert [call.sampling.seed for call in model.calls] == [3, 1003, 2003, 3003, 4003]
    assert {call.sampling.temperature for call in model.calls} == {0.9}
    assert result.answer is True and result.usage.calls == 5
    assert [vote.answer for vote in result.trace.votes] == [True, False, True, None, True]

    split = iter(["True", "False", "None"])
    model = ScriptedModel(lambda messages, output, sampling: {"reasoning": "r", "answer": next(split)})
    result = Abstaining(ChainOfThought(model), Abstention(samples=3, agreement=0.6)).ask("Is it?")
    assert result.answer is None and result.stop_reason.startswith("abstained: no answer reached 60% of 3 samples")
