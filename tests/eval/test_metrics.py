"""The paper's metrics against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from arkg.eval.metrics import describe_undefined, reliability, score_run, score_runs
from arkg.eval.stats import wilson

GOLD = {"q1": True, "q2": True, "q3": False, "q4": True}


def test_single_run_rates_and_accuracies() -> None:
    run = score_run({"q1": True, "q2": False, "q3": None, "q4": True}, GOLD)
    assert run.answer_rate == 3 / 4
    assert run.conditional_accuracy == 2 / 3
    assert run.overall_accuracy == 2 / 4  # the None counts as wrong


def test_single_run_protocol_has_no_std_and_no_reliability() -> None:
    scores = score_runs([{"q1": True, "q2": False, "q3": None, "q4": True}], GOLD)
    assert scores.runs == 1
    assert scores.overall_accuracy.mean == 0.5
    assert scores.overall_accuracy.std is None
    assert scores.reliability is None
    assert describe_undefined(scores) == [
        "reliability is undefined: it measures agreement across runs and there is only one run"
    ]


def test_no_definite_answers_leaves_conditional_accuracy_undefined() -> None:
    scores = score_runs([dict.fromkeys(GOLD, None)] * 3, GOLD)
    assert scores.answer_rate.mean == 0.0
    assert scores.overall_accuracy.mean == 0.0
    assert scores.conditional_accuracy is None
    assert scores.reliability == 1.0  # always None is perfectly consistent
    assert describe_undefined(scores)[0].startswith("conditional accuracy is undefined")


def test_conditional_accuracy_averages_only_runs_that_answered() -> None:
    scores = score_runs([{"q1": True, "q3": True}, {"q1": None, "q3": None}], GOLD)
    assert scores.conditional_accuracy is not None
    assert scores.conditional_accuracy.mean == 0.5
    assert scores.conditional_accuracy.runs == 1
    assert scores.answer_rate.mean == 0.5


def test_disagreeing_runs() -> None:
    gold = {"q1": True, "q2": True, "q3": False}
    runs = [
        {"q1": True, "q2": True, "q3": True},
        {"q1": False, "q2": True, "q3": True},
        {"q1": None, "q2": True, "q3": False},
    ]
    scores = score_runs(runs, gold)
    # Overall per run: 2/3, 1/3, 2/3 -> mean 5/9; sample std sqrt((1+4+1)/81 / 2) = sqrt(3)/9.
    assert scores.overall_accuracy.mean == pytest.approx(5 / 9)
    assert scores.overall_accuracy.std == pytest.approx(math.sqrt(3) / 9)
    # Answer rate per run: 1, 1, 2/3.
    assert scores.answer_rate.mean == pytest.approx(8 / 9)
    assert scores.answer_rate.std == pytest.approx(math.sqrt(3) / 9)
    # Conditional per run: 2/3, 1/3, 2/2 -> mean 2/3, std 1/3.
    assert scores.conditional_accuracy.mean == pytest.approx(2 / 3)
    assert scores.conditional_accuracy.std == pytest.approx(1 / 3)
    # Reliability: q1 spread over all three classes -> 0; q2 constant -> 1;
    # q3 (2/3, 1/3): H = 0.918296 bits -> 1 - 0.918296 / log2(3) = 0.420620.
    assert scores.reliability == pytest.approx((0 + 1 + 0.420620) / 3, abs=1e-6)


def test_reliability_of_two_runs_split_evenly() -> None:
    assert reliability([True, False]) == pytest.approx(1 - 1 / math.log2(3))
    assert reliability([None, None]) == 1.0


def test_reliability_of_one_run_is_refused() -> None:
    with pytest.raises(ValueError, match="at least two runs"):
        reliability([True])


def test_runs_over_different_questions_are_refused() -> None:
    with pytest.raises(ValueError, match="run 2 answered other questions"):
        score_runs([{"q1": True}, {"q2": True}], GOLD)


def test_answers_without_gold_are_refused() -> None:
    with pytest.raises(ValueError, match="no gold answer"):
        score_run({"zz": True}, GOLD)


def test_accuracies_carry_wilson_intervals_over_the_questions_they_count() -> None:
    scores = score_runs([{"q1": True, "q2": False, "q3": None, "q4": True}], GOLD)
    assert scores.overall_accuracy.interval == wilson(2, 4)  # 2 of 4 questions right
    assert scores.conditional_accuracy is not None and scores.conditional_accuracy.interval == wilson(2, 3)  # of 3 answered
    assert scores.answer_rate.interval is None


def test_intervals_of_several_runs_sit_at_the_mean_over_runs() -> None:
    # Overall 2/4 and 1/4 -> 0.375 of 4 questions; answered 3 and 2, conditional 2/3 and 1/2 -> 7/12 of 2.5.
    runs = [{"q1": True, "q2": False, "q3": None, "q4": True}, {"q1": True, "q2": None, "q3": None, "q4": False}]
    scores = score_runs(runs, GOLD)
    assert scores.overall_accuracy.interval == wilson(1.5, 4)
    assert scores.conditional_accuracy is not None
    interval, expected = scores.conditional_accuracy.interval, wilson(7 / 12 * 2.5, 2.5)
    assert interval is not None and (interval.low, interval.high) == pytest.approx((expected.low, expected.high))
