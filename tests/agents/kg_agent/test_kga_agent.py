"""The `kg-agent` strategy with a scripted model over the sample KG: exact traces of whole programs,
answers and their citations, claims, free mode with feedback, the step limit, the run budget, and
the constrained Choice being exactly the executor's valid next lines."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arkg.agents import Budget, Query, RunOptions, build_strategy, strategy_info
from arkg.agents.run import BUDGET_SPENT
from arkg.agents.kg_agent import (
    Executor,
    KgAgent,
    KgAgentSettings,
    KgAgentTrace,
    LineAttempt,
    LineReply,
    ProgramEnd,
    StepRecord,
    StopReason,
    TopicEntities,
    ValueKind,
    next_calls,
    planner_messages,
)
from arkg.agents.modes import SelectionMode
from arkg.errors import ArkgError
from arkg.eval.grounding import check_grounding
from arkg.graph import KnowledgeGraph, SQLiteGraph, Triple
from arkg.llm.base import Choice, Message, OutputSpec, Sampling
from arkg.llm.scripted import ScriptedModel

BIRTH = Triple("Marie Curie", "place of birth", "Warsaw")
WARSAW = Triple("Warsaw", "country", "Poland")
BORN_ON = Triple("Marie Curie", "date of birth", "7 November 1867")
PHYSICS = Triple("Marie Curie", "award received", "Nobel Prize in Physics", {"point in time": "1903", "source": "nobelprize.org"})
CHEMISTRY = Triple("Marie Curie", "award received", "Nobel Prize in Chemistry", {"point in time": "1911", "source": "nobelprize.org"})
FREE = KgAgentSettings(mode=SelectionMode.FREE)


def replay(kg: KnowledgeGraph, query: Query, topics: list[str], lines: Sequence[str], settings: KgAgentSettings = KgAgentSettings()):
    """What the planner should have shown and offered before each line: (messages, options) per step."""
    executor = Executor(kg, settings=settings.executor_settings())
    memory = executor.start(query.text, topics)
    expected = []
    for line in lines:
        constrained = settings.mode is SelectionMode.CONSTRAINED
        options = next_calls(executor, memory, settings.max_options, yes_no=query.yes_no) if constrained else None
        expected.append((planner_messages(memory, executor.toolbox, query, constrained=constrained), options))
        executor.execute(memory, line)
    return expected


def without_calls(events: list) -> list[dict]:
    return [event.model_dump(exclude={"call"}) for event in events]


def check_calls(result, model: ScriptedModel, expected) -> None:
    """Each model call saw exactly the replayed memory and, in constrained mode, was offered exactly its options."""
    assert len(model.calls) == len(expected)
    for call, (messages, options) in zip(model.calls, expected):
        assert list(call.messages) == messages
        assert call.output == (Choice(options) if options is not None else LineReply)
    attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
    assert [event.call.shown for event in attempts] == [call.messages[-1].content for call in model.calls]
    assert all(event.call.purpose == "line" for event in attempts)


def test_a_two_hop_question_cites_the_path_and_retrieves_every_triple_read(sample_kg: KnowledgeGraph) -> None:
    question = Query(text="In which country was Marie Curie born?")
    lines = [
        'v1 = get_tail_entity(["Marie Curie"], "place of birth")',
        'v2 = get_tail_entity(["Marie Curie"], "date of birth")',
        'v3 = get_tail_entity(v1, "country")',
        "v4 = end(v3)",
    ]
    model = ScriptedModel.from_replies(lines)
    result = KgAgent(sample_kg, model).ask(question)
    expected = replay(sample_kg, question, ["Marie Curie"], lines)
    check_calls(result, model, expected)
    options = [len(options) for _, options in expected]
    assert without_calls(result.trace.events) == without_calls([
        TopicEntities(entities=["Marie Curie"]),
        LineAttempt(step=1, attempt=1, options=options[0], line=lines[0], call=result.trace.calls[0], record=StepRecord(
            index=1, variable="v1", call=lines[0], tool="get_tail_entity", kind=ValueKind.ENTITIES, size=1,
            sample=["Warsaw"], triples=[BIRTH], triple_count=1, support_count=1)),
        LineAttempt(step=2, attempt=1, options=options[1], line=lines[1], call=result.trace.calls[1], record=StepRecord(
            index=2, variable="v2", call=lines[1], tool="get_tail_entity", kind=ValueKind.ENTITIES, size=1,
            sample=["7 November 1867"], triples=[BORN_ON], triple_count=1, support_count=1)),
        LineAttempt(step=3, attempt=1, options=options[2], line=lines[2], call=result.trace.calls[2], record=StepRecord(
            index=3, variable="v3", call=lines[2], tool="get_tail_entity", kind=ValueKind.ENTITIES, size=1,
            sample=["Poland"], triples=[WARSAW], triple_count=1, support_count=2)),
        LineAttempt(step=4, attempt=1, options=options[3], line=lines[3], call=result.trace.calls[3], record=StepRecord(
            index=4, variable="v4", call=lines[3], tool="end", kind=ValueKind.ENTITIES, size=1,
            sample=["Poland"], triples=[], triple_count=0, support_count=2)),
        ProgramEnd(stop_reason="the program ended", answer="Poland", value_kind=ValueKind.ENTITIES, value=["Poland"]),
    ])  # fmt: skip
    assert result.answer == "Poland" and result.stop_reason == StopReason.DONE.value and not result.claim
    assert result.cited_triples == [BIRTH.as_dict(), WARSAW.as_dict()]  # the date of birth was read, not used
    assert result.retrieved_triples == [BIRTH.as_dict(), BORN_ON.as_dict(), WARSAW.as_dict()]
    assert result.explanation == "\n".join(lines) and result.trace.program == lines
    assert result.usage.calls == 4 and result.trace.usage == result.usage and result.trace.invalid_attempts == 0


def test_a_count_question_answers_the_number_and_cites_what_was_counted(sample_kg: KnowledgeGraph) -> None:
    lines = ['v1 = get_tail_entity(["Marie Curie"], "award received")', "v2 = count(v1)", "v3 = end(v2)"]
    result = KgAgent(sample_kg, ScriptedModel.from_replies(lines)).ask("How many Nobel Prizes did Marie Curie receive?")
    assert result.trace.events[0] == TopicEntities(entities=["Marie Curie", "Nobel Prize"])
    records = [event.record for event in result.trace.events if isinstance(event, LineAttempt)]
    assert [(r.tool, r.kind, r.size, r.sample, r.triple_count, r.support_count) for r in records] == [
        ("get_tail_entity", ValueKind.ENTITIES, 2, ["Nobel Prize in Physics", "Nobel Prize in Chemistry"], 2, 2),
        ("count", ValueKind.NUMBER, 1, ["2"], 0, 2),
        ("end", ValueKind.NUMBER, 1, ["2"], 0, 2),
    ]
    assert result.trace.events[-1] == ProgramEnd(stop_reason="the program ended", answer="2", value_kind=ValueKind.NUMBER, value=["2"])
    assert result.answer == "2"
    assert result.cited_triples == [PHYSICS.as_dict(), CHEMISTRY.as_dict()]
    assert KgAgentTrace.model_validate(result.trace.model_dump(mode="json")) == result.trace  # exports to JSON and back


def test_a_count_over_more_triples_than_a_record_keeps_cites_them_all_as_shown() -> None:
    """A step record keeps 50 of its triples; the rest are still cited, and still count as shown to the
    planner (it saw the line that read them), so the grounding check finds nothing to report."""
    cities = [Triple(f"City {number}", "country", "Land") for number in range(60)]
    with SQLiteGraph() as kg:
        kg.add_triples(cities)
        lines = ['v1 = get_head_entity(["Land"], "country")', "v2 = count(v1)", "v3 = end(v2)"]
        result = KgAgent(kg, ScriptedModel.from_replies(lines)).ask("How many cities lie in Land?")
        assert result.answer == "60"
        first = result.trace.records[0]
        assert (len(first.triples), first.triple_count) == (50, 60)
        assert sorted(map(str, (Triple(**item) for item in result.cited_triples))) == sorted(map(str, cities))
        assert check_grounding(result, kg).violations == []


@pytest.mark.parametrize(("city", "verdict"), [("Warsaw", True), ("Paris", False)])
def test_a_yes_no_question_is_answered_by_judge_with_the_triples_it_rests_on(
    sample_kg: KnowledgeGraph, city: str, verdict: bool
) -> None:
    question = Query(text=f"Was Marie Curie born in {city}?")
    lines = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', f'v2 = judge(v1, "contains", "{city}")', "v3 = end(v2)"]
    model = ScriptedModel.from_replies(lines)
    result = KgAgent(sample_kg, model).ask(question)
    check_calls(result, model, replay(sample_kg, question, ["Marie Curie", city], lines))
    judged = result.trace.events[2]
    assert isinstance(judged, LineAttempt) and judged.record is not None
    assert (judged.record.kind, judged.record.sample) == (ValueKind.BOOLEAN, [str(verdict)])
    assert result.trace.events[-1] == ProgramEnd(
        stop_reason="the program ended", answer=verdict, value_kind=ValueKind.BOOLEAN, value=[str(verdict)]
    )
    assert result.answer is verdict and result.cited_triples == [BIRTH.as_dict()]
    prompt = model.calls[0].messages[-1].content
    assert prompt.startswith("Answer the question by writing a program")
    assert f"Question: Was Marie Curie born in {city}?\n" in prompt
    assert prompt.endswith("This is a yes/no question: end on the result of judge (True, False, or None when the graph does not settle it).\nWrite line v1.")


def test_a_claim_is_verified_and_the_prompt_says_claim(sample_kg: KnowledgeGraph) -> None:
    lines = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Paris")', "v3 = end(v2)"]
    model = ScriptedModel.from_replies(lines)
    result = KgAgent(sample_kg, model).ask("Marie Curie was born in Paris.")
    assert result.claim and result.answer is False and result.cited_triples == [BIRTH.as_dict()]
    for call in model.calls:
        prompt = call.messages[-1].content
        assert prompt.startswith("Verify the claim by writing a program over a knowledge graph, one tool call per line.\n")
        assert "\nClaim: Marie Curie was born in Paris.\n" in prompt and "Question:" not in prompt
        assert "End on the result of judge: True if the claim holds, False if it does not" in prompt


def test_a_yes_no_question_ending_on_entities_is_not_answered(sample_kg: KnowledgeGraph) -> None:
    lines = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', "v2 = end(v1)"]
    replies = [{"line": line} for line in lines]  # free mode: constrained mode does not offer that end
    result = KgAgent(sample_kg, ScriptedModel.from_replies(replies), FREE).ask("Was Marie Curie born in Paris?")
    assert result.answer is None and result.cited_triples == [] and result.retrieved_triples == [BIRTH.as_dict()]
    assert result.stop_reason == "the program ended"
    assert result.trace.events[-1] == ProgramEnd(
        stop_reason="the program ended", answer=None, value_kind=ValueKind.ENTITIES, value=["Warsaw"],
        note="the program ended on entities, not on a judge verdict: a yes/no question needs judge",
    )  # fmt: skip


def test_constrained_mode_ends_a_yes_no_question_only_on_a_judge_verdict(sample_kg: KnowledgeGraph) -> None:
    executor = Executor(sample_kg)
    memory = executor.start("Was Marie Curie born in Paris?", ["Marie Curie"])
    executor.execute(memory, 'v1 = get_tail_entity(["Marie Curie"], "place of birth")')
    assert "v2 = end(v1)" in next_calls(executor, memory, 500)
    assert not [line for line in next_calls(executor, memory, 500, yes_no=True) if "= end(" in line]
    executor.execute(memory, 'v2 = judge(v1, "=", "Paris")')
    ends = [line for line in next_calls(executor, memory, 500, yes_no=True) if "= end(" in line]
    assert ends == ["v3 = end(v2)"]


def test_an_open_question_ending_on_an_empty_set_is_not_answered(sample_kg: KnowledgeGraph) -> None:
    lines = [
        'v1 = get_tail_entity(["Marie Curie"], "child")',
        'v2 = get_entity_by_constraint(v1, "date of birth", "<", 1800)',
        "v3 = end(v2)",
    ]
    result = KgAgent(sample_kg, ScriptedModel.from_replies(lines)).ask("Which children of Marie Curie were born before 1800?")
    assert result.answer is None and result.cited_triples == []
    assert result.trace.events[-1].note == "the program ended on an empty set of entities"


def test_free_mode_feeds_the_error_back_and_takes_the_retry(sample_kg: KnowledgeGraph) -> None:
    question = Query(text="In which country was Marie Curie born?")
    bad = 'v1 = get_tail_entity(["Marie Curie"], "born in")'
    good = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = get_tail_entity(v1, "country")', "v3 = end(v2)"]
    replies = [{"line": bad}, {"line": f"```\n{good[0]}\n```"}, {"line": good[1]}, {"line": good[2]}]
    model = ScriptedModel.from_replies(replies)
    result = KgAgent(sample_kg, model, FREE).ask(question)
    first, second = result.trace.events[1:3]
    error = "no edge 'born in' leaves Marie Curie; relations that do: "
    assert isinstance(first, LineAttempt) and (first.step, first.attempt, first.line, first.valid, first.options) == (1, 1, bad, False, 0)
    assert first.record is None and first.error is not None and first.error.startswith(error) and "place of birth" in first.error
    assert isinstance(second, LineAttempt) and (second.step, second.attempt, second.line, second.valid) == (1, 2, good[0], True)
    assert (second.call.step, second.call.attempt) == (1, 2)
    retry = model.calls[1].messages[-1].content
    assert retry.endswith(
        f"Your line `{bad}` could not run: {first.error}\nWrite line v1 only, as `v1 = tool(arguments)`; call end(v) with the answer."
    )
    assert all(call.output is LineReply for call in model.calls)
    assert "could not run" not in model.calls[2].messages[-1].content  # feedback is for the retry only
    assert result.answer == "Poland" and result.trace.invalid_attempts == 1 and result.usage.calls == 4


def test_free_mode_stops_after_c_max_lines_that_cannot_run(sample_kg: KnowledgeGraph) -> None:
    replies = [{"line": "v1 = fly()"}, {"line": "I think v1 is Warsaw"}, {"line": ""}]
    model = ScriptedModel.from_replies(replies)
    result = KgAgent(sample_kg, model, KgAgentSettings(mode=SelectionMode.FREE, c_max=3)).ask("Was Marie Curie born in Warsaw?")
    attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
    assert [(event.attempt, event.valid) for event in attempts] == [(1, False), (2, False), (3, False)]
    assert attempts[0].error.startswith("there is no tool 'fly'")  # type: ignore[union-attr]
    assert attempts[2].error == "the reply held no line; write `v1 = tool(arguments)`"
    assert result.answer is None and result.stop_reason == StopReason.C_MAX.value and result.usage.calls == 3
    assert result.trace.events[-1] == ProgramEnd(stop_reason=StopReason.C_MAX.value, answer=None)


def first_option(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> str:
    assert isinstance(output, Choice)
    return output.options[0]


def test_the_step_limit_ends_a_program_that_never_calls_end(sample_kg: KnowledgeGraph) -> None:
    model = ScriptedModel(first_option)
    result = KgAgent(sample_kg, model, KgAgentSettings(max_steps=3)).ask("Was Marie Curie born in Warsaw?")
    assert result.trace.program == [
        'v1 = get_relation(["Marie Curie"])',
        'v2 = get_relation(["Warsaw"])',  # v1's call is not offered again
        'v3 = get_tail_entity(["Marie Curie"], "place of birth")',  # the relation closest to "born" first
    ]
    assert result.answer is None and result.cited_triples == [] and result.usage.calls == 3
    assert result.stop_reason == "the step limit (max_steps) was reached before the program ended"
    assert result.trace.events[-1] == ProgramEnd(stop_reason=result.stop_reason, answer=None)


def test_the_run_budget_stops_the_program_before_the_next_call(sample_kg: KnowledgeGraph) -> None:
    lines = ['v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Warsaw")', "v3 = end(v2)"]
    model = ScriptedModel.from_replies(lines)
    events: list = []
    options = RunOptions(budget=Budget(max_calls=2), on_event=events.append)
    result = KgAgent(sample_kg, model).ask("Was Marie Curie born in Warsaw?", options)
    assert len(model.calls) == 2 and result.usage.calls == 2
    assert result.answer is None and result.cited_triples == []
    assert result.stop_reason == StopReason.BUDGET.value == BUDGET_SPENT  # every strategy's budget stop reads alike
    assert result.retrieved_triples == [BIRTH.as_dict()]  # what the two lines that ran had read
    assert result.trace.program == lines[:2]
    end = result.trace.events[-1]
    assert end == ProgramEnd(stop_reason=result.stop_reason, answer=None, note=end.note) and "max_calls=2" in end.note
    assert events == result.trace.events


def test_no_valid_line_means_no_model_call(sample_kg: KnowledgeGraph) -> None:
    model = ScriptedModel(first_option)
    result = KgAgent(sample_kg, model).ask("what is it?")
    assert model.calls == [] and result.answer is None
    assert result.stop_reason == StopReason.NO_OPTIONS.value
    assert result.trace.events == [TopicEntities(entities=[]), ProgramEnd(stop_reason=StopReason.NO_OPTIONS.value, answer=None)]


@pytest.mark.parametrize("max_options", [5, 256])
def test_the_constrained_choice_is_exactly_the_valid_next_lines(sample_kg: KnowledgeGraph, max_options: int) -> None:
    """Every option the planner offers comes from next_calls (whose options are property-tested to
    name only real tools, variables and offered relations), and nothing else is offered."""
    settings = KgAgentSettings(max_options=max_options, max_steps=6)
    question = "Which children of Marie Curie were born after 1900?"
    executor = Executor(sample_kg, settings=settings.executor_settings())
    memory = executor.start(question, ["Marie Curie"])

    def choose(messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> str:
        assert isinstance(output, Choice)
        expected = next_calls(executor, memory, max_options)
        assert list(output.options) == expected and len(expected) <= max_options
        pick = expected[len(memory.steps) % len(expected)]
        executor.execute(memory, pick)
        return pick

    result = KgAgent(sample_kg, ScriptedModel(choose), settings).ask(question)
    assert result.trace.program == [step.call.text() for step in memory.steps] and len(memory.steps) >= 2


def test_settings_are_typed_and_reach_the_strategy(sample_kg: KnowledgeGraph) -> None:
    info = strategy_info("kg-agent")
    assert info.settings is KgAgentSettings and info.max_tokens >= 256
    agent = build_strategy("kg-agent", ScriptedModel(first_option), sample_kg, {"mode": "free", "c_max": 2, "max_steps": 4})
    assert isinstance(agent, KgAgent) and agent.settings == KgAgentSettings(mode=SelectionMode.FREE, c_max=2, max_steps=4)
    with pytest.raises(ArkgError, match="strategy 'kg-agent' has no setting 'k_max'"):
        build_strategy("kg-agent", ScriptedModel(first_option), sample_kg, {"k_max": 3})
    with pytest.raises(ArkgError, match="max_steps"):
        build_strategy("kg-agent", ScriptedModel(first_option), sample_kg, {"max_steps": 0})
    executor = KgAgentSettings(relations_shown=4, focus_variables=2, type_cap=7).executor_settings()
    assert (executor.relations_shown, executor.focus_variables, executor.tools.type_cap) == (4, 2, 7)
