"""Prompts as data files: every strategy's prompts load, state their role, and fill in cleanly."""

from __future__ import annotations

from importlib import resources

import pytest

from arkg.agents.prompts import Prompt, load_prompt
from arkg.errors import ArkgError

def _prompt_files() -> list[tuple[str, str]]:
    """(package, name) of every prompt file of every strategy, found on disk."""
    found = []
    root = resources.files("arkg.agents")
    for folder in [root, *(entry for entry in root.iterdir() if entry.is_dir())]:
        prompts = folder.joinpath("prompts")
        if prompts.is_dir():
            package = "arkg.agents" if folder == root else f"arkg.agents.{folder.name}"
            found += [(package, path.name.removesuffix(".yaml")) for path in prompts.iterdir() if path.name.endswith(".yaml")]
    return sorted(found)


PROMPTS = _prompt_files()


def test_the_ark_loop_has_its_prompts():
    ark = {name for package, name in PROMPTS if package == "arkg.agents.ark"}
    assert {"system", "anchor", "relation", "reasoning", "answer", "feedback"} <= ark


@pytest.mark.parametrize(("package", "name"), PROMPTS)
def test_each_prompt_states_its_role(package, name):
    prompt = load_prompt(name, package)
    assert prompt.name == name and len(prompt.role.split()) >= 8


def test_the_answer_prompt_says_when_commonsense_may_be_used():
    text = load_prompt("answer", "arkg.agents.ark").render(findings="", noun="question", instruction="")
    assert "must come from the findings" in text and "may be used freely" in text


def test_missing_value_is_an_error_naming_the_prompt_and_placeholder():
    with pytest.raises(ArkgError, match=r"'anchor'.*\$instruction"):
        load_prompt("anchor", "arkg.agents.ark").render(step=1, feedback="")


def test_unknown_prompt_and_unknown_part_are_clear_errors():
    with pytest.raises(ArkgError, match="no_such_prompt.yaml"):
        load_prompt("no_such_prompt")
    with pytest.raises(ArkgError, match="has no part 'nope'.*free"):
        load_prompt("anchor", "arkg.agents.ark").part("nope")


def test_lines_left_blank_by_empty_values_are_dropped():
    prompt = Prompt(name="p", role="a test prompt", template="A $x\n$feedback\nB\n\nC")
    assert prompt.render(x="1", feedback="") == "A 1\nB\n\nC"
    assert prompt.render(x="$y", feedback="note") == "A $y\nnote\nB\n\nC"
