"""What shown facts settle (the labels of fact-reading pairs), and the edited KG views they are read from."""

from __future__ import annotations

import pytest

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.ark.teacher import with_plan
from arkg.agents.teaching import NoLabel
from arkg.graph.model import Direction, Triple
from arkg.synth import Source, program_for
from arkg.synth.edited import EditedGraph
from arkg.synth.programs import Program
from arkg.synth.readings import GoldReader, ProgramReader
from arkg.synth.wording import verdict_sentence

BIRTH = Triple("Pierre Curie", "place of birth", "Paris")
COUNTRY = Triple("Paris", "country", "France")
WARSAW = Triple("Warsaw", "country", "Poland")


def _reader(sample: Source) -> ProgramReader:
    chain = sample.chains[2]  # Was Pierre Curie born in Poland? (False)
    run = program_for(chain, sample.kg)
    return ProgramReader(chain.question, run.program, run.evidence)


def test_facts_holding_the_evidence_give_the_programs_answer_and_cite_it(sample: Source) -> None:
    reading = _reader(sample)([Triple("Pierre Curie", "date of birth", "15 May 1859"), BIRTH, COUNTRY])
    assert reading.answer is False and reading.cited == (BIRTH, COUNTRY)
    # The facts, then the comparison the answer comes from.
    assert reading.explanation == "From (Pierre Curie, place of birth, Paris); (Paris, country, France). Poland is not France."
    assert not reading.picked


@pytest.mark.parametrize(
    ("relation", "ordering", "values", "picked"),
    [
        ("population", "argmax", ("2638", "18729160"), "Largest population: Chile."),
        ("area", "argmin", ("12173", "756102"), "Smallest area: Falkland Islands."),
        ("date of birth", "argmin", ("1867-11-07", "1859-05-15"), "Earliest date of birth: Chile."),
    ],
)
def test_an_argmax_or_argmin_answer_names_the_extreme_as_the_computed_lines_do(
    relation: str, ordering: str, values: tuple[str, str], picked: str
) -> None:
    facts = [Triple("Falkland Islands", relation, values[0]), Triple("Chile", relation, values[1])]
    lines = ('v1 = union(["Falkland Islands"], ["Chile"])', f'v2 = get_entity_by_constraint(v1, "{relation}", "{ordering}")', "v3 = end(v2)")
    reader = ProgramReader("Which of the two?", Program(lines, ("Falkland Islands", "Chile")), tuple(facts))
    reading = reader(facts)
    assert reading.answer == (picked.split(": ")[1].rstrip("."),)
    assert reading.explanation.endswith(f"). {picked}")
    assert reading.picked


def test_facts_missing_a_hop_settle_nothing_and_say_which_edge_is_missing(sample: Source) -> None:
    reading = _reader(sample)([BIRTH])
    assert reading.answer is None and reading.cited == (BIRTH,)
    assert reading.explanation == "No fact shown gives (Paris, country, ?)."
    other = _reader(sample)([Triple("Pierre Curie", "date of birth", "15 May 1859")])
    assert other.answer is None and other.explanation == "No fact shown gives (Pierre Curie, place of birth, ?)."
    assert _reader(sample)([]).explanation == "No fact shown is about Pierre Curie."


def test_facts_that_still_give_an_answer_without_all_the_evidence_are_in_doubt(sample: Source) -> None:
    chain = sample.chains[0]  # Was Marie Curie born in Warsaw?
    run = program_for(chain, sample.kg)
    reader = ProgramReader(chain.question, run.program, (*run.evidence, Triple("Marie Curie", "place of birth", "Kraków")))
    with pytest.raises(NoLabel, match="1 of 2 facts of the evidence are not shown, yet the rest gives True"):
        reader(run.evidence)


def test_without_a_program_only_all_the_gold_facts_give_the_answer(sample: Source) -> None:
    reader = GoldReader(True, (BIRTH, COUNTRY), "Because.")
    assert reader([COUNTRY, BIRTH]).answer is True and reader([COUNTRY, BIRTH]).explanation == "Because."
    with pytest.raises(NoLabel, match="1 of the 2 gold facts are not shown"):
        reader([BIRTH])


def test_an_edited_kg_replaces_and_removes_edges_and_leaves_the_base_alone(sample: Source) -> None:
    replaced = Triple("Paris", "country", "Poland")
    edited = EditedGraph(sample.kg, removed=[COUNTRY], added=[replaced])
    assert edited.triples("Paris", "country") == [replaced]
    assert replaced in edited.triples("Poland", "country", Direction.IN)
    assert COUNTRY not in edited.triples("France", "country", Direction.IN)
    assert sample.kg.triples("Paris", "country") == [COUNTRY]
    warsaw = [WARSAW, Triple("Warsaw", "capital of", "Poland"), Triple("Marie Curie", "place of birth", "Warsaw")]
    without = EditedGraph(sample.kg, removed=warsaw)
    assert without.relations("Warsaw") == [] and not without.is_head("Warsaw")
    assert without.relations("Poland", Direction.IN) == ["country of citizenship", "named after"]
    assert without.has_entity("Poland") and not without.has_entity("Warsaw")
    assert "Warsaw" not in [match.name for match in without.search_entities("Warsaw")]
    assert without.relations("Marie Curie") == [r for r in sample.kg.relations("Marie Curie") if r != "place of birth"]
    assert without.relations("Pierre Curie") == sample.kg.relations("Pierre Curie")


def test_the_program_reads_an_edited_kg_as_a_real_one(sample: Source) -> None:
    run = program_for(sample.chains[2], sample.kg)
    reader = ProgramReader(sample.chains[2].question, run.program, (BIRTH, Triple("Paris", "country", "Poland")))
    assert reader([BIRTH, Triple("Paris", "country", "Poland")]).answer is True


def test_a_verdict_reads_as_dates_numbers_or_members() -> None:
    assert verdict_sentence(["15 May 1859"], "<", ["7 November 1867"], True) == "15 May 1859 is before 7 November 1867."
    assert verdict_sentence(["7889094"], ">", ["29495962"], False) == "7889094 is not greater than 29495962."
    assert verdict_sentence(["Brazil", "Peru"], "contains", ["Chile"], False) == "Chile is not among Brazil, Peru."
    assert verdict_sentence(["Asia"], "overlaps", ["Asia"], True) == "Asia is Asia."
    assert verdict_sentence(["Africa", "Asia"], "overlaps", ["Asia"], True) == "Asia is among Africa, Asia."
    assert verdict_sentence(["Africa"], "overlaps", ["Asia", "Europe"], False) == "None of Asia, Europe is among Africa."


def test_an_implication_ends_with_the_next_step_and_keeps_it_whole_when_cut() -> None:
    assert with_plan("Belgrade country: Serbia.", ("Serbia", "continent")) == "Belgrade country: Serbia. Next: Serbia, continent."
    assert with_plan("Serbia continent: Europe.", None) == "Serbia continent: Europe. Enough to answer."
    long = with_plan("Qatar shares border with: " + "Saudi Arabia, " * 30, ("Saudi Arabia", "capital"))
    assert len(long) <= MAX_TEXT_CHARS and long.endswith("… Next: Saudi Arabia, capital.")
