"""TestModel: the smallest valid reply to any request, from the library and from `--model test`
(every registered strategy runs on it in tests/agents/test_contract.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from typer.testing import CliRunner

from arkg.cli import app
from arkg.llm import ModelSpec, open_model, parse_model_spec
from arkg.llm.base import Choice
from arkg.llm.testing import TestModel, valid_reply


class Premise(BaseModel):
    entity: str
    holds: bool


class EveryKind(BaseModel):
    answer: Literal["yes", "no", "unknown"]
    kind: Literal["axiom"]
    cited_keys: list[Literal["T1", "T2"]] = Field(min_length=1)
    premises: list[Premise]
    first: Premise
    count: int = Field(ge=2)
    score: float
    note: str | None
    more: bool


def test_the_reply_to_a_schema_is_the_least_value_of_every_field() -> None:
    reply = valid_reply(EveryKind)
    assert reply == {
        "answer": "unknown",
        "kind": "axiom",
        "cited_keys": ["T1"],
        "premises": [],
        "first": {"entity": "unknown", "holds": False},
        "count": 2,
        "score": 0,
        "note": "unknown",
        "more": False,
    }
    EveryKind.model_validate(reply)


def test_given_fields_and_preferred_options_win_where_they_fit() -> None:
    reply = valid_reply(EveryKind, fields={"answer": "yes", "count": 7})
    assert (reply["answer"], reply["count"], reply["more"]) == ("yes", 7, False)
    assert valid_reply(Choice(["a", "b", "c"]), prefer=["z", "c", "b"]) == "c"
    assert valid_reply(Choice(["a", "b"]), prefer=["z"]) == "a"


def test_the_test_spec_opens_a_test_model_without_a_cache(tmp_path: Path) -> None:
    assert parse_model_spec(" test ") == ModelSpec("test")
    cache = tmp_path / "responses.sqlite"
    assert isinstance(open_model("test", cache=cache), TestModel)
    assert not cache.exists()


def test_arkg_ask_with_model_test_runs_ark_through_every_node(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    outcome = CliRunner().invoke(app, ["ask", "Was Marie Curie born in Warsaw?", "--model", "test", "--json", "--trace", str(trace)])
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout)
    # The first anchor and relation offered, the first key cited, then "unknown": no answer, but grounded.
    assert result["answer"] is None and result["trace"]["model"] == "test"
    assert [int(node) for node in result["trace"]["nodes"]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert len(result["cited_triples"]) == 1 and trace.is_file()
