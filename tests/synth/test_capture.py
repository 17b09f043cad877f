"""Pairs are the strategies' own calls (ARK, KAPING, the KG-Agent planner): the messages a real run of
the strategy sends when it is given the same replies are exactly the pairs' prompts, and each reply
is what the teacher decided."""

from __future__ import annotations

import json

import pytest

from arkg.agents import AnswerKind, Query, build_strategy
from arkg.agents.ark import ArkSettings
from arkg.agents.kaping import KapingSettings
from arkg.agents.kg_agent import KgAgentSettings
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.teaching import RouteStep
from arkg.graph.model import Direction, Triple
from arkg.llm.base import Message
from arkg.llm.scripted import ScriptedModel
from arkg.synth import NotFollowed, Reason, Source, capture, program_for
from arkg.synth.readings import ProgramReader
from arkg.synth.routes import route_from_chain
from arkg.synth.edited import EditedGraph
from arkg.agents.ark.teacher import DETOUR, MISTAKE, ArkTeacher, misspelt
from arkg.agents.kaping.teacher import KapingTeacher
from arkg.agents.kg_agent.teacher import KgAgentTeacher

# Free mode over outgoing edges, as `arkg synth` runs by default: the teacher's wrong relations (Paris's
# "place of birth") are wrong only there, since with both directions Paris has that relation incoming.
FREE_OUT = ArkSettings(mode=SelectionMode.FREE, edges=EdgeSet.OUT)


def _reader(sample: Source, number: int) -> ProgramReader:
    chain = sample.chains[number]
    run = program_for(chain, sample.kg)
    return ProgramReader(chain.question, run.program, run.evidence, chain.conclusion)


def _query(sample: Source, number: int) -> Query:
    return Query(text=sample.chains[number].question, kind=AnswerKind.YES_NO)


def _replay(strategy: str, sample: Source, settings: object, query: Query, replies: list[str]) -> list[tuple[Message, ...]]:
    """The messages of a plain run of the strategy whose model answers with these replies in order."""
    model = ScriptedModel.from_replies(replies)
    build_strategy(strategy, model, sample.kg, settings).ask(query)  # type: ignore[arg-type]
    return [call.messages for call in model.calls]


@pytest.mark.parametrize("mode", list(SelectionMode))
def test_ark_pairs_are_the_messages_of_a_real_run_given_the_same_replies(sample: Source, mode: SelectionMode) -> None:
    settings = ArkSettings(mode=mode)
    teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True)
    pairs, result = capture("ark", sample.kg, settings, _query(sample, 2), teacher)
    assert [pair.decision for pair in pairs] == ["anchor", "relation", "reasoning"] * 2 + ["answer"]
    assert _replay("ark", sample, settings, _query(sample, 2), [pair.reply for pair in pairs]) == [pair.messages for pair in pairs]
    assert result.answer is False and result.trace.invalid_attempts == 0
    anchor, relation, reasoning = pairs[0].reply, pairs[1].reply, json.loads(pairs[2].reply)
    if mode is SelectionMode.CONSTRAINED:
        assert (anchor, relation) == ("Pierre Curie", "place of birth")
    else:
        assert (json.loads(anchor), json.loads(relation)) == ({"anchor_entity": "Pierre Curie"}, {"relation": "place of birth"})
    # The cited key is the one under which the gold fact stands in the prompt.
    assert reasoning["cited_keys"] == ["T1"] and "T1: (Pierre Curie, place of birth, Paris)" in pairs[2].messages[-1].content
    assert reasoning["continue_exploring"] is True and json.loads(pairs[5].reply)["continue_exploring"] is False
    assert json.loads(pairs[6].reply) == {"explanation": "Paris lies in France, not in Poland.", "answer": "no"}


def test_with_a_plan_each_implication_ends_with_the_next_step_or_the_stop(sample: Source) -> None:
    def implications(plan: bool) -> list[str]:
        teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True, plan=plan)
        pairs, _ = capture("ark", sample.kg, ArkSettings(), _query(sample, 2), teacher)
        return [json.loads(pair.reply)["implication"] for pair in pairs if pair.decision == "reasoning"]

    plain, planned = implications(plan=False), implications(plan=True)
    assert planned == [f"{plain[0]} Next: Paris, country.", f"{plain[1]} Enough to answer."]


def test_with_retries_each_free_mode_choice_follows_a_rejected_mistake(sample: Source) -> None:
    settings = FREE_OUT
    teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True, retries=True)
    pairs, result = capture("ark", sample.kg, settings, _query(sample, 2), teacher)
    assert [pair.decision for pair in pairs] == [
        MISTAKE, "anchor-retry", MISTAKE, "relation-retry", "reasoning",  # step 1: a misspelt anchor, then a wrong relation
        DETOUR, MISTAKE, "relation-retry", "anchor-retry",  # step 2: back at step 1's anchor, then away
        MISTAKE, "relation-retry", "reasoning", "answer",  # ... and a wrong relation at its own
    ]  # fmt: skip
    # The mistakes are real replies the agent rejected: a plain run given the same replies sees the same prompts.
    assert _replay("ark", sample, settings, _query(sample, 2), [pair.reply for pair in pairs]) == [pair.messages for pair in pairs]
    assert result.answer is False and result.trace.invalid_attempts == 4
    anchor_retry, relation_retry = pairs[1], pairs[10]
    assert anchor_retry.messages[-2].content == '{"anchor_entity": "Pierer Curie"}'
    assert 'Not found: "Pierer Curie" is not an entity' in anchor_retry.messages[-1].content
    assert json.loads(anchor_retry.reply) == {"anchor_entity": "Pierre Curie"}
    # At Paris the wrong relation is another step's: Paris has no "place of birth".
    assert relation_retry.messages[-2].content == '{"relation": "place of birth"}'
    assert 'Not found: "place of birth" is not a relation of "Paris"' in relation_retry.messages[-1].content
    assert json.loads(relation_retry.reply) == {"relation": "country"}


def test_a_detour_to_the_previous_anchor_teaches_to_leave_it_after_explored_already(sample: Source) -> None:
    teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True, retries=True)
    pairs, _ = capture("ark", sample.kg, FREE_OUT, _query(sample, 2), teacher)
    detour = pairs.index(next(pair for pair in pairs if pair.decision == DETOUR))
    back, leave, onward = pairs[detour], pairs[detour + 2], pairs[detour + 3]
    assert json.loads(back.reply) == {"anchor_entity": "Pierre Curie"}  # step 1's anchor, not Paris
    assert leave.messages[-2].content == '{"relation": "place of birth"}'
    assert '"place of birth" of "Pierre Curie" was explored already' in leave.messages[-1].content
    assert json.loads(leave.reply) == {"relation": ""} and leave.decision == "relation-retry"
    # "" sends the agent straight back to anchor selection: the next prompt ends with that reply.
    assert onward.messages[-1].content == leave.reply and onward.decision == "anchor-retry"
    assert json.loads(onward.reply) == {"anchor_entity": "Paris"}


def test_a_detour_to_an_anchor_with_nothing_left_to_follow_goes_on_to_the_step_s_own_anchor(sample: Source) -> None:
    # Pierre Curie with his place of birth alone: back there at step 2, the agent has no relation to offer.
    others = [t for r in sample.kg.relations("Pierre Curie") if r != "place of birth" for t in sample.kg.triples("Pierre Curie", r)]
    kg = EditedGraph(sample.kg, removed=others)
    teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True, retries=True)
    pairs, result = capture("ark", kg, FREE_OUT, _query(sample, 2), teacher)
    detour = [pair.decision for pair in pairs].index(DETOUR)
    onward = pairs[detour + 1]
    assert onward.decision == "anchor-retry" and json.loads(onward.reply) == {"anchor_entity": "Paris"}
    assert 'Every relation of "Pierre Curie" was explored already' in onward.messages[-1].content
    assert result.answer is False


def test_a_retry_at_an_anchor_met_before_follows_the_mistake_of_an_explored_relation(sample: Source) -> None:
    birth = route_from_chain(sample.chains[0])[0]
    date = RouteStep("Marie Curie", "date of birth", Direction.OUT, tuple(sample.kg.triples("Marie Curie", "date of birth")), "")
    teacher = ArkTeacher([birth, date], _reader(sample, 0), yes_no=True, retries=True)
    pairs, _ = capture("ark", sample.kg, FREE_OUT, _query(sample, 0), teacher)
    retry = [pair for pair in pairs if pair.decision == "relation-retry"][1]
    assert retry.messages[-2].content == '{"relation": "place of birth"}'
    assert '"place of birth" of "Marie Curie" was explored already' in retry.messages[-1].content
    assert json.loads(retry.reply) == {"relation": "date of birth"}


def test_a_mistake_the_agent_accepts_stops_the_run(sample: Source) -> None:
    # "Pierre Curie" misspelt is "Pierer Curie": make that a real entity, and the agent takes it.
    kg = EditedGraph(sample.kg, added=[Triple("Pierer Curie", "named after", "Pierre Curie")])
    teacher = ArkTeacher(route_from_chain(sample.chains[2]), _reader(sample, 2), yes_no=True, retries=True)
    with pytest.raises(NotFollowed, match="ARK accepted the wrong anchor made on purpose at step 1"):
        capture("ark", kg, FREE_OUT, _query(sample, 2), teacher)


def test_a_misspelling_swaps_the_two_letters_nearest_the_middle() -> None:
    assert [misspelt(name) for name in ("Bristol", "Pierre Curie", "Saudi Arabia", "Aa", "11")] == [
        "Brsitol", "Pierer Curie", "Saudi rAabia", "aA", "111",
    ]  # fmt: skip


def test_kaping_pairs_are_the_messages_of_a_real_run_given_the_same_reply(sample: Source) -> None:
    teacher = KapingTeacher(_reader(sample, 0), yes_no=True)
    pairs, result = capture("kaping", sample.kg, KapingSettings(), _query(sample, 0), teacher)
    [pair] = pairs
    assert _replay("kaping", sample, KapingSettings(), _query(sample, 0), [pair.reply]) == [pair.messages]
    reply = json.loads(pair.reply)
    gold_line = next(line for line in pair.messages[-1].content.splitlines() if "place of birth, Warsaw" in line)
    assert reply["cited_keys"] == [gold_line.split(":")[0]] and reply["answer"] == "yes" and result.answer is True


def test_an_anchor_the_agent_does_not_offer_stops_the_run_with_why(sample: Source) -> None:
    route = [RouteStep("polonium", "named after", Direction.OUT, (), "")]
    teacher = ArkTeacher(route, _reader(sample, 0), yes_no=True)
    with pytest.raises(NotFollowed) as failure:
        capture("ark", sample.kg, ArkSettings(), _query(sample, 0), teacher)
    assert failure.value.reason is Reason.NOT_FOLLOWED
    assert failure.value.detail.startswith("step 1: the anchor 'polonium' is not among the")


def test_a_free_mode_anchor_never_shown_to_the_model_is_not_taught(sample: Source) -> None:
    route = [RouteStep("polonium", "named after", Direction.OUT, (), "")]
    teacher = ArkTeacher(route, _reader(sample, 0), yes_no=True)
    with pytest.raises(NotFollowed, match="step 1: the anchor 'polonium' was never shown"):
        capture("ark", sample.kg, FREE_OUT, _query(sample, 0), teacher)


def test_a_rejected_gold_reply_stops_the_run_instead_of_teaching_a_retry(sample: Source) -> None:
    # Poland has incoming edges only: with edges=out the agent rejects it as an anchor in free mode.
    route = [RouteStep("Poland", "named after", Direction.IN, (), "")]
    teacher = ArkTeacher(route, _reader(sample, 2), yes_no=True)
    with pytest.raises(NotFollowed, match="ARK rejected the gold anchor of step 1"):
        capture("ark", sample.kg, ArkSettings(mode=SelectionMode.FREE, edges=EdgeSet.OUT), _query(sample, 2), teacher)


def test_a_gold_fact_the_agent_does_not_show_stops_the_run(sample: Source) -> None:
    route = route_from_chain(sample.chains[0])
    missing = [RouteStep(step.anchor, step.relation, step.direction, (), step.implication) for step in route]
    teacher = ArkTeacher(missing, _reader(sample, 0), yes_no=True)
    with pytest.raises(NotFollowed, match="step 1: no gold fact of 'Marie Curie' / 'place of birth' among the 1 shown"):
        capture("ark", sample.kg, ArkSettings(), _query(sample, 0), teacher)


def test_a_gold_reply_the_reply_format_does_not_admit_is_not_followed(sample: Source) -> None:
    step = route_from_chain(sample.chains[0])[0]
    too_long = [RouteStep(step.anchor, step.relation, step.direction, step.triples, "x" * 300)]
    teacher = ArkTeacher(too_long, _reader(sample, 0), yes_no=True)
    with pytest.raises(NotFollowed, match="the gold reply does not fit the strategy's reply format"):
        capture("ark", sample.kg, ArkSettings(), _query(sample, 0), teacher)


@pytest.mark.parametrize("mode", list(SelectionMode))
def test_kg_agent_pairs_are_the_planner_calls_of_a_real_run_given_the_same_lines(sample: Source, mode: SelectionMode) -> None:
    lines = program_for(sample.chains[2], sample.kg).program.lines
    settings = KgAgentSettings(mode=mode)
    pairs, result = capture("kg-agent", sample.kg, settings, _query(sample, 2), KgAgentTeacher(lines))
    assert _replay("kg-agent", sample, settings, _query(sample, 2), [pair.reply for pair in pairs]) == [pair.messages for pair in pairs]
    written = [pair.reply if mode is SelectionMode.CONSTRAINED else json.loads(pair.reply)["line"] for pair in pairs]
    assert written == list(lines) and [pair.decision for pair in pairs] == ["line"] * 4
    assert result.answer is False and result.stop_reason == "the program ended"
    assert "Program so far:\nv1 = get_tail_entity" in pairs[1].messages[-1].content


def test_a_gold_line_the_planner_does_not_offer_is_not_taught(sample: Source) -> None:
    lines = ('v1 = get_tail_entity(["Marie Curie"], "no such relation")', "v2 = end(v1)")
    with pytest.raises(NotFollowed, match=r"line 1 `v1 = get_tail_entity\(\[\"Marie Curie\"\], \"no such relation\"\)` is not among"):
        capture("kg-agent", sample.kg, KgAgentSettings(), _query(sample, 0), KgAgentTeacher(lines))
    with pytest.raises(NotFollowed, match="the executor rejected gold line 1: "):
        capture("kg-agent", sample.kg, KgAgentSettings(mode=SelectionMode.FREE), _query(sample, 0), KgAgentTeacher(lines))
