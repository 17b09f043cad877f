"""A small KG and scripted replies shared by the ARK agent's unit tests."""

from __future__ import annotations

from typing import Any

from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph

QUESTION = "Is Yui Yuigahama's pet a corgi?"

TRIPLES = [
    Triple("Yui Yuigahama", "has pet", "Sablé"),
    Triple("Yui Yuigahama", "occupation", "high school student"),
    Triple("Yui Yuigahama", "educated at", "Sōbu High School", {"start time": "2011"}),
    Triple("Sablé", "animal breed", "dachshund"),
    Triple("Yukino Yukinoshita", "has pet", "Kamakura"),
    Triple("Kamakura", "animal breed", "Scottish Fold"),
]


def sample_kg() -> SQLiteGraph:
    kg = SQLiteGraph()
    kg.add_triples(TRIPLES)
    return kg


def anchor(name: str) -> dict[str, Any]:
    return {"anchor_entity": name}


def relation(name: str) -> dict[str, Any]:
    return {"relation": name}


def reasoning(keys: list[str], implication: str = "It follows.", more: bool = False) -> dict[str, Any]:
    return {"cited_keys": keys, "implication": implication, "continue_exploring": more}


def answer(value: str = "no", explanation: str = "A dachshund is not a corgi.") -> dict[str, Any]:
    return {"explanation": explanation, "answer": value}


# Free mode, two clean steps: Yui Yuigahama -has pet-> Sablé -animal breed-> dachshund.
TWO_STEPS = [
    anchor("Yui Yuigahama"),
    relation("has pet"),
    reasoning(["T1"], "Her pet is Sablé.", more=True),
    anchor("Sablé"),
    relation("animal breed"),
    reasoning(["T2"], "Sablé is a dachshund."),
    answer("no"),
]
STEP = [2, 3, 4, 5, 6, 7, 8, 9, 10]  # nodes of one clean reasoning step
