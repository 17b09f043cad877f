"""Every strategy's answer says whether its cited facts support it: checked through the strategies, over
small KGs in real SQLite files, with scripted models."""

from __future__ import annotations

from pathlib import Path

import pytest

from arkg.agents.ark import ArkAgent, ArkSettings
from arkg.agents.kaping import Kaping, KapingSettings
from arkg.agents.kg_agent import KgAgent, KgAgentSettings
from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import AnswerKind, Query, Result
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel

JAVA = Query(text="What is the country of citizenship of the designer of Java?", kind=AnswerKind.OPEN)


def sqlite_kg(path: Path, triples: list[Triple]) -> SQLiteGraph:
    kg = SQLiteGraph(path)
    kg.add_triples(triples)
    return kg


@pytest.fixture
def java_kg(tmp_path: Path):
    kg = sqlite_kg(
        tmp_path / "java.db",
        [
            Triple("Java", "designed by", "James Gosling"),
            Triple("James Gosling", "country of citizenship", "Canada"),
            Triple("Kafka on the Shore", "country of origin", "Japan"),
        ],
    )
    yield kg
    kg.close()


def step(anchor: str, relation: str, key: str, more: bool) -> list:
    """One constrained ARK step: the anchor, the relation, then the reasoning citing `key`."""
    return [anchor, relation, {"cited_keys": [key], "implication": "…", "continue_exploring": more}]


def cited(result: Result) -> list[tuple[str, str, str]]:
    return [(t["head"], t["relation"], t["tail"]) for t in result.cited_triples]


def test_ark_answering_from_memory_past_the_first_hop_is_unsupported_and_says_where_the_chain_stops(java_kg):
    model = ScriptedModel.from_replies([*step("Java", "designed by", "T1", False), {"explanation": "x", "answer": "United States"}])
    result = ArkAgent(java_kg, model).ask(JAVA)
    assert cited(result) == [("Java", "designed by", "James Gosling")]
    assert result.answer == "United States" and result.basis == "unsupported"
    assert result.support.reasons == ["United States is in no cited fact: no cited fact links James Gosling to it"]
    assert result.trace.linked_entities() == ["Java"]


def test_ark_citing_both_hops_of_a_two_hop_answer_rests_on_the_kg(java_kg):
    replies = [*step("Java", "designed by", "T1", True), *step("James Gosling", "country of citizenship", "T2", False)]
    model = ScriptedModel.from_replies([*replies, {"explanation": "x", "answer": "Canada"}])
    result = ArkAgent(java_kg, model).ask(JAVA)
    assert len(cited(result)) == 2 and result.answer == "Canada"
    assert result.basis == "kg" and result.support.supported


def test_a_yes_no_answer_citing_facts_about_unrelated_entities_is_unsupported(java_kg):
    replies = [
        {"anchor_entity": "Kafka on the Shore"},
        {"relation": "country of origin"},
        {"cited_keys": ["T1"], "implication": "…", "continue_exploring": False},
        {"explanation": "x", "answer": "yes"},
    ]
    model = ScriptedModel.from_replies(replies)
    result = ArkAgent(java_kg, model, ArkSettings(mode=SelectionMode.FREE)).ask("Was Java designed in Canada?")
    assert result.answer is True and cited(result) == [("Kafka on the Shore", "country of origin", "Japan")]
    assert result.basis == "unsupported"
    assert result.support.reasons == ["no cited fact mentions an entity of the question"]


def test_ark_computed_lines_are_computations_the_check_reads(tmp_path: Path):
    kg = sqlite_kg(tmp_path / "kg.db", [Triple("Niger", "shares border with", name) for name in ("Chad", "Mali", "Libya")])
    model = ScriptedModel.from_replies([*step("Niger", "shares border with", "T1", False)[:2],
                                        {"cited_keys": ["T1", "T2", "T3"], "implication": "…", "continue_exploring": False},
                                        {"explanation": "x", "answer": "3"}])  # fmt: skip
    result = ArkAgent(kg, model, ArkSettings(compare_values=True)).ask(Query(text="How many countries does Niger border?", kind=AnswerKind.OPEN))
    [count] = result.trace.computations()
    assert (count.operation, count.inputs, count.output) == ("count", ["Chad", "Mali", "Libya"], "3")
    assert result.basis == "kg"


@pytest.fixture
def curie_kg(tmp_path: Path):
    kg = sqlite_kg(
        tmp_path / "curie.db",
        [
            Triple("Pierre Curie", "place of birth", "Paris"),
            Triple("Paris", "country", "France"),
            Triple("Pierre Curie", "spouse", "Marie Curie"),
            Triple("Pierre Curie", "child", "Irène Joliot-Curie"),
            Triple("Pierre Curie", "child", "Ève Curie"),
        ],
    )
    yield kg
    kg.close()


def kg_agent(kg, lines: list[str]) -> KgAgent:
    model = ScriptedModel.from_replies([{"line": line} for line in lines])
    return KgAgent(kg, model, KgAgentSettings(mode=SelectionMode.FREE))


def test_kg_agent_no_from_a_name_test_that_no_cited_fact_links_is_unsupported(curie_kg):
    program = ['v1 = get_tail_entity(["Pierre Curie"], "place of birth")', 'v2 = judge(v1, "contains", "France")', "v3 = end(v2)"]
    result = kg_agent(curie_kg, program).ask("Was Pierre Curie born in France?")
    assert result.answer is False and cited(result) == [("Pierre Curie", "place of birth", "Paris")]
    [judge] = result.trace.computations()
    assert (judge.operation, judge.inputs, judge.output, judge.membership, judge.agrees) == (
        "judge contains", ["Paris", "France"], "False", True, True
    )
    # The KG says where Paris is; the run never read it.
    assert result.basis == "unsupported" and result.support.reasons == ["the KG links Paris to France by `country`, which was not read"]


def test_kg_agent_following_the_link_supports_the_yes(curie_kg):
    program = [
        'v1 = get_tail_entity(["Pierre Curie"], "place of birth")',
        'v2 = get_tail_entity(v1, "country")',
        'v3 = judge(v2, "contains", "France")',
        "v4 = end(v3)",
    ]
    result = kg_agent(curie_kg, program).ask("Was Pierre Curie born in France?")
    assert result.answer is True and result.basis == "kg", result.support.reasons


def test_kg_agent_a_verdict_its_operands_do_not_give_is_unsupported(curie_kg):
    """A judge re-run on the recorded operands must give the recorded verdict (here a forged record)."""
    program = ['v1 = get_tail_entity(["Pierre Curie"], "child")', "v2 = count(v1)", 'v3 = judge(v2, "=", 2)', "v4 = end(v3)"]
    result = kg_agent(curie_kg, program).ask("Did Pierre Curie have two children?")
    assert result.answer is True and result.basis == "kg"
    count, judge = result.trace.computations()
    assert (count.operation, count.output) == ("count", "2") and judge.agrees
    record = result.trace.records[2]
    forged = record.model_copy(update={"arguments": {**record.arguments, "b": ["3"]}})
    event = next(event for event in result.trace.events if getattr(event, "record", None) == record)
    event.record = forged
    assert not result.trace.computations()[1].agrees


def test_kg_agent_topic_entities_and_candidate_lookups_are_the_question_s_entities(curie_kg):
    program = ['v1 = get_candidate_entity("Pierre Curie")', 'v2 = get_tail_entity(v1, "spouse")', "v3 = end(v2)"]
    result = kg_agent(curie_kg, program).ask(Query(text="Whom did Pierre Curie marry?", kind=AnswerKind.OPEN))
    assert result.trace.linked_entities() == ["Pierre Curie"]
    assert result.answer == "Marie Curie" and result.basis == "kg"


def test_kaping_cites_the_facts_on_the_chain_to_an_open_answer_not_every_fact_it_was_shown(curie_kg):
    """A small model cites every key; the answer keeps the fact that holds it, with no further call."""
    every_key = [f"T{number}" for number in range(1, 5)]
    model = ScriptedModel.from_replies([{"cited_keys": every_key, "explanation": "x", "answer": "Paris"}])
    result = Kaping(curie_kg, model, KapingSettings(k=4)).ask(Query(text="Where was Pierre Curie born?", kind=AnswerKind.OPEN))
    [attempt] = [event for event in result.trace.events if event.kind == "answer"]
    assert attempt.cited_keys == every_key and len(result.retrieved_triples) == 4
    assert cited(result) == [("Pierre Curie", "place of birth", "Paris")]
    assert result.basis == "kg" and result.usage.calls == 1


def test_kaping_keeps_what_the_model_cited_where_no_chain_reaches_the_answer(curie_kg):
    model = ScriptedModel.from_replies([{"cited_keys": ["T1", "T2"], "explanation": "x", "answer": "Lyon"}])
    result = Kaping(curie_kg, model, KapingSettings(k=4)).ask(Query(text="Where was Pierre Curie born?", kind=AnswerKind.OPEN))
    assert len(result.cited_triples) == 2 and result.basis == "unsupported"
    assert result.support.reasons[0].startswith("Lyon is in no cited fact")


def test_a_result_read_back_keeps_its_support_and_an_older_one_is_checked_from_its_fields(java_kg):
    model = ScriptedModel.from_replies([*step("Java", "designed by", "T1", False), {"explanation": "x", "answer": "United States"}])
    result = ArkAgent(java_kg, model).ask(JAVA)
    assert Result.model_validate_json(result.model_dump_json()).support == result.support
    older = result.model_dump(mode="json", exclude={"support", "basis"})
    assert Result.model_validate(older).support == result.support
