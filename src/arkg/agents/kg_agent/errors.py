"""The one error a KG-Agent program line can raise: its message is written to be shown to a model."""

from __future__ import annotations

from arkg.errors import ArkgError


class ToolError(ArkgError):
    """A line that cannot run: it does not parse, names an unknown tool, variable, relation or
    entity, or passes an argument of the wrong type. The memory is left as it was."""


class ParseError(ToolError):
    """A line that is not a tool call of the program language."""
