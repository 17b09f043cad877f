"""KAPING: link, retrieve the 1-hop facts, keep the top k, answer in one call citing keys."""

from __future__ import annotations

from arkg.agents.kaping import AnswerAttempt, EntitiesLinked, FactsRetrieved, Kaping, KapingSettings, StopReason
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.run import RunOptions
from arkg.agents.strategy import Query
from arkg.graph.model import Triple
from arkg.llm.scripted import ScriptedModel

QUESTION = "Was Marie Curie born in Warsaw?"


def reply(keys, answer="yes", explanation="Her place of birth is Warsaw."):
    return {"cited_keys": keys, "explanation": explanation, "answer": answer}


def test_facts_of_the_linked_entities_are_ranked_shown_and_cited(sample_kg):
    model = ScriptedModel.from_replies([reply(["T1"])])
    result = Kaping(sample_kg, model, KapingSettings(k=5)).ask(QUESTION)
    linked, retrieved, answered = result.trace.events
    assert isinstance(linked, EntitiesLinked) and "Marie Curie" in linked.entities and "Warsaw" in linked.entities
    assert isinstance(retrieved, FactsRetrieved) and len(retrieved.shown) == 5 and retrieved.retrieved > 5
    # The fact that answers the question ranks first.
    assert (retrieved.shown[0].head, retrieved.shown[0].relation, retrieved.shown[0].tail) == (
        "Marie Curie", "place of birth", "Warsaw",
    )  # fmt: skip
    prompt = model.calls[0].messages[-1].content
    assert "T1: (Marie Curie, place of birth, Warsaw)" in prompt and "Question: " + QUESTION in prompt
    assert isinstance(answered, AnswerAttempt) and answered.valid
    assert result.answer is True and result.stop_reason == "done"
    assert result.cited_triples == [Triple("Marie Curie", "place of birth", "Warsaw").as_dict()]
    assert result.usage.calls == 1


def test_constrained_mode_lets_the_model_cite_only_the_keys_shown(sample_kg):
    model = ScriptedModel.from_replies([reply(["T2"])])
    Kaping(sample_kg, model, KapingSettings(k=3)).ask(QUESTION)
    schema = model.calls[0].output.model_json_schema()
    assert schema["properties"]["cited_keys"]["items"]["enum"] == ["T1", "T2", "T3"]


def test_free_mode_retries_a_reply_citing_keys_not_shown(sample_kg):
    model = ScriptedModel.from_replies([reply(["T9"]), reply(["T1"])])
    result = Kaping(sample_kg, model, KapingSettings(k=3, mode=SelectionMode.FREE)).ask(QUESTION)
    first, second = [event for event in result.trace.events if isinstance(event, AnswerAttempt)]
    assert first.invalid_keys == ["T9"] and second.valid
    assert "Cite only these keys: T1, T2, T3" in model.calls[1].messages[-1].content
    assert result.answer is True


def test_free_mode_gives_up_after_c_max_invalid_citations(sample_kg):
    model = ScriptedModel.from_replies([reply(["T9"]), reply(["T8"])])
    result = Kaping(sample_kg, model, KapingSettings(k=3, mode=SelectionMode.FREE, c_max=2)).ask(QUESTION)
    assert result.answer is None and result.cited_triples == []
    assert result.stop_reason == StopReason.C_MAX.value == "c_max answers cited facts that were not shown"
    assert [event.kind for event in result.trace.events][-3:] == ["answer", "answer", "stopped"]


def test_claims_are_verified_and_say_so(sample_kg):
    model = ScriptedModel.from_replies([reply(["T1"], answer="no")])
    result = Kaping(sample_kg, model).ask("Marie Curie was born in Paris.")
    prompt = model.calls[0].messages
    assert "Claim: Marie Curie was born in Paris." in prompt[-1].content
    assert '"yes" if the claim is true' in prompt[-1].content and "You answer a claim" in prompt[0].content
    assert result.claim and result.answer is False


def test_open_questions_get_a_text_answer(sample_kg):
    model = ScriptedModel.from_replies([reply(["T1"], answer="Warsaw")])
    result = Kaping(sample_kg, model).ask(Query(text="Where was Marie Curie born?"))
    assert result.answer == "Warsaw"


def test_incoming_edges_join_the_neighbourhood_with_edges_both(sample_kg):
    model = ScriptedModel.from_replies([reply([], answer="unknown")])
    result = Kaping(sample_kg, model, KapingSettings(k=50, edges=EdgeSet.BOTH)).ask("Is Poland a country?")
    shown = result.trace.events[1].shown
    assert any(record.incoming and record.tail == "Poland" for record in shown)


def test_a_question_naming_nothing_in_the_kg_shows_no_facts():
    from arkg.graph.sqlite_store import SQLiteGraph

    kg = SQLiteGraph()
    kg.add_triples([Triple("A", "r", "B")])
    model = ScriptedModel.from_replies([reply([], answer="unknown")])
    result = Kaping(kg, model).ask("Is Zanzibar an island?", RunOptions(stop_on_missing_names=False))
    assert "(no facts found)" in model.calls[0].messages[-1].content
    assert result.answer is None


def test_the_result_lists_every_fact_shown(sample_kg):
    model = ScriptedModel.from_replies([reply(["T1"])])
    result = Kaping(sample_kg, model, KapingSettings(k=4)).ask(QUESTION)
    assert len(result.retrieved_triples) == 4 and result.cited_triples[0] in result.retrieved_triples


def test_a_short_entity_name_links_only_when_written_as_it_is():
    from arkg.agents.retrieval import link_entities
    from arkg.graph.sqlite_store import SQLiteGraph

    kg = SQLiteGraph()
    kg.add_triples([Triple("A", "r", "B"), Triple("US", "capital", "Washington")])
    assert link_entities(kg, "Is a cat a mammal?", 5) == []
    assert link_entities(kg, "Is the capital of the US Washington?", 5)[:1] == ["US"]
