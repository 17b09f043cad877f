"""Prompts kept as YAML data files in `arkg/agents/prompts/`, loaded and filled in by name.

Each file states its `role` (what the prompt is for, and where in a strategy it is used), a
`template`, and optional named `parts` that the template or the caller picks from:

    role: Node 3 of the ARK loop: asks for the anchor entity of a reasoning step.
    template: |
      Step $step. Which entity should be looked up next?
    parts:
      free: Write its name exactly as in the graph.

Placeholders are `$name` (string.Template), so JSON braces in a prompt need no escaping.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from arkg.errors import ArkgError

PROMPTS_PACKAGE = "arkg.agents"
PROMPTS_FOLDER = "prompts"


class Prompt(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    role: str
    template: str
    parts: dict[str, str] = {}

    def render(self, **values: object) -> str:
        """The template with every `$name` replaced; a missing value is an error naming it."""
        return _substitute(self.name, "template", self.template, values)

    def part(self, part: str, **values: object) -> str:
        """One named part, filled in like the template."""
        if part not in self.parts:
            raise ArkgError(f"Prompt {self.name!r} has no part {part!r} (it has: {', '.join(self.parts) or 'none'})")
        return _substitute(self.name, f"part {part!r}", self.parts[part], values)


def _substitute(prompt: str, where: str, text: str, values: dict[str, object]) -> str:
    """Fill in `text` line by line; a line left blank only by empty values is dropped (no stray gaps)."""
    strings = {key: str(value) for key, value in values.items()}
    lines = []
    try:
        for line in text.strip().splitlines():
            filled = Template(line).substitute(strings).rstrip()
            if filled or not line.strip():
                lines.append(filled)
    except KeyError as missing:
        raise ArkgError(f"Prompt {prompt!r}, {where}: no value given for ${missing.args[0]}") from None
    except ValueError as error:
        raise ArkgError(f"Prompt {prompt!r}, {where}: {error}") from None
    return "\n".join(lines)


@lru_cache(maxsize=None)
def load_prompt(name: str, package: str = PROMPTS_PACKAGE) -> Prompt:
    """The prompt stored as `prompts/<name>.yaml` in `package` (read once, then cached).

    Each strategy keeps its prompts beside its code: `load_prompt("planner", "arkg.agents.kg_agent")`.
    """
    file = resources.files(package).joinpath(PROMPTS_FOLDER, f"{name}.yaml")
    if not file.is_file():
        raise ArkgError(f"No prompt file {PROMPTS_FOLDER}/{name}.yaml in package {package}")
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ArkgError(f"{file}: expected a mapping with 'role' and 'template', found {type(data).__name__}")
        return Prompt.model_validate({**data, "name": name})
    except yaml.YAMLError as error:
        raise ArkgError(f"{file}: not valid YAML: {error}") from None
    except ValidationError as error:
        raise ArkgError(f"{file}: {error}") from None
