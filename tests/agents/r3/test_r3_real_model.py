"""R³ with the real bundled model (SmolLM2-135M via llama.cpp) over the bundled sample KG."""

from __future__ import annotations

import pytest

from arkg.agents.r3 import R3, R3Settings
from arkg.agents.r3 import replies
from arkg.agents.run import RunOptions
from arkg.graph import SAMPLE_QUESTIONS
from arkg.llm.base import Sampling

from support.grounding import assert_grounded

pytestmark = pytest.mark.slow
OPTIONS = RunOptions(sampling=Sampling(max_tokens=replies.MAX_REPLY_TOKENS))
# Short runs: one branch, two attempts per decision, few facts.
SHORT = {"max_breadth": 1, "c_max": 2, "top_k": 4}


def test_a_constrained_run_ends_grounded_and_makes_only_valid_choices(bundled_model, sample_kg):
    settings = R3Settings(mode="constrained", max_depth=2, pick_from=3, **SHORT)
    result = R3(sample_kg, bundled_model, settings).ask(SAMPLE_QUESTIONS[0].question, OPTIONS)
    assert_grounded(result, sample_kg)
    # The grammar admits only the keys shown and the entities offered (free-text fields, such as the
    # rule of an axiom, are still checked and may be sent back).
    for event in result.trace.events:
        if event.kind in ("entities", "pick"):
            assert event.valid
        elif event.kind == "judgement":
            assert event.invalid_keys == [] and event.valid
        elif event.kind == "missing":
            assert event.entity in event.candidates


def test_a_free_run_checks_every_citation_and_name(bundled_model, sample_kg):
    settings = R3Settings(mode="free", max_depth=1, max_named=0, pick_from=0, **SHORT)
    result = R3(sample_kg, bundled_model, settings).ask(SAMPLE_QUESTIONS[2].question, OPTIONS)
    assert_grounded(result, sample_kg)
    for event in result.trace.events:
        if event.kind == "judgement":
            assert event.invalid_keys == [key for j in event.judgements for key in j.cited_keys if key not in event.shown]
        elif event.kind == "axiom" and event.valid:
            assert all(sample_kg.has_entity(premise.entity) for premise in event.premises)


def test_the_longest_reply_fits_the_registered_token_budget(bundled_model):
    """The bound behind MAX_REPLY_TOKENS: an axiom with every premise set and every string at its
    longest, written in one-letter words (close to one token per two characters), still fits."""
    words = lambda chars: ("a " * chars)[:chars]  # noqa: E731
    premise = {
        "entity": words(replies.MAX_NAME_CHARS),
        "property": words(replies.MAX_TERM_CHARS),
        "operator": "holds",
        "value": words(replies.MAX_TERM_CHARS),
    }
    premises = [premise] * replies.MAX_PREMISES
    longest = replies.AxiomReply.model_validate(
        {"rule": words(replies.MAX_TEXT_CHARS), "premises": premises, "alternatives": [premises] * (replies.MAX_ALTERNATIVES - 1)}
    ).model_dump_json()
    tokens = bundled_model.llama.tokenize(longest.encode("utf-8"), add_bos=False)
    assert len(tokens) < replies.MAX_REPLY_TOKENS


