"""Prompts as data files: every ARK prompt loads, states its role, and fills in cleanly."""

from __future__ import annotations

from importlib import resources

import pytest

from arkg.agents.prompts import Prompt, load_prompt
from arkg.errors import ArkgError

ARK_PROMPTS = sorted(
    path.name.removesuffix(".yaml")
    for path in resources.files("arkg.agents").joinpath("prompts").iterdir()
    if path.name.startswith("ark_")
)


def test_the_ark_loop_has_its_prompts():
    assert {"ark_system", "ark_anchor", "ark_relation", "ark_reasoning", "ark_answer", "ark_feedback"} <= set(
        ARK_PROMPTS
    )


@pytest.mark.parametrize("name", ARK_PROMPTS)
def test_each_prompt_states_its_role(name):
    prompt = load_prompt(name)
    assert prompt.name == name and len(prompt.role.split()) >= 8


def test_the_answer_prompt_says_when_commonsense_may_be_used():
    text = load_prompt("ark_answer").render(findings="", instruction="")
    assert "must come from the findings" in text and "Florence" in text


def test_missing_value_is_an_error_naming_the_prompt_and_placeholder():
    with pytest.raises(ArkgError, match=r"'ark_anchor'.*\$instruction"):
        load_prompt("ark_anchor").render(step=1, feedback="")


def test_unknown_prompt_and_unknown_part_are_clear_errors():
    with pytest.raises(ArkgError, match="no_such_prompt.yaml"):
        load_prompt("no_such_prompt")
    with pytest.raises(ArkgError, match="has no part 'nope'.*free"):
        load_prompt("ark_anchor").part("nope")


def test_lines_left_blank_by_empty_values_are_dropped():
    prompt = Prompt(name="p", role="a test prompt", template="A $x\n$feedback\nB\n\nC")
    assert prompt.render(x="1", feedback="") == "A 1\nB\n\nC"
    assert prompt.render(x="$y", feedback="note") == "A $y\nnote\nB\n\nC"
