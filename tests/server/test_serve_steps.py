"""Events into steps: the text `arkg ask` prints, and the part of the graph each event touches."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from support.serving import SAMPLE_QUESTION, curie_model

from arkg.agents.trace import TripleRecord
from arkg.server.steps import StepMaker, edge_id, saved_trace, view_of
from arkg.session import Session


class Hop(BaseModel):
    """An event kind the server knows nothing of, carrying triples in nested fields."""

    kind: Literal["hop"] = "hop"
    path: list[dict]
    found: TripleRecord
    cited_keys: list[str] = []


def test_any_triple_in_any_event_becomes_an_edge_and_cited_keys_find_earlier_ones():
    maker = StepMaker()
    spouse = TripleRecord(key="T1", head="Marie Curie", relation="spouse", tail="Pierre Curie", props={"start time": "1895"})
    first = maker.step(Hop(path=[{"via": spouse.model_dump()}], found=spouse))
    assert first["kind"] == "hop" and first["index"] == 1
    assert [(t["head"], t["tail"], t["key"], t["props"]) for t in first["graph"]["triples"]] == [
        ("Marie Curie", "Pierre Curie", "T1", {"start time": "1895"})
    ] * 2
    collaborator = TripleRecord(key="T2", head="Marie Curie", relation="collaborator", tail="Pierre Curie")
    second = maker.step(Hop(path=[], found=collaborator, cited_keys=["T1", "T9"]))
    assert second["graph"]["cited"] == [first["graph"]["triples"][0]["id"]]  # T9 was never shown
    assert second["text"].startswith("  hop ")  # the CLI's generic line for kinds it has no renderer for
    assert second["graph"]["anchor"] is None and second["graph"]["relation"] is None


def test_edge_ids_tell_parallel_edges_and_props_apart():
    base = {"head": "Marie Curie", "relation": "spouse", "tail": "Pierre Curie"}
    ids = {
        edge_id({**base, "props": {}}),
        edge_id({**base, "props": {"start time": "1895"}}),
        edge_id({**base, "relation": "collaborator", "props": {}}),
    }
    assert len(ids) == 3
    assert edge_id({**base, "props": {"a": 1, "b": 2}}) == edge_id({**base, "props": {"b": 2, "a": 1}})
    assert edge_id(base) == edge_id({**base, "props": {}, "key": "T4", "incoming": True})


def test_kaping_events_name_the_linked_entities_and_the_facts_shown():
    steps = []
    maker = StepMaker(view_of("kaping"))
    with Session(model=curie_model()) as session:
        session.ask(SAMPLE_QUESTION, "kaping", {"k": 3}, on_event=lambda event: steps.append(maker.step(event)))
    linked, facts, answer = steps
    assert {"Marie Curie", "Warsaw"} <= set(linked["graph"]["entities"])
    assert len(facts["graph"]["triples"]) == 3 and all(t["key"] for t in facts["graph"]["triples"])
    assert answer["graph"]["cited"] == [facts["graph"]["triples"][0]["id"]]


def test_a_trace_read_back_from_json_by_its_strategy_steps_as_it_did_live():
    events = []
    with Session(model=curie_model()) as session:
        result = session.ask(SAMPLE_QUESTION, "ark", on_event=events.append)
    saved = saved_trace("ark", result.model_dump(mode="json")["trace"])
    assert [type(event) for event in saved.events] == [type(event) for event in events]
    live, replayed = StepMaker(view_of("ark")), StepMaker(view_of("ark"))
    assert [replayed.step(event) for event in saved.events] == [live.step(event) for event in events]
    anchors = [step["graph"]["anchor"] for step in map(StepMaker(view_of("ark")).step, events) if step["kind"] == "anchor"]
    assert anchors and all(anchors)  # the ARK view names the anchor each valid attempt chose
    # A trace of a strategy not registered here stays a dict, read generically.
    assert saved_trace("gone", {"question": "q", "events": [{"kind": "answer", "unheard": 1}]})["events"] == [
        {"kind": "answer", "unheard": 1}
    ]
