"""Open-question metrics (Hits@1 as RoG counts it, strict Hits@1, exact match, precision / recall / F1)
against hand-computed answers, and their averages over questions and runs."""

from __future__ import annotations

import math

import pytest

from arkg.eval.open_metrics import AnswerSetScore, answer_set_score, score_open_runs
from arkg.eval.scoring import is_correct, match_names
from arkg.eval.stats import wilson

PARIS_LYON = ("Paris", "Lyon")


def scored(answer, gold) -> tuple:  # type: ignore[no-untyped-def]
    score = answer_set_score(answer, gold)
    return score.hit, score.strict_hit, score.exact, round(score.precision, 4), round(score.recall, 4), round(score.f1, 4)


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("Lyon and Paris", PARIS_LYON, (True, True, True, 1, 1, 1)),
        # One right of two given, one of two gold: P = R = F1 = 1/2; the first name is wrong.
        ("Marseille, Lyon", PARIS_LYON, (True, False, False, 0.5, 0.5, 0.5)),
        # One of three gold: P 1, R 1/3, F1 2·(1/3)/(4/3) = 1/2.
        ("Paris", ("Paris", "Lyon", "Nice"), (True, True, False, 1, 0.3333, 0.5)),
        ("Marseille", PARIS_LYON, (False, False, False, 0, 0, 0)),
        # Nothing named: no answer, an empty one, a yes/no answer to an open question.
        (None, PARIS_LYON, (False, False, False, 0, 0, 0)),
        ("", PARIS_LYON, (False, False, False, 0, 0, 0)),
        (True, PARIS_LYON, (False, False, False, 0, 0, 0)),
        # A name given twice counts once.
        ("Paris, paris, PARIS", ("Paris",), (True, True, True, 1, 1, 1)),
        # Two spellings of one name pair with it once: P 1/2.
        ("Pariss, Paris", ("Paris",), (True, True, False, 0.5, 1, 0.6667)),
        # A list is taken as given, without splitting.
        (["Tripoli, Libya", "Abuja"], ("Abuja", "Tripoli, Libya"), (True, True, True, 1, 1, 1)),
        # A semicolon list keeps a name's comma.
        ("Tripoli, Libya; Abuja", ("Abuja", "Tripoli, Libya"), (True, True, True, 1, 1, 1)),
        # Against other gold names the comma split scores best: Tripoli, Libya, Abuja -> 2 of 3 given are gold.
        ("Tripoli, Libya; Abuja", ("Abuja", "Tripoli"), (True, True, False, 0.6667, 1, 0.8)),
        # A single name holding "and" is read whole when that pairs better.
        ("Bosnia and Herzegovina", ("Bosnia and Herzegovina", "Croatia"), (True, True, False, 1, 0.5, 0.6667)),
        # A number is read whole ("59,449" is no list) and compared by value.
        ("59,449", 59449, (True, True, True, 1, 1, 1)),
        ("12", 13, (False, False, False, 0, 0, 0)),
    ],
)
def test_answer_set_metrics(answer, gold, expected) -> None:  # type: ignore[no-untyped-def]
    assert scored(answer, gold) == expected


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("Lyon and Paris", PARIS_LYON), ("Paris", ("Paris", "Lyon")), ("Pariss, Paris", ("Paris",)), ("59,449", 59449), (None, ("Paris",))],
)
def test_exact_match_is_what_the_results_file_records_as_correct(answer, gold) -> None:  # type: ignore[no-untyped-def]
    assert answer_set_score(answer, gold).exact is is_correct(answer, gold)


def test_one_fuzzy_name_cannot_stand_for_two_gold_names() -> None:
    """"Niger" is close to both; it pairs with one, so a second gold name stays unmatched."""
    match = match_names("Niger", ("Niger", "Nigerr"))
    assert match.matched == 1 and not match.exact


def test_a_yes_no_question_has_no_names() -> None:
    with pytest.raises(ValueError, match="no gold names"):
        match_names("Paris", True)


def perfect() -> AnswerSetScore:
    return answer_set_score("Paris", ("Paris",))


def test_macro_averages_per_run_then_over_runs() -> None:
    empty = answer_set_score(None, ("Paris",))
    half = answer_set_score("Paris, Nice", ("Paris",))  # P 1/2, R 1, F1 2/3, no exact match
    scores = score_open_runs([{"q1": perfect(), "q2": empty}, {"q1": perfect(), "q2": half}])
    assert (scores.runs, scores.questions) == (2, 2)
    # Hits@1 per run: 1/2, 2/2 -> 0.75 ± sqrt(2)/4; exact match 1/2, 1/2 -> 0.5 ± 0.
    assert scores.hits_at_1.mean == 0.75 and scores.hits_at_1.std == pytest.approx(math.sqrt(2) / 4)
    assert scores.exact_match.mean == 0.5 and scores.exact_match.std == 0
    # Precision per run: (1 + 0) / 2, (1 + 1/2) / 2 -> 0.625; F1: 0.5, (1 + 2/3) / 2 -> 0.6667.
    assert scores.precision.mean == pytest.approx(0.625)
    assert scores.f1.mean == pytest.approx((0.5 + 5 / 6) / 2)
    # The hit rates carry a Wilson interval at the mean over the 2 questions (1.5 of 2), the averages of fractions none.
    assert scores.hits_at_1.interval == wilson(1.5, 2)
    assert scores.f1.interval is None


def test_no_answered_question_scores_zero_everywhere() -> None:
    empty = answer_set_score(None, ("Paris",))
    scores = score_open_runs([{"q1": empty, "q2": empty}])
    assert scores.hits_at_1.mean == scores.strict_hits_at_1.mean == scores.exact_match.mean == 0
    assert scores.precision.mean == scores.recall.mean == scores.f1.mean == 0
    assert scores.hits_at_1.std is None  # a single run


def test_no_open_question_is_refused() -> None:
    with pytest.raises(ValueError, match="no open question"):
        score_open_runs([{}])
