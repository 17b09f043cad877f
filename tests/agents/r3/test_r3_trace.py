"""R³'s typed trace: exported as JSON and read back, streamed as events, its calls and usage, and
citations an auditor can verify from the trace alone. Registration and settings."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from r3_helpers import CORGI, HAS_PET, PET_BREED, judged, missing, run, sample_kg, scripted

from arkg.agents import REGISTRY, build_strategy, strategy_settings
from arkg.agents.r3 import R3, R3Settings
from arkg.agents.r3.replies import MAX_REPLY_TOKENS
from arkg.agents.r3.trace import R3Trace
from arkg.agents.run import RunOptions
from arkg.errors import ArkgError

CORGI_RUN = [CORGI, judged(("P1", "unknown", [])), missing("P1", "the breed of Sablé", "Sablé"),
             judged(("P1", "unsatisfied", [HAS_PET, PET_BREED]))]  # fmt: skip


def test_the_trace_exports_to_json_and_reads_back():
    result, _ = run(*CORGI_RUN)
    exported = result.model_dump(mode="json")
    trace = exported["trace"]
    assert [event["kind"] for event in trace["events"]][-1] == "answer"
    assert trace["axioms"][0]["premises"][0] == {
        "id": "P1", "entity": "Yui Yuigahama", "property": "breed of pet", "operator": "=", "value": "corgi",
    }  # fmt: skip
    assert trace["usage"]["calls"] == 4 and trace["settings"]["max_breadth"] == 2
    again = R3Trace.model_validate_json(result.trace.model_dump_json())
    assert again.events == result.trace.events and again.cited_triples == result.trace.cited_triples


def test_events_stream_as_they_happen_and_usage_sums_the_calls():
    events = []
    model = scripted(*CORGI_RUN)
    result = R3(sample_kg(), model, R3Settings(max_named=0)).ask("Is Yui Yuigahama's pet a corgi?", RunOptions(on_event=events.append))
    assert events == result.trace.events
    assert len(result.trace.calls) == len(model.calls) == 4
    assert result.usage == result.trace.usage and result.usage.calls == 4
    assert [call.shown for call in result.trace.calls] == [call.messages[-1].content for call in model.calls]


def test_every_citation_of_a_run_is_verifiable_from_the_trace():
    result, _ = run(*CORGI_RUN)
    assert result.trace.unverified_citations() == []
    tampered = result.trace.model_copy(deep=True)
    judgement = tampered.events[3]
    judgement.judgements[0].cited_keys.append("T42")
    tampered.cited_triples[0] = tampered.cited_triples[0].model_copy(update={"key": "T99"})
    assert tampered.unverified_citations() == [
        "branch 1, depth 1, attempt 1: P1 cites T42, which was not shown",
        "answer: T99 was not cited by a valid judgement",
    ]


def test_r3_is_registered_with_a_token_budget_for_its_longest_reply():
    info = REGISTRY["r3"]
    assert info.settings is R3Settings and info.uses_kg and info.max_tokens == MAX_REPLY_TOKENS
    strategy = build_strategy("r3", scripted(), sample_kg(), {"max_depth": 3})
    assert isinstance(strategy, R3) and strategy.settings.max_depth == 3


def test_settings_default_to_the_papers_search_and_refuse_unknown_or_out_of_range_values():
    settings = R3Settings()
    assert (settings.mode.value, settings.ranker.value, settings.max_depth, settings.max_breadth) == ("constrained", "dense", 2, 2)  # dense: the `dense` extra is installed for the tests
    assert settings.branch_temperature == 0.7
    with pytest.raises(ArkgError, match="no setting 'depth'"):
        strategy_settings("r3", {"depth": 3})
    with pytest.raises(ArkgError, match="max_premises"):
        strategy_settings("r3", {"max_premises": 9})
    with pytest.raises(ValidationError, match="frozen"):
        settings.max_depth = 5
