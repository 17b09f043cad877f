"""A small KG and scripted replies shared by R³'s unit tests.

Replies that cite facts name them by their text; the key is read from the request at call time, so
tests do not depend on the order in which the ranker shows facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from arkg.agents.r3 import R3, R3Settings
from arkg.agents.run import RunOptions
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.base import Message, OutputSpec, Sampling
from arkg.llm.scripted import ScriptedModel

QUESTION = "Is Yui Yuigahama's pet a corgi?"
YUI = "Yui Yuigahama"

TRIPLES = [
    Triple("Yui Yuigahama", "has pet", "Sablé"),
    Triple("Yui Yuigahama", "occupation", "high school student"),
    Triple("Yui Yuigahama", "educated at", "Sōbu High School", {"start time": "2011"}),
    Triple("Sablé", "animal breed", "dachshund"),
    Triple("Sablé", "sex or gender", "male"),
    Triple("Yukino Yukinoshita", "has pet", "Kamakura"),
    Triple("Kamakura", "animal breed", "Scottish Fold"),
]

# Linking only (no call naming entities), so that each test scripts just the calls of its path.
LINKED = R3Settings(max_named=0)
FREE = R3Settings(max_named=0, mode="free")

Reply = dict[str, Any] | Callable[[str], dict[str, Any]]


def sample_kg() -> SQLiteGraph:
    kg = SQLiteGraph()
    kg.add_triples(TRIPLES)
    return kg


def scripted(*replies: Reply) -> ScriptedModel:
    """Each call gets the next reply; a callable reply is given the request's text first."""
    queue = list(replies)

    def reply(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> dict[str, Any]:
        assert queue, f"the script ran out of replies at call {len(model.calls)}"
        item = queue.pop(0)
        return item(messages[-1].content) if callable(item) else item

    model = ScriptedModel(reply)
    return model


def run(*replies: Reply, settings: R3Settings = LINKED, question: str = QUESTION, options: RunOptions | None = None):
    model = scripted(*replies)
    result = R3(sample_kg(), model, settings).ask(question, options)
    return result, model


def key_of(request: str, fact: str) -> str:
    """The key under which the request shows a fact written as "head, relation, tail"."""
    found = re.search(rf"^(T\d+): \({re.escape(fact)}\)", request, re.MULTILINE)
    assert found, f"({fact}) is not shown in the request:\n{request}"
    return found.group(1)


def axiom(rule: str, *premises: tuple[str, str, str, str]) -> dict[str, Any]:
    return {
        "rule": rule,
        "premises": [
            {"entity": entity, "property": prop, "operator": operator, "value": value}
            for entity, prop, operator, value in premises
        ],
    }


def judged(*items: tuple[str, str, list[str]]) -> Callable[[str], dict[str, Any]]:
    """Judgements (premise, status, facts cited as "head, relation, tail", or keys as "T9")."""

    def reply(request: str) -> dict[str, Any]:
        return {
            "judgements": [
                {
                    "premise": premise,
                    "status": status,
                    "cited_keys": [fact if re.fullmatch(r"T\d+", fact) else key_of(request, fact) for fact in facts],
                }
                for premise, status, facts in items
            ]
        }

    return reply


def missing(premise: str, text: str, entity: str) -> dict[str, Any]:
    return {"premise": premise, "missing": text, "entity": entity}


def picked(*facts: str) -> Callable[[str], dict[str, Any]]:
    return lambda request: {"picked_keys": [fact if re.fullmatch(r"T\d+", fact) else key_of(request, fact) for fact in facts]}


def kinds(result) -> list[str]:
    return [event.kind for event in result.trace.events]


def purposes(result) -> list[str]:
    return [call.purpose for call in result.trace.calls]


# The corgi axiom: one premise about the breed of Yui's pet.
CORGI = axiom("Yui's pet must be a corgi for the answer to be yes.", (YUI, "breed of pet", "=", "corgi"))
PET_BREED = "Sablé, animal breed, dachshund"
HAS_PET = "Yui Yuigahama, has pet, Sablé"
OCCUPATION = "Yui Yuigahama, occupation, high school student"
