"""Model replies that fit any output spec, for running every registered strategy without a real model."""

from __future__ import annotations

from arkg.llm.base import Choice


def any_valid_reply(messages, output, sampling):
    """Replies that fit any output spec: the first option, or a minimal JSON object for the schema
    (the last value of an enum, the first item a list of enum values allows, else an empty value)."""
    if isinstance(output, Choice):
        return output.options[0]
    values = {"string": "unknown", "boolean": False, "array": []}
    reply = {}
    for name, schema in output.model_json_schema()["properties"].items():
        items = schema.get("items", {})
        if "enum" in schema or "const" in schema:
            reply[name] = schema.get("enum", [schema.get("const")])[-1]
        elif schema.get("type") == "array" and ("enum" in items or "const" in items):
            reply[name] = items.get("enum", [items.get("const")])[:1]
        else:
            reply[name] = values.get(schema.get("type"), "unknown")
    return reply
