"""ARK's computed comparisons (ArkSettings.compare_values): orderings and counts of cited facts, shown
to the final answer step and kept in the trace."""

from __future__ import annotations

from ark_helpers import answer, reasoning, relation

from arkg.agents.ark import ArkAgent
from arkg.agents.ark.computed import MAX_LINES, computed_lines
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.ark.trace import FinalAnswer
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.trace import TripleRecord
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel


def record(key: str, head: str, relation_: str, tail: str, incoming: bool = False) -> TripleRecord:
    return TripleRecord(key=key, head=head, relation=relation_, tail=tail, incoming=incoming)


def texts(records: list[TripleRecord]) -> list[str]:
    return [line.text for line in computed_lines(records)]


def test_two_cited_latitudes_are_ordered_as_numbers_not_as_text():
    lines = computed_lines([record("T1", "Swindon", "latitude", "51.5580"), record("T2", "Bristol", "latitude", "51.4552")])
    assert [line.text for line in lines] == [
        "Largest latitude cited: Swindon (51.5580); smallest: Bristol (51.4552).",
        "(Swindon, latitude, 51.5580) and (Bristol, latitude, 51.4552): 51.5580 is greater than 51.4552.",
    ]
    assert lines[0].keys == lines[1].keys == ["T1", "T2"]
    assert [line.kind for line in lines] == ["extremes", "ordering"]


def test_negative_numbers_and_thousands_separators_compare_by_value():
    assert texts([record("T1", "Viña del Mar", "latitude", "-33.0246"), record("T2", "Rancagua", "latitude", "-34.1691")]) == [
        "Largest latitude cited: Viña del Mar (-33.0246); smallest: Rancagua (-34.1691).",
        "(Viña del Mar, latitude, -33.0246) and (Rancagua, latitude, -34.1691): -33.0246 is greater than -34.1691.",
    ]
    assert texts([record("T1", "A", "population", "9,000"), record("T2", "B", "population", "10000")]) == [
        "Largest population cited: B (10000); smallest: A (9,000).",
        "(A, population, 9,000) and (B, population, 10000): 9,000 is less than 10000.",
    ]


def test_dates_are_ordered_across_relations_but_numbers_only_within_one():
    dated = texts([record("T1", "Pierre Curie", "date of birth", "15 May 1859"), record("T2", "Marie Curie", "date of death", "1934-07-04")])
    assert dated == [
        "(Pierre Curie, date of birth, 15 May 1859) and (Marie Curie, date of death, 1934-07-04): 15 May 1859 is before 1934-07-04."
    ]
    # An area and a population have no common scale: no line.
    assert texts([record("T1", "Taiwan", "area", "35980"), record("T2", "Taiwan", "population", "16906283")]) == []


def test_the_years_of_a_relation_named_for_years_are_ordered_as_dates():
    years = [record("T1", "Brassa Traidi", "year described", "1921"), record("T2", "Velora Rafukeil", "year described", "1843")]
    assert texts(years) == [
        "Earliest year described cited: Velora Rafukeil (1843); latest: Brassa Traidi (1921).",
        "(Brassa Traidi, year described, 1921) and (Velora Rafukeil, year described, 1843): 1921 is after 1843.",
    ]
    # Amounts stay amounts: a relation not named for years, or a value that is no year.
    assert texts([record("T1", "A", "berths", "1921"), record("T2", "B", "berths", "1843")])[0].startswith("Largest berths cited:")
    assert texts([record("T1", "A", "years active", "12"), record("T2", "B", "years active", "30")])[0].startswith("Largest years active")


def test_equal_values_and_dates_of_different_precision():
    # All the same: no largest or smallest, only the ordering.
    assert texts([record("T1", "A", "area", "12"), record("T2", "B", "area", "12.0")]) == ["(A, area, 12) and (B, area, 12.0): 12 equals 12.0."]
    assert texts([record("T1", "A", "born", "1867"), record("T2", "B", "born", "7 November 1867")])[0].endswith(
        "1867 is the same date as 7 November 1867."
    )


def test_entity_values_are_counted_per_subject_and_compared_across_subjects():
    cited = [
        record("T1", "Portugal", "shares border with", "Spain"),
        record("T2", "Kosovo", "shares border with", "Albania"),
        record("T3", "Kosovo", "shares border with", "Montenegro"),
        record("T4", "Kosovo", "shares border with", "Serbia"),
    ]
    lines = computed_lines(cited)
    assert [line.text for line in lines] == [
        "(Portugal, shares border with, ?): 1 fact cited.",
        "(Kosovo, shares border with, ?): 3 facts cited.",
        "(Portugal, shares border with, ?) 1 fact and (Kosovo, shares border with, ?) 3 facts: 1 is less than 3.",
    ]
    assert lines[2].keys == ["T1", "T2", "T3", "T4"]
    assert [line.kind for line in lines] == ["count", "count", "ordering"]  # two counts compared: an ordering


def test_a_single_value_of_a_single_subject_is_not_counted_and_incoming_edges_count_their_heads():
    assert texts([record("T1", "France", "capital", "Paris")]) == []
    children = [record("T1", "Irène", "child of", "Marie Curie", incoming=True), record("T2", "Ève", "child of", "Marie Curie", incoming=True)]
    assert texts(children) == ["(?, child of, Marie Curie): 2 facts cited."]


def test_the_largest_and_smallest_of_several_subjects_come_first_with_ties_named_together():
    cited = [
        record("T1", "Eritrea", "shares border with", "Sudan"),
        record("T2", "Djibouti", "area", "23000"),
        record("T3", "Ethiopia", "area", "1127127"),
        record("T4", "Sudan", "area", "1861484"),
        record("T5", "Chad", "area", "23000.0"),
    ]
    lines = computed_lines(cited)
    assert lines[0].text == "Largest area cited: Sudan (1861484); smallest: Djibouti (23000), Chad (23000.0)."
    assert lines[0].keys == ["T2", "T3", "T4", "T5"]
    dates = [record("T1", "Marie Curie", "date of birth", "7 November 1867"), record("T2", "Pierre Curie", "date of birth", "15 May 1859")]
    assert texts(dates)[0] == "Earliest date of birth cited: Pierre Curie (15 May 1859); latest: Marie Curie (7 November 1867)."
    # One subject's values, or numbers and dates mixed, have no extremes to name.
    assert not any(text.startswith("Largest") for text in texts([record("T1", "A", "area", "1"), record("T2", "A", "area", "2")]))


def test_the_lines_are_capped():
    cited = [record(f"T{n}", f"City {n}", "latitude", str(n)) for n in range(1, 10)]
    assert len(computed_lines(cited)) == MAX_LINES


def curie_kg() -> SQLiteGraph:
    kg = SQLiteGraph()
    kg.add_triples(
        [
            Triple("Pierre Curie", "date of birth", "15 May 1859"),
            Triple("Marie Curie", "date of birth", "7 November 1867"),
        ]
    )
    return kg


def curie_replies() -> list[dict]:
    return [
        {"anchor_entity": "Pierre Curie"},
        relation("date of birth"),
        reasoning(["T1"], "Pierre Curie was born on 15 May 1859.", more=True),
        {"anchor_entity": "Marie Curie"},
        relation("date of birth"),
        reasoning(["T2"], "Marie Curie was born on 7 November 1867."),
        answer("yes", "15 May 1859 is before 7 November 1867."),
    ]


def run(compare_values: bool) -> tuple[ScriptedModel, FinalAnswer]:
    model = ScriptedModel.from_replies(curie_replies())
    settings = ArkSettings(mode=SelectionMode.FREE, compare_values=compare_values)
    result = ArkAgent(curie_kg(), model, settings).ask("Was Pierre Curie born before Marie Curie?")
    final = result.trace.events[-1]
    assert isinstance(final, FinalAnswer)
    return model, final


def test_with_the_setting_the_answer_prompt_states_the_computed_order_and_the_trace_keeps_it():
    model, final = run(compare_values=True)
    prompt = model.calls[-1].messages[-1].content
    expected = [
        "Earliest date of birth cited: Pierre Curie (15 May 1859); latest: Marie Curie (7 November 1867).",
        "(Pierre Curie, date of birth, 15 May 1859) and (Marie Curie, date of birth, 7 November 1867): 15 May 1859 is before 7 November 1867.",
    ]
    assert "Computed exactly from the cited facts:\n" + "\n".join(f"- {line}" for line in expected) in prompt
    assert [(line.text, line.keys) for line in final.computed] == [(line, ["T1", "T2"]) for line in expected]
    # Only the answer step sees it: the exploration prompts are those of the paper's loop.
    assert all("Computed" not in call.messages[-1].content for call in model.calls[:-1])


def test_without_the_setting_the_answer_prompt_is_the_papers():
    model, final = run(compare_values=False)
    assert "Computed" not in model.calls[-1].messages[-1].content
    assert final.computed == []


def test_a_fact_cited_again_along_its_outgoing_edge_is_still_counted_with_the_incoming_reading():
    kg = SQLiteGraph()
    users = ["Cook Islands", "Niue", "New Zealand"]
    kg.add_triples([Triple(country, "currency", "New Zealand Dollar") for country in users])
    model = ScriptedModel.from_replies(
        [
            {"anchor_entity": "New Zealand Dollar"},
            relation("currency (incoming)"),
            reasoning(["T1", "T2", "T3"], "Three countries use it.", more=True),
            {"anchor_entity": "New Zealand"},
            relation("currency"),
            reasoning(["T3"], "New Zealand uses it."),
            answer("3", "Three facts name the New Zealand Dollar."),
        ]
    )
    settings = ArkSettings(mode=SelectionMode.FREE, compare_values=True, edges=EdgeSet.BOTH)
    ArkAgent(kg, model, settings).ask("How many countries use the New Zealand Dollar?")
    assert "- (?, currency, New Zealand Dollar): 3 facts cited." in model.calls[-1].messages[-1].content


def species_run(snap: bool) -> FinalAnswer:
    kg = SQLiteGraph()
    kg.add_triples([Triple("Velora Rafukeil", "described by", "R. Sand"), Triple("Tirsa Trus", "described by", "R. Sand")])
    model = ScriptedModel.from_replies(
        [
            {"anchor_entity": "R. Sand"},
            relation("described by (incoming)"),
            reasoning(["T1", "T2"], "R. Sand described two species."),
            answer("Velora Rafieil, Tirsa Trus", "R. Sand described both."),
        ]
    )
    settings = ArkSettings(mode=SelectionMode.FREE, edges=EdgeSet.BOTH, snap_names=snap)
    final = ArkAgent(kg, model, settings).ask("Which species did R. Sand describe?").trace.events[-1]
    assert isinstance(final, FinalAnswer)
    return final


def test_an_open_answer_names_the_cited_entities_as_the_kg_writes_them_and_the_trace_says_so():
    final = species_run(snap=True)
    assert final.answer == "Velora Rafukeil; Tirsa Trus"
    assert final.note == "names written as in the cited facts: 'Velora Rafieil' -> 'Velora Rafukeil'"


def test_without_the_setting_the_answer_is_the_model_text():
    final = species_run(snap=False)
    assert final.answer == "Velora Rafieil, Tirsa Trus" and final.note is None
