"""The valid next calls: a property test over random memories (every option parses, runs without a
ToolError and refers only to real tools, variables and offered relations), order and cap, and the
free-mode path."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arkg.agents.kg_agent import (
    Executor,
    KnowledgeMemory,
    Names,
    Param,
    ParamType,
    Tool,
    ValueKind,
    VarRef,
    attempt,
    default_toolbox,
    extract_line,
    next_calls,
    parse_call,
)
from arkg.agents.kg_agent.values import Number
from arkg.graph import Direction, KnowledgeGraph

QUESTIONS = [
    ("Was Marie Curie born in Poland?", ["Marie Curie"]),
    ("How many Nobel Prizes did the children of Marie Curie win before 1940?", ["Marie Curie"]),
    ("Who was married to Irène Joliot-Curie in 1930?", ["Irène Joliot-Curie"]),
    ("Which Nobel Prize winners were born in Paris, and which after 1855?", ["Nobel Prize", "Paris"]),
    ("What is named after Poland?", []),
]
LIMIT = 60


def check_option(executor: Executor, memory: KnowledgeMemory, option: str) -> None:
    call = parse_call(option)
    assert call.variable == memory.next_variable and call.text() == option
    assert all((step.call.tool, step.call.args, step.call.kwargs) != (call.tool, call.args, call.kwargs) for step in memory.steps)
    tool = executor.toolbox.get(call.tool)
    bound = tool.bind(call)
    offered = {info.source: info for info in memory.kg_info}
    for param in tool.params:
        arg = bound.get(param.name)
        if isinstance(arg, VarRef):
            memory.value(arg.name)
        if isinstance(arg, Names):
            assert all(executor.kg.has_entity(name) for name in arg.items)
        if param.type == ParamType.RELATION and param.relation_of:
            info = offered[bound[param.relation_of]]  # type: ignore[index]
            assert arg in (info.out if param.direction == Direction.OUT else info.incoming), option
    executor.evaluate(memory, option)  # raises on a ToolError


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(question=st.sampled_from(QUESTIONS), picks=st.lists(st.integers(0, 10_000), max_size=5))
def test_every_option_of_a_random_memory_parses_runs_and_refers_to_what_exists(
    sample_kg: KnowledgeGraph, question: tuple[str, list[str]], picks: list[int]
) -> None:
    # The graph is session-scoped: hypothesis refuses function-scoped fixtures, whose one value all
    # of its examples would share.
    executor = Executor(sample_kg)
    memory = executor.start(*question)
    for pick in [*picks, 0]:
        options = next_calls(executor, memory, limit=LIMIT)
        assert len(options) == len(set(options)) <= LIMIT
        for option in options:
            check_option(executor, memory, option)
        if not options:
            assert memory.finished or not memory.kg_info
            break
        executor.execute(memory, options[pick % len(options)])


def test_options_are_deterministic_and_lead_with_each_tools_best(executor: Executor) -> None:
    def options_once(executor: Executor) -> list[str]:
        memory = executor.start("What are the birth dates of the children of Marie Curie?", ["Marie Curie"])
        executor.execute(memory, 'v1 = get_tail_entity(["Marie Curie"], "child")')
        return next_calls(executor, memory)

    options = options_once(executor)
    assert options == options_once(Executor(executor.kg.kg))
    first_by_tool: dict[str, str] = {}
    for option in options:
        first_by_tool.setdefault(parse_call(option).tool, option)
    assert first_by_tool["count"] == "v2 = count(v1)"
    assert first_by_tool["get_tail_entity"] == 'v2 = get_tail_entity(v1, "date of birth")'
    assert first_by_tool["end"] == "v2 = end(v1)"
    assert first_by_tool["get_tail_entity"] in options[: len(executor.toolbox)]
    assert 'v2 = get_tail_entity(["Marie Curie"], "spouse")' in options  # topic entities stay on offer
    assert 'v2 = get_tail_entity(["Marie Curie"], "child")' not in options  # v1's call again would bind v1's value
    assert 'v2 = get_entity_by_constraint(v1, "date of birth", "argmax")' in options


def test_the_cap_keeps_the_first_options(executor: Executor) -> None:
    memory = executor.start("Which Nobel Prize winners were born in Paris?", ["Nobel Prize", "Paris"])
    executor.execute(memory, 'v1 = get_head_entity(["Nobel Prize"], "instance of")')
    executor.execute(memory, 'v2 = get_head_entity(v1, "award received")')
    everything = next_calls(executor, memory, limit=10_000)
    assert len(everything) > 100
    assert next_calls(executor, memory, limit=25) == everything[:25]
    assert 'v3 = get_entity_by_constraint(v2, "place of birth", "=", "Paris")' in everything
    assert next_calls(executor, memory, limit=0) == []


def test_numbers_and_props_of_the_memory_become_constraint_options(executor: Executor) -> None:
    memory = executor.start("Who received the Nobel Prize in Chemistry after 1920?", ["Nobel Prize in Chemistry"])
    executor.execute(memory, 'v1 = get_head_entity(["Nobel Prize in Chemistry"], "award received")')
    options = next_calls(executor, memory, limit=10_000)
    assert 'v2 = get_entity_by_constraint(v1, "award received", ">", 1920, prop="point in time")' in options
    assert 'v2 = judge(v1, "contains", "Nobel Prize in Chemistry")' in options


def test_judge_options_leave_out_verdicts_known_without_the_values(executor: Executor) -> None:
    """A place and a date: no ordering, equality or overlap between them is offered (its verdict would
    be None or False whatever the graph says); two dates, and a place against a name, are. Nor is a
    variable judged against a name read off itself, unless the question names it."""
    memory = executor.start("Was Marie Curie born in Warsaw, and before Pierre Curie?", ["Marie Curie", "Pierre Curie"])
    executor.execute(memory, 'v1 = get_tail_entity(["Marie Curie"], "place of birth")')
    executor.execute(memory, 'v2 = get_tail_entity(["Marie Curie"], "date of birth")')
    executor.execute(memory, 'v3 = get_tail_entity(["Pierre Curie"], "date of birth")')
    judges = [option for option in next_calls(executor, memory, limit=10_000) if "judge(" in option]
    assert 'v4 = judge(v2, "<", v3)' in judges and 'v4 = judge(v2, "=", v3)' in judges
    assert 'v4 = judge(v1, "contains", "Warsaw")' in judges and 'v4 = judge(v1, "=", "Warsaw")' in judges
    mixed = [option for option in judges if option.startswith(("v4 = judge(v1, ", "v4 = judge(v2, ")) and option.endswith(("v1)", "v2)"))]
    assert mixed == []
    assert not any(option.startswith(("v4 = judge(v2", "v4 = judge(v3")) and '"Warsaw"' in option for option in judges)
    for option in judges:
        assert executor.evaluate(memory, option).value.value is not None, option
    # Marie Curie's birth date against Pierre's is a question; against itself it is not.
    assert 'v4 = judge(v3, "=", "7 November 1867")' in judges
    assert 'v4 = judge(v2, "=", "7 November 1867")' not in judges
    assert 'v4 = judge(v2, "contains", "7 November 1867")' not in judges


def test_symmetric_tools_are_offered_in_either_order(executor: Executor) -> None:
    """Linking lists "Pierre Curie" first; the question names Marie Curie first, as a model would write."""
    memory = executor.start("Who was born earlier, Marie Curie or Pierre Curie?", ["Pierre Curie", "Marie Curie"])
    options = next_calls(executor, memory, limit=10_000)
    for tool in ("union", "intersect"):
        assert f'v1 = {tool}(["Pierre Curie"], ["Marie Curie"])' in options
        assert f'v1 = {tool}(["Marie Curie"], ["Pierre Curie"])' in options


def test_no_options_once_the_program_has_ended(executor: Executor) -> None:
    memory = executor.start("q", ["Paris"])
    executor.execute(memory, 'v1 = get_tail_entity(["Paris"], "country")')
    executor.execute(memory, "v2 = end(v1)")
    assert next_calls(executor, memory) == []


def test_a_registered_tool_gets_docs_execution_and_options_from_its_definition(sample_kg: KnowledgeGraph) -> None:
    def degree(context, entities):  # type: ignore[no-untyped-def]
        return Number(sum(len(context.kg.relations(name, Direction.BOTH)) for name in entities.items))

    toolbox = default_toolbox()
    toolbox.register(Tool("degree", (Param("entities", ParamType.ENTITIES),), ValueKind.NUMBER, "how many relations the entities have.", degree, group="custom"))
    executor = Executor(sample_kg, toolbox)
    assert "custom:\n- degree(entities) -> number: how many relations the entities have." in toolbox.docs()
    memory = executor.start("How connected is Warsaw?", ["Warsaw"])
    assert 'v1 = degree(["Warsaw"])' in next_calls(executor, memory)
    assert executor.execute(memory, 'v1 = degree(["Warsaw"])').sample == ["3"]
    with pytest.raises(ValueError, match="already registered"):
        toolbox.register(Tool("degree", (), ValueKind.NUMBER, "again", degree))


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        ('v2 = count(v1)', "v2 = count(v1)"),
        ('```python\nv2 = count(v1)\n```', "v2 = count(v1)"),
        ("I will count them.\n  v2 = count(v1)\nThat is all.", "v2 = count(v1)"),
        ("count(v1)", "count(v1)"),
        ("", ""),
    ],
)
def test_extract_line_finds_the_binding_line(reply: str, line: str) -> None:
    assert extract_line(reply, "v2") == line


def test_free_mode_runs_good_lines_and_turns_errors_into_feedback(executor: Executor) -> None:
    memory = executor.start("How many children did Marie Curie have?", ["Marie Curie"])
    failed = attempt(executor, memory, 'v1 = get_tail_entity(["Marie Curie"], "children")')
    assert not failed.ok and "relations that do: child" in (failed.error or "") and not memory.steps
    assert "write `v1 = tool(arguments)`" in (attempt(executor, memory, "  \n").error or "")
    done = attempt(executor, memory, 'Sure!\nv1 = get_tail_entity(["Marie Curie"], "child")')
    assert done.ok and done.record is not None and done.record.size == 2 and len(memory.steps) == 1
