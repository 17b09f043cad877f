"""Exceptions that arkg raises on purpose; each names what went wrong and where."""

from __future__ import annotations

from pathlib import Path


class ArkgError(Exception):
    """Base class: a problem the user can act on (bad input, unreachable server, ...)."""


class LoadError(ArkgError):
    """A KG file could not be loaded; nothing from it was kept."""

    def __init__(self, path: str | Path, where: str | None, reason: str) -> None:
        self.path = str(path)
        self.where = where
        self.reason = reason
        location = f"{self.path}, {where}" if where else self.path
        super().__init__(f"{location}: {reason}")


class EntityNotFound(ArkgError):
    """An entity named by the user does not exist in the KG."""

    def __init__(self, entity: str, suggestions: list[str] | None = None) -> None:
        self.entity = entity
        self.suggestions = suggestions or []
        hint = f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"Entity {entity!r} is not in the knowledge graph.{hint}")


class ModelError(ArkgError):
    """A language model backend failed (unreachable, bad configuration, invalid output)."""


class ModelUnavailable(ModelError):
    """The model's server could not be reached or did not answer in time (as opposed to a bad reply).

    Callers that run many questions stop after several of these in a row: the server is down.
    """


class SpecError(ArkgError):
    """A model or graph specification string could not be understood."""
