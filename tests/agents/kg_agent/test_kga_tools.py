"""Each built-in tool over the bundled sample KG: incoming edges, props, parallel edges, empty sets,
unknown relations, and the provenance of every item."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from arkg.agents.kg_agent import (
    Boolean,
    Entities,
    Executor,
    ExecutorSettings,
    Number,
    Relations,
    ToolError,
    ToolSettings,
    Value,
)
from arkg.agents.kg_agent.tools import default_toolbox
from arkg.agents.retrieval import dense_installed
from arkg.graph import Direction, KnowledgeGraph, Triple

QUESTION = "Which Nobel Prize winners were born in Paris?"


def run(executor: Executor, *lines: str, topics: tuple[str, ...] = ()) -> Value:
    """The value of the last of the lines, run in a fresh memory."""
    memory = executor.start(QUESTION, topics)
    for line in lines:
        executor.execute(memory, line)
    return memory.steps[-1].value


def test_get_relation_lists_out_and_incoming_relations_and_where_they_were_seen(executor: Executor) -> None:
    value = run(executor, 'v1 = get_relation(["Warsaw", "Poland"])')
    assert isinstance(value, Relations)
    assert value.texts() == [
        "capital of",
        "country",
        "capital of (incoming)",
        "country (incoming)",
        "country of citizenship (incoming)",
        "named after (incoming)",
        "place of birth (incoming)",
    ]
    assert {item.label: value.seen_on[item] for item in value.items}["country (incoming)"] == ("Poland",)


def test_an_entity_reached_only_by_incoming_edges_has_only_incoming_relations(executor: Executor) -> None:
    value = run(executor, 'v1 = get_relation(["Nobel Prize"])')
    assert [(item.name, item.direction) for item in value.items] == [("instance of", Direction.IN)]


def test_get_tail_entity_keeps_each_item_with_the_edge_that_reached_it(executor: Executor) -> None:
    value = run(executor, 'v1 = get_tail_entity(["Marie Curie"], "award received")')
    assert isinstance(value, Entities)
    assert value.items == ("Nobel Prize in Physics", "Nobel Prize in Chemistry")
    assert value.support_of("Nobel Prize in Chemistry") == (
        Triple("Marie Curie", "award received", "Nobel Prize in Chemistry", {"point in time": "1911", "source": "nobelprize.org"}),
    )


def test_following_two_hops_chains_the_provenance(executor: Executor) -> None:
    value = run(executor, 'v1 = get_tail_entity(["Marie Curie"], "child")', 'v2 = get_tail_entity(v1, "place of birth")')
    assert value.items == ("Paris",)
    assert value.support_of("Paris") == (
        Triple("Marie Curie", "child", "Irène Joliot-Curie"),
        Triple("Irène Joliot-Curie", "place of birth", "Paris"),
    )


def test_get_head_entity_follows_incoming_edges_and_merges_parallel_paths(executor: Executor) -> None:
    value = run(executor, 'v1 = get_head_entity(["Poland"], "country of citizenship")')
    assert value.items == ("Marie Curie",)
    discovered = run(executor, 'v1 = get_head_entity(["Marie Curie", "Pierre Curie"], "discoverer or inventor")')
    assert discovered.items == ("polonium", "radium")
    assert [t.tail for t in discovered.support_of("polonium")] == ["Marie Curie", "Pierre Curie"]


def test_parallel_edges_between_the_same_entities_are_separate_relations(executor: Executor) -> None:
    spouse = run(executor, 'v1 = get_tail_entity(["Marie Curie"], "spouse")')
    colleague = run(executor, 'v1 = get_tail_entity(["Marie Curie"], "collaborator")')
    assert spouse.items == colleague.items == ("Pierre Curie",)
    assert spouse.support_of("Pierre Curie")[0].props == {"start time": "1895", "end time": "1906"}
    assert colleague.support_of("Pierre Curie")[0].props == {}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('v1 = get_tail_entity(["Marie Curie"], "born in")', "no edge 'born in' leaves Marie Curie; relations that do: "),
        ('v1 = get_tail_entity(["Poland"], "country")', "to follow 'country' into them use get_head_entity"),
        ('v1 = get_head_entity(["Warsaw"], "country")', "to follow 'country' out of them use get_tail_entity"),
        ('v1 = get_tail_entity(["Warsaw"], "country (incoming)")', "use get_tail_entity"),
        ('v1 = get_tail_entity(["Marie Curie"], "start time")', "no edge 'start time'"),
    ],
)
def test_an_unknown_relation_is_an_error_that_points_to_what_exists(executor: Executor, line: str, message: str) -> None:
    with pytest.raises(ToolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(executor, line)


def test_get_entity_by_type_follows_the_type_relations_and_is_capped(sample_kg: KnowledgeGraph) -> None:
    value = run(Executor(sample_kg), 'v1 = get_entity_by_type("Nobel Prize")')
    assert value.items == ("Nobel Prize in Physics", "Nobel Prize in Chemistry") and not value.truncated
    capped = Executor(sample_kg, settings=ExecutorSettings(tools=ToolSettings(type_cap=1)))
    value = run(capped, 'v1 = get_entity_by_type("Nobel Prize")')
    assert value.items == ("Nobel Prize in Physics",) and value.truncated
    with pytest.raises(ToolError, match="no entity has type 'Paris'"):
        run(capped, 'v1 = get_entity_by_type("Paris")')
    other = Executor(sample_kg, settings=ExecutorSettings(tools=ToolSettings(type_relations=("named after",))))
    assert run(other, 'v1 = get_entity_by_type("Poland")').items == ("polonium",)


LAUREATES = 'v1 = get_head_entity(["Nobel Prize in Physics"], "award received")'


def test_constraint_on_text_values_compares_folded_text(executor: Executor) -> None:
    value = run(executor, LAUREATES, 'v2 = get_entity_by_constraint(v1, "place of birth", "=", "paris")')
    assert value.items == ("Pierre Curie", "Henri Becquerel")
    assert value.support_of("Henri Becquerel") == (
        Triple("Henri Becquerel", "award received", "Nobel Prize in Physics", {"point in time": "1903", "source": "nobelprize.org"}),
        Triple("Henri Becquerel", "place of birth", "Paris"),
    )


def test_constraint_on_dates_and_an_empty_result(executor: Executor) -> None:
    before = run(executor, LAUREATES, 'v2 = get_entity_by_constraint(v1, "date of birth", "<", "1 January 1860")')
    assert before.items == ("Pierre Curie", "Henri Becquerel")
    assert run(executor, LAUREATES, 'v2 = get_entity_by_constraint(v1, "date of birth", ">", 1900)').items == ()


def test_argmax_and_argmin_keep_the_extremes_and_cite_every_compared_value(executor: Executor) -> None:
    youngest = run(executor, LAUREATES, 'v2 = get_entity_by_constraint(v1, "date of birth", "argmax")')
    assert youngest.items == ("Marie Curie",)
    assert {t.tail for t in youngest.support_of("Marie Curie") if t.relation == "date of birth"} == {
        "7 November 1867",
        "15 May 1859",
        "15 December 1852",
    }
    assert run(executor, LAUREATES, 'v2 = get_entity_by_constraint(v1, "date of birth", "argmin")').items == ("Henri Becquerel",)


def test_constraint_on_an_edge_prop(executor: Executor) -> None:
    chemists = 'v1 = get_head_entity(["Nobel Prize in Chemistry"], "award received")'
    late = run(executor, chemists, 'v2 = get_entity_by_constraint(v1, "award received", ">", 1920, prop="point in time")')
    assert late.items == ("Irène Joliot-Curie", "Frédéric Joliot-Curie")
    married = run(executor, 'v1 = get_entity_by_constraint(["Marie Curie", "Irène Joliot-Curie"], "spouse", "<=", 1900, prop="start time")')
    assert married.items == ("Marie Curie",)
    with pytest.raises(ToolError, match="has the prop 'colour'"):
        run(executor, chemists, 'v2 = get_entity_by_constraint(v1, "award received", "argmax", prop="colour")')
    with pytest.raises(ToolError, match="needs a value"):
        run(executor, chemists, 'v2 = get_entity_by_constraint(v1, "award received", ">")')


def test_get_candidate_entity_searches_names(executor: Executor) -> None:
    value = run(executor, 'v1 = get_candidate_entity("marie curie")')
    assert value.items[0] == "Marie Curie" and value.support_of("Marie Curie") == ()
    assert run(executor, 'v1 = get_candidate_entity("zzzzqqqq")').items == ()


def test_count_intersect_and_union_keep_the_support_of_both_sides(executor: Executor) -> None:
    lines = ('v1 = get_tail_entity(["Marie Curie"], "field of work")', 'v2 = get_tail_entity(["Pierre Curie"], "field of work")')
    both = run(executor, *lines, "v3 = intersect(v1, v2)")
    assert both.items == ("physics",)
    assert {t.head for t in both.support_of("physics")} == {"Marie Curie", "Pierre Curie"}
    assert run(executor, *lines, "v3 = union(v1, v2)").items == ("physics", "chemistry")
    number = run(executor, *lines, "v3 = union(v1, v2)", "v4 = count(v3)")
    assert isinstance(number, Number) and number.value == 2 and len(number.support) == 3
    assert run(executor, *lines, 'v3 = intersect(v1, ["Paris"])', "v4 = count(v3)").value == 0


@pytest.mark.parametrize(
    ("lines", "verdict"),
    [
        (('v1 = get_tail_entity(["Pierre Curie"], "date of birth")', 'v2 = judge(v1, "<", "1867")'), True),
        (('v1 = get_tail_entity(["Pierre Curie"], "date of birth")', 'v2 = judge(v1, "=", 1859)'), True),
        (('v1 = get_tail_entity(["Marie Curie"], "country of citizenship")', 'v2 = judge(v1, "contains", "France")'), True),
        (('v1 = get_tail_entity(["Marie Curie"], "country of citizenship")', 'v2 = judge(v1, "contains", "Spain")'), False),
        (('v1 = get_tail_entity(["Marie Curie"], "country of citizenship")', 'v2 = judge(v1, "=", "Poland")'), None),
        (('v1 = get_tail_entity(["Warsaw"], "country")', 'v2 = judge(v1, "overlaps", ["France", "Poland"])'), True),
        (('v1 = get_tail_entity(["Warsaw"], "country")', 'v2 = judge(v1, "!=", "poland")'), False),
        (('v1 = get_tail_entity(["Warsaw"], "country")', 'v2 = judge(v1, "<", "Paris")'), None),
        (('v1 = get_tail_entity(["Warsaw"], "country")', 'v2 = intersect(v1, ["Paris"])', 'v3 = judge(v2, "contains", "Paris")'), None),
        (('v1 = get_tail_entity(["Marie Curie"], "child")', 'v2 = count(v1)', 'v3 = judge(v2, ">=", 2)'), True),
    ],
)
def test_judge_settles_true_false_or_none(executor: Executor, lines: tuple[str, ...], verdict: bool | None) -> None:
    value = run(executor, *lines)
    assert isinstance(value, Boolean) and value.value is verdict


def test_end_returns_its_argument_and_finishes_the_program(executor: Executor) -> None:
    memory = executor.start(QUESTION)
    executor.execute(memory, 'v1 = get_tail_entity(["Warsaw"], "country")')
    record = executor.execute(memory, "v2 = end(v1)")
    assert memory.finished and memory.answer == memory.steps[0].value and record.kind.value == "entities"
    with pytest.raises(ToolError, match="the program has ended"):
        executor.execute(memory, "v3 = count(v1)")


def test_retrieve_relation_keeps_the_k_most_similar(executor: Executor) -> None:
    value = run(executor, 'v1 = get_relation(["Marie Curie"])', 'v2 = retrieve_relation("the place of her birth", v1, 2)')
    assert isinstance(value, Relations)
    assert value.texts() == ["place of birth", "date of birth"]
    with pytest.raises(ToolError, match="k must be at least 1"):
        run(executor, 'v1 = get_relation(["Marie Curie"])', 'v2 = retrieve_relation("born", v1, 0)')


def test_disambiguate_entity_picks_the_closest_candidate(executor: Executor) -> None:
    lines = ('v1 = get_tail_entity(["Marie Curie"], "child")',)
    assert run(executor, *lines, 'v2 = disambiguate_entity("Irene", v1)').items == ("Irène Joliot-Curie",)
    assert run(executor, *lines, 'v2 = disambiguate_entity("Eve Curie", v1)').items == ("Ève Curie",)
    assert run(executor, *lines, 'v2 = intersect(v1, ["Paris"])', 'v3 = disambiguate_entity("Eve", v2)').items == ()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('v1 = get_tail_entity(["Marie Curie"])', r"get_tail_entity needs relation: get_tail_entity\(entities, relation\)"),
        ('v1 = get_tail_entity(["Marie Curie"], "child", "x")', "at most 2 positional arguments"),
        ('v1 = get_tail_entity(["Marie Curie"], relation="child", colour=1)', "has no parameter 'colour'"),
        ('v1 = get_tail_entity(["Marie Curie"], "child", relation="child")', "relation is given twice"),
        ('v1 = get_tail_entity(["Marie Curi"], "child")', "'Marie Curi' is not in the knowledge graph; did you mean 'Marie Curie'"),
        ('v1 = get_tail_entity(["Marie Curie"], 3)', "relation must be a quoted relation name, not 3"),
        ('v1 = count(v7)', "there is no variable v7"),
        ('v2 = count(["Paris"])', "this line must bind v1"),
        ('v1 = judge(["Paris"], "=", "x")', "a must be a variable holding entities or number or boolean, not a list of names"),
        ('v1 = judge(v1, "is", "x")', "there is no variable v1"),
        ('v1 = frobnicate(v1)', "there is no tool 'frobnicate'"),
        ('v1 = retrieve_relation("x", ["Paris"], 3)', "relations must be a relations variable"),
    ],
)
def test_misuse_is_a_tool_error_naming_the_problem(executor: Executor, line: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        run(executor, line)


def test_arguments_of_the_wrong_kind_name_the_variable_and_what_it_holds(executor: Executor) -> None:
    with pytest.raises(ToolError, match=r"entities must be an entities variable .*, not v1, which holds relations"):
        run(executor, 'v1 = get_relation(["Paris"])', 'v2 = get_tail_entity(v1, "country")')
    with pytest.raises(ToolError, match=r"op must be one of \"=\", .*\"overlaps\", not 'is'"):
        run(executor, 'v1 = get_tail_entity(["Paris"], "country")', 'v2 = judge(v1, "is", "x")')


@pytest.fixture
def without_dense(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if the `dense` extra were not installed: wordllama cannot be imported."""
    monkeypatch.setitem(sys.modules, "wordllama", None)
    dense_installed.cache_clear()
    yield
    dense_installed.cache_clear()


def test_the_semantic_tools_compare_meaning_with_embeddings_and_say_so(executor: Executor) -> None:
    value = run(executor, 'v1 = get_relation(["Marie Curie"])', 'v2 = retrieve_relation("Where was she born?", v1, 1)')
    assert isinstance(value, Relations) and value.texts() == ["place of birth"]  # no word of the label in the query
    toolbox = default_toolbox()
    for name in ("retrieve_relation", "disambiguate_entity"):
        assert toolbox.get(name).doc.endswith("(by WordLlama embeddings).")


def test_without_the_dense_extra_string_matching_stands_in_and_the_docs_say_so(without_dense: None, sample_kg: KnowledgeGraph) -> None:
    executor = Executor(sample_kg)
    value = run(executor, 'v1 = get_relation(["Marie Curie"])', 'v2 = retrieve_relation("the place of her birth", v1, 2)')
    assert isinstance(value, Relations) and value.texts() == ["place of birth", "date of birth"]
    lines = ('v1 = get_tail_entity(["Marie Curie"], "child")',)
    assert run(executor, *lines, 'v2 = disambiguate_entity("Eve Curie", v1)').items == ("Ève Curie",)
    doc = default_toolbox().get("retrieve_relation").doc
    assert doc.endswith("(by string matching, as the dense extra is not installed: pip install 'arkg[dense]').")
