"""Evidence metrics against gold triples, and the grounding checks, on hand-computed cases."""

from __future__ import annotations

import pytest

from arkg.agents import Result
from arkg.agents.ark import ArkAgent, ArkSettings
from arkg.agents.kg_agent import KgAgent
from arkg.eval.evidence import assess_evidence, hops_reached, same_fact
from arkg.eval.grounding import check_grounding
from arkg.graph import open_graph
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel

GOLD = [
    Triple("Yui Yuigahama", "has pet", "Sablé"),
    Triple("Sablé", "animal breed", "dachshund"),
    Triple("Horsens", "population", "59,449"),
]


def result(retrieved: list[Triple], cited: list[Triple], **fields) -> Result:
    return Result(
        strategy="test",
        question=fields.pop("question", "q"),
        answer=fields.pop("answer", True),
        retrieved_triples=[t.as_dict() for t in retrieved],
        cited_triples=[t.as_dict() for t in cited],
        **fields,
    )


def test_recall_and_precision_with_partial_fuzzy_and_missing_matches():
    retrieved = [
        Triple("Yui Yuigahama", "has pet", "Sablé"),  # exact
        Triple("Sable", "Animal Breed", "Dachshund"),  # fuzzy: accents and case
        Triple("Yui Yuigahama", "occupation", "student"),  # not gold
    ]
    cited = [retrieved[1], retrieved[2]]
    evidence = assess_evidence(GOLD, ["Yui Yuigahama"], result(retrieved, cited), kg=None)
    assert (evidence.gold, evidence.retrieved, evidence.cited) == (3, 3, 2)
    assert (evidence.retrieved_gold, evidence.cited_gold, evidence.cited_non_gold) == (2, 1, 1)
    assert evidence.retrieved_recall == pytest.approx(2 / 3)
    assert evidence.cited_recall == pytest.approx(1 / 3)
    assert evidence.citation_precision == 0.5
    assert evidence.hops == 2  # Yui -> Sablé (hop 1) -> dachshund (hop 2)


def test_numbers_match_however_they_are_written_and_near_names_do_not_merge_distinct_facts():
    assert same_fact(Triple("Horsens", "population", "59,449"), Triple("Horsens", "population", "59449"))
    assert not same_fact(Triple("Horsens", "population", "59,449"), Triple("Horsens", "population", "59,450"))
    assert not same_fact(Triple("Ikast", "population", "15,979"), Triple("Horsens", "population", "15,979"))


def test_gold_triples_missing_from_the_kg_are_listed_not_dropped():
    kg = SQLiteGraph()
    kg.add_triples([Triple("Yui Yuigahama", "has pet", "Sablé"), Triple("Sablé", "animal breed", "Dachshund")])
    evidence = assess_evidence(GOLD, ["Yui Yuigahama"], result([], []), kg)
    assert evidence.unmatched_gold == ["(Horsens, population, 59,449)"]
    assert evidence.retrieved_recall == 0 and evidence.citation_precision is None and evidence.hops == 0


def test_hops_count_from_the_question_entities_and_ignore_unconnected_triples():
    triples = [Triple("A", "r", "B"), Triple("B", "r", "C"), Triple("D", "r", "C"), Triple("X", "r", "Y")]
    assert hops_reached(["A"], triples) == 3
    assert hops_reached(["C"], triples) == 2
    assert hops_reached(["Nobody"], triples) == 0


def ark_run(kg: SQLiteGraph):
    replies = [
        {"anchor_entity": "Yui Yuigahama"},
        {"relation": "has pet"},
        {"cited_keys": ["T1"], "implication": "Her pet is Sablé.", "continue_exploring": False},
        {"explanation": "Sablé is a dachshund.", "answer": "no"},
    ]
    return ArkAgent(kg, ScriptedModel.from_replies(replies), ArkSettings(mode="free")).ask("Is Yui Yuigahama's pet a corgi?")


def test_a_real_run_passes_the_grounding_checks():
    kg = SQLiteGraph()
    kg.add_triples(GOLD[:2])
    grounding = check_grounding(ark_run(kg), kg)
    assert grounding.violations == [] and grounding.basis == "kg (closed world)"  # a False: every breed of Sablé read


def test_an_injected_grounding_violation_is_caught():
    kg = SQLiteGraph()
    kg.add_triples(GOLD[:2])
    run = ark_run(kg)
    forged = Triple("Yui Yuigahama", "has pet", "Kamakura")
    run.cited_triples.append(forged.as_dict())
    violations = check_grounding(run, kg).violations
    assert "(Yui Yuigahama, has pet, Kamakura): cited but not in the knowledge graph" in violations
    assert "(Yui Yuigahama, has pet, Kamakura): cited but never shown to the model" in violations


def test_the_basis_of_an_answer():
    asked = "Does Yui Yuigahama have a pet?"
    assert result([], []).basis == "neither"
    assert result([], [], commonsense=["A corgi is a dog breed."]).basis == "commonsense"
    assert result(GOLD[:1], GOLD[:1], question=asked).basis == "kg"
    assert result(GOLD[:1], GOLD[:1], commonsense=["x"], question=asked).basis == "kg+commonsense"
    # Cited facts that do not support the answer (about no entity of the question) count for nothing.
    assert result(GOLD[2:], GOLD[2:], question=asked).basis == "unsupported"
    assert result(GOLD[2:], GOLD[2:], commonsense=["x"], question=asked).basis == "commonsense"
    assert result([], [], answer=None).basis == "no answer"


def kg_agent_run():
    kg = open_graph(None)
    lines = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Warsaw")', "v3 = end(v2)"]
    return kg, KgAgent(kg, ScriptedModel.from_replies(lines)).ask("Was Marie Curie born in Warsaw?")


def test_kg_agent_citations_count_as_shown_when_a_later_prompt_listed_their_line():
    kg, run = kg_agent_run()
    assert run.answer is True and run.cited_triples == [Triple("Marie Curie", "place of birth", "Warsaw").as_dict()]
    # The memory showed `v1 = get_tail_entity(...)  # 1 entity: Warsaw`, never the fact line itself.
    assert all("(Marie Curie, place of birth, Warsaw)" not in call.shown for call in run.trace.calls)
    assert check_grounding(run, kg).violations == []


def test_kg_agent_verdict_over_a_set_larger_than_its_listing_is_grounded_on_every_member():
    kg = SQLiteGraph()
    children = [f"Child {number}" for number in range(1, 14)]
    kg.add_triples([Triple("Fath-Ali Shah", "child", child) for child in children])
    kg.add_triples([Triple("Toyota Corolla", "manufacturer", "Toyota")])
    lines = ['v1 = get_tail_entity(["Fath-Ali Shah"], "child")', 'v2 = judge(v1, "contains", "Toyota Corolla")', "v3 = end(v2)"]
    run = KgAgent(kg, ScriptedModel.from_replies(lines)).ask("Is the Toyota Corolla a child of Fath-Ali Shah?")
    first_step = run.trace.events[1].record
    assert first_step.size == 13 and len(first_step.sample) < 13  # the memory spelled out only some of them
    # "No" rests on the whole set: every child is cited, listed or not.
    assert run.answer is False and len(run.cited_triples) == 13
    assert check_grounding(run, kg).violations == []
    # Unlisted, the same citations are caught, every one of them.
    for call in run.trace.calls:
        call.shown = call.shown.replace(lines[0], "v1 = …")
    assert len(check_grounding(run, kg).violations) == len(run.cited_triples)


def test_kg_agent_citations_whose_line_no_prompt_listed_are_caught():
    kg, run = kg_agent_run()
    for call in run.trace.calls:
        call.shown = call.shown.replace('v1 = get_tail_entity(["Marie Curie"], "place of birth")', "v1 = …")
    violations = check_grounding(run, kg).violations
    assert violations == ["(Marie Curie, place of birth, Warsaw): cited but never shown to the model"]
