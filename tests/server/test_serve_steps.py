"""Events into steps: the text `arkg ask` prints, and the part of the graph each event touches."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from support.serving import SAMPLE_QUESTION, curie_model

from arkg.agents.trace import TripleRecord
from arkg.server.steps import StepMaker, edge_id, typed_event
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
    maker = StepMaker()
    with Session(model=curie_model()) as session:
        session.ask(SAMPLE_QUESTION, "kaping", {"k": 3}, on_event=lambda event: steps.append(maker.step(event)))
    linked, facts, answer = steps
    assert {"Marie Curie", "Warsaw"} <= set(linked["graph"]["entities"])
    assert len(facts["graph"]["triples"]) == 3 and all(t["key"] for t in facts["graph"]["triples"])
    assert answer["graph"]["cited"] == [facts["graph"]["triples"][0]["id"]]


def test_an_event_read_back_from_json_is_its_own_type_again():
    events = []
    with Session(model=curie_model()) as session:
        result = session.ask(SAMPLE_QUESTION, "ark", on_event=events.append)
    saved = result.model_dump(mode="json")["trace"]["events"]
    assert [type(typed_event(data)) for data in saved] == [type(event) for event in events]
    live, replayed = StepMaker(), StepMaker()
    assert [replayed.step(typed_event(data)) for data in saved] == [live.step(event) for event in events]
    assert typed_event({"kind": "answer", "unheard": 1}) == {"kind": "answer", "unheard": 1}
