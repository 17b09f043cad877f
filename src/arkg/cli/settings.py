"""Strategy settings from the command line: shared flags (--mode, --edges, ...) and `--set NAME=VALUE`.

A flag maps onto the strategy's setting of the same name; giving one that the strategy does not have is
an error, not silently ignored. Values of --set are read as JSON when they parse (numbers, true/false,
lists), else as text; the strategy's typed settings then validate them (arkg.agents.strategy_settings).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from arkg.agents import REGISTRY, protocol_settings, strategy_info, strategy_settings
from arkg.errors import ArkgError


def parse_assignments(assignments: Iterable[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for assignment in assignments:
        name, sign, text = assignment.partition("=")
        if not sign or not name.strip():
            raise ArkgError(f"--set {assignment!r}: expected NAME=VALUE, e.g. --set k_max=4")
        try:
            values[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            values[name.strip()] = text
    return values


def settings_overrides(
    strategy: str, flags: Mapping[str, Any], assignments: Mapping[str, Any], protocol: str = "arkg"
) -> dict[str, Any]:
    """The settings the user gave for `strategy` over its `protocol`'s, validated against its typed settings."""
    fields = strategy_info(strategy).settings.model_fields
    given = {name: value for name, value in flags.items() if value is not None}
    foreign = [name for name in given if name not in fields]
    if foreign:
        options = ", ".join("--" + name.replace("_", "-") for name in foreign)
        # A flag of another strategy, given with none named: say which strategies take it.
        takers = [name for name in REGISTRY if all(option in strategy_info(name).settings.model_fields for option in foreign)]
        hint = f"; {', '.join(takers)} {'takes' if len(takers) == 1 else 'take'} it: add --strategy {takers[0]}" if takers else ""
        raise ArkgError(
            f"{options} does not apply to strategy {strategy!r} (its settings: {', '.join(fields) or 'none'}){hint}"
        )
    overrides = {name: value.value if isinstance(value, Enum) else value for name, value in given.items()}
    overrides.update(assignments)
    overrides = protocol_settings(strategy, protocol, overrides)
    strategy_settings(strategy, overrides)  # fail now, naming the bad setting, before anything is opened
    return overrides
