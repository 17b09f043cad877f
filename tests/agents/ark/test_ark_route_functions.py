"""The route functions, case by case, against the paper's equations (3), (5), (7), (10), (11)."""

from __future__ import annotations

import pytest

from arkg.agents.ark.routes import route_anchor, route_continue, route_reasoning, route_relation, route_relations
from arkg.agents.ark.trace import Node

C_MAX = 5


@pytest.mark.parametrize(
    ("valid", "c", "expected"),
    [(True, 1, Node.RETRIEVE_RELATIONS), (False, 1, Node.PROMPT_ANCHOR), (False, C_MAX, Node.FINAL_ANSWER),
     (True, C_MAX, Node.RETRIEVE_RELATIONS)],
)  # fmt: skip
def test_eq_3(valid, c, expected):
    assert route_anchor(valid, c, C_MAX) is expected


def test_eq_3_a_repeated_invalid_anchor_ends_the_decision():
    assert route_anchor(False, 2, C_MAX, repeated=True) is Node.FINAL_ANSWER


def test_eq_5():
    assert route_relations([], 1, C_MAX) is Node.PROMPT_ANCHOR
    assert route_relations(["has pet"], 1, C_MAX) is Node.PROMPT_RELATION
    # No relation left on the last anchor attempt: nothing is left to try.
    assert route_relations([], C_MAX, C_MAX) is Node.FINAL_ANSWER
    assert route_relations(["has pet"], C_MAX, C_MAX) is Node.PROMPT_RELATION


@pytest.mark.parametrize(
    ("outcome", "c", "anchor_attempts", "expected"),
    [("valid", 1, 1, Node.RETRIEVE_TRIPLES), ("invalid", 1, 1, Node.PROMPT_RELATION),
     ("invalid", C_MAX, 1, Node.FINAL_ANSWER), ("empty", 1, 1, Node.SELECT_ANCHOR),
     ("empty", 1, C_MAX, Node.FINAL_ANSWER), ("valid", C_MAX, C_MAX, Node.RETRIEVE_TRIPLES)],
)  # fmt: skip
def test_eq_7(outcome, c, anchor_attempts, expected):
    assert route_relation(outcome, c, C_MAX, anchor_attempts) is expected


def test_eq_7_a_repeated_invalid_relation_ends_the_decision():
    assert route_relation("invalid", 2, C_MAX, 1, repeated=True) is Node.FINAL_ANSWER


@pytest.mark.parametrize(
    ("valid", "c", "expected"),
    [(True, 1, Node.CLEANUP), (False, 1, Node.RETRIEVE_TRIPLES), (False, C_MAX, Node.FINAL_ANSWER)],
)
def test_eq_10(valid, c, expected):
    assert route_reasoning(valid, c, C_MAX) is expected


@pytest.mark.parametrize(
    ("k", "continue_exploring", "expected"),
    [(1, True, Node.NEW_STEP), (1, False, Node.FINAL_ANSWER), (8, True, Node.FINAL_ANSWER)],
)
def test_eq_11(k, continue_exploring, expected):
    assert route_continue(k, 8, continue_exploring) is expected
