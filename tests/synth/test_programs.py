"""KG-Agent programs from gold chains: the hops and judge synthesized, the reasons a chain has none,
and the replay of every program with the executor to the gold answer."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arkg.agents.kg_agent import Boolean
from arkg.agents.triple_keys import identity
from arkg.graph.model import Triple
from arkg.synth import Chain, ChainStep, NoProgram, Program, Reason, Source, colota_source, ground_fact, program_for, run_program
from arkg.synth.programs import answer_of, same_answer


def test_sample_chains_become_hops_then_a_judge(sample: Source) -> None:
    lines = {chain.id: program_for(chain, sample.kg).program.lines for chain in sample.chains[:3]}
    assert lines == {
        "sample-1": (
            'v1 = get_tail_entity(["Marie Curie"], "place of birth")',
            'v2 = judge(v1, "contains", "Warsaw")',
            "v3 = end(v2)",
        ),
        "sample-2": (
            'v1 = get_tail_entity(["Pierre Curie"], "date of birth")',
            'v2 = get_tail_entity(["Marie Curie"], "date of birth")',
            'v3 = judge(v1, "<", v2)',
            "v4 = end(v3)",
        ),
        "sample-3": (
            'v1 = get_tail_entity(["Pierre Curie"], "place of birth")',
            'v2 = get_tail_entity(v1, "country")',
            'v3 = judge(v2, "contains", "Poland")',
            "v4 = end(v3)",
        ),
    }


def test_a_chain_needing_more_than_a_judge_has_no_program_and_says_why(sample: Source) -> None:
    with pytest.raises(NoProgram) as failure:
        program_for(sample.chains[3], sample.kg)  # Nobel Prize in Chemistry is a Nobel Prize: not in the path
    assert failure.value.reason is Reason.ONE_VALUE
    assert "award received: 1 entity: Nobel Prize in Chemistry" in failure.value.detail


def _chain(sample: Source, question: str, answer: bool, *edges: tuple[str, str, str], topic: tuple[str, ...] = ()) -> Chain:
    steps = tuple(ChainStep((ground_fact(sample.kg, Triple(*edge)),)) for edge in edges)
    return Chain("test", "t1", question, answer, steps, topic)


def test_a_fact_unreachable_from_the_question_is_disconnected(sample: Source) -> None:
    chain = _chain(sample, "Was Pierre Curie born in a capital?", True, ("Paris", "capital of", "France"), topic=("Pierre Curie",))
    with pytest.raises(NoProgram) as failure:
        program_for(chain, sample.kg)
    assert failure.value.reason is Reason.DISCONNECTED
    assert failure.value.detail == "(Paris, capital of, France): neither end is named in the question or reached by an earlier fact"


def test_two_values_of_one_entity_and_values_of_different_relations_do_not_compare(sample: Source) -> None:
    same_entity = _chain(
        sample, "Did Marie Curie live long?", True,
        ("Marie Curie", "date of birth", "7 November 1867"), ("Marie Curie", "date of death", "4 July 1934"),
    )  # fmt: skip
    with pytest.raises(NoProgram) as failure:
        program_for(same_entity, sample.kg)
    assert failure.value.reason is Reason.INCOMPARABLE and "two values of 'Marie Curie'" in failure.value.detail
    unlike = _chain(
        sample, "Was Henri Becquerel born where Irène Joliot-Curie got her prize?", False,
        ("Henri Becquerel", "place of birth", "Paris"), ("Irène Joliot-Curie", "award received", "Nobel Prize in Chemistry"),
    )  # fmt: skip
    with pytest.raises(NoProgram) as failure:
        program_for(unlike, sample.kg)
    assert failure.value.reason is Reason.INCOMPARABLE
    assert failure.value.detail == "values of 'place of birth' and of 'award received' compare only with commonsense"


def test_a_question_about_amounts_is_not_answered_by_an_overlap(sample: Source) -> None:
    chain = _chain(
        sample, "Did Marie Curie receive more awards than Pierre Curie?", True,
        ("Marie Curie", "award received", "Nobel Prize in Physics"), ("Pierre Curie", "award received", "Nobel Prize in Physics"),
    )  # fmt: skip
    with pytest.raises(NoProgram) as failure:
        program_for(chain, sample.kg)
    assert failure.value.reason is Reason.ARITHMETIC and "(more)" in failure.value.detail


def test_a_program_that_does_not_give_the_gold_answer_is_not_kept(sample: Source) -> None:
    chain = sample.chains[0]
    wrong = Chain(chain.source, chain.id, chain.question, False, chain.steps, chain.topic_entities, program=(
        'v1 = get_tail_entity(["Marie Curie"], "place of birth")', 'v2 = judge(v1, "contains", "Warsaw")', "v3 = end(v2)",
    ))  # fmt: skip
    with pytest.raises(NoProgram) as failure:
        program_for(wrong, sample.kg)
    assert failure.value.reason is Reason.NOT_REPRODUCED and failure.value.detail == "it gives True, the gold answer is False"
    broken = Chain(chain.source, chain.id, chain.question, True, chain.steps, chain.topic_entities, program=("v1 = end(v7)",))
    with pytest.raises(NoProgram, match="the program fails: v1 = end"):
        program_for(broken, sample.kg)


def test_a_hop_over_a_relation_that_retrieve_relation_left_out_is_not_kept(sample: Source) -> None:
    chain = sample.chains[0]  # "Was Marie Curie born in Warsaw?"

    def program(query: str) -> Chain:
        return Chain(chain.source, chain.id, chain.question, True, chain.steps, chain.topic_entities, program=(
            'v1 = get_relation(["Marie Curie"])', f'v2 = retrieve_relation("{query}", v1, 1)',
            'v3 = get_tail_entity(["Marie Curie"], "place of birth")', 'v4 = judge(v3, "contains", "Warsaw")', "v5 = end(v4)",
        ))  # fmt: skip

    assert program_for(program("place of birth"), sample.kg).program.lines[2] == 'v3 = get_tail_entity(["Marie Curie"], "place of birth")'
    with pytest.raises(NoProgram) as failure:
        program_for(program("date of birth"), sample.kg)
    assert failure.value.reason is Reason.NOT_REPRODUCED
    assert failure.value.detail == "line 3 follows 'place of birth', which retrieve_relation did not keep (date of birth)"


def test_every_synthesized_colota_program_replays_to_its_gold_answer(colota_dir: Path) -> None:
    """A program is training data only if it is right: re-executed on the KG, every synthesized program
    gives its question's gold answer, and every question left without one says why."""
    source = colota_source(colota_dir / "CR-LT-QA.json")
    try:
        programs: dict[str, Program] = {}
        reasons: Counter[Reason] = Counter()
        for chain in source.chains:
            try:
                programs[chain.id] = program_for(chain, source.kg).program
            except NoProgram as failure:
                reasons[failure.reason] += 1
        for chain in source.chains:
            if chain.id in programs:
                answer = run_program(source.kg, chain.question, programs[chain.id]).answer
                assert isinstance(answer, Boolean) and answer.value is chain.answer, chain.id
        assert len(programs) >= 25 and sum(reasons.values()) + len(programs) == len(source.chains)
        assert programs["S1"].lines == (
            'v1 = get_tail_entity(["Horsens"], "population")',
            'v2 = get_tail_entity(["Ikast"], "population")',
            'v3 = judge(v1, ">", v2)',
            "v4 = end(v3)",
        )
        assert programs["S11"].lines[-2:] == ('v4 = judge(v1, "overlaps", v3)', "v5 = end(v4)")
        assert reasons[Reason.ONE_VALUE] > 50  # most CoLoTa questions need commonsense about a value
    finally:
        source.close()


def test_every_geography_gold_program_replays_to_its_gold_answer(geo: Source) -> None:
    for chain in geo.chains:
        run = program_for(chain, geo.kg)
        assert run.program.lines == chain.program
        assert same_answer(answer_of(run.memory.answer), chain.answer), chain.id
        evidence = set(map(identity, run.evidence))
        assert set(map(identity, chain.triples)) <= evidence, chain.id
        if not any("get_entity_by_constraint" in line for line in chain.program):
            assert evidence == set(map(identity, chain.triples)), chain.id
