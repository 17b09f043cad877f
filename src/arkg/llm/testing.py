"""A model that answers every request with a reply that fits it, for testing a pipeline end to end.

`TestModel` needs no script: whatever a strategy asks for, it replies with the smallest reply that
validates, so a run goes from question to answer and records its trace, deterministically and
without a network. Use it to test your own code around arkg (a pipeline, a server, a new strategy's plumbing):

    from arkg.agents import build_strategy
    from arkg.llm.testing import TestModel

    model = TestModel()                                    # minimal replies
    model = TestModel(prefer=["Marie Curie"], fields={"answer": "yes"})
    result = build_strategy("ark", model, kg).ask("Was Marie Curie born in Warsaw?")
    model.calls                                            # every request it received, to assert on

On the command line, `--model test` gives the same model with minimal replies.

What the reply holds (see `valid_reply`): for a choice among options, the first preferred option
offered, else the first option; for a JSON object, each field named in `fields` as given, and every
other field the least it can be: the last value of a fixed set (the strategies list the non-committal
answer, "unknown", last), the first allowed value in a list of allowed values (so that a citation
cites the first key it may), the fewest items a list may have, false, the least number allowed, or
the string "unknown". TestModel says nothing about answer quality: for that, script the replies
(`ScriptedModel.from_replies`) or run a real model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arkg.llm.base import Choice, OutputSpec
from arkg.llm.scripted import ScriptedModel

_LEAST = {"string": "unknown", "boolean": False, "integer": 0, "number": 0, "array": [], "null": None}


def valid_reply(output: OutputSpec, prefer: Sequence[str] = (), fields: Mapping[str, Any] | None = None) -> Any:
    """The smallest reply that fits `output` (see the module docstring), with `prefer` and `fields`
    taken where they fit."""
    if isinstance(output, Choice):
        return next((option for option in prefer if option in output.options), output.options[0])
    schema = output.model_json_schema()
    given = fields or {}
    return {
        name: given[name] if name in given else _least_value(field, schema.get("$defs", {}))
        for name, field in schema["properties"].items()
    }


def _least_value(schema: Mapping[str, Any], definitions: Mapping[str, Any]) -> Any:
    if "$ref" in schema:
        return _least_value(definitions[schema["$ref"].rpartition("/")[2]], definitions)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][-1]
    if "anyOf" in schema:
        return _least_value(schema["anyOf"][0], definitions)
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: _least_value(field, definitions) for name, field in properties.items()}
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items or "const" in items:
            return items.get("enum", [items.get("const")])[: min(1, schema.get("maxItems", 1))]  # none allowed: []
        return [_least_value(items, definitions) for _ in range(schema.get("minItems", 0))]
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 0)
    return _LEAST.get(kind, "unknown")


class TestModel(ScriptedModel):
    """A ChatModel whose every reply is `valid_reply(output, prefer, fields)`; it records its calls
    (unless keep_calls is False) and counts usage as ScriptedModel does."""

    __test__ = False  # a class named Test* imported into a test module is not a test for pytest to collect

    def __init__(
        self, prefer: Sequence[str] = (), fields: Mapping[str, Any] | None = None, name: str = "test", *, keep_calls: bool = True
    ) -> None:
        preferred, given = tuple(prefer), dict(fields or {})
        super().__init__(lambda messages, output, sampling: valid_reply(output, preferred, given), name=name, keep_calls=keep_calls)
