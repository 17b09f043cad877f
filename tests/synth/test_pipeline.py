"""One chain through the pipeline: gold decisions of every mode, fact-reading variants whose labels
follow the facts shown, and a record for each run that could not be led."""

from __future__ import annotations

import json
import re
from collections import Counter

from arkg.agents.modes import EdgeSet
from arkg.agents.triple_keys import identity
from arkg.graph.model import Direction
from arkg.synth import Reason, Record, Source, SynthOptions, Variant, program_for, synthesize_chain
from arkg.synth.routes import route_from_program
from arkg.synth.run import _tail_index


# ARK over outgoing edges, as `arkg synth` runs by default (--edges out).
OUTGOING = {"ark": {"edges": EdgeSet.OUT}}


def _answers(records: list[Record], strategy: str, variant: Variant) -> list[dict[str, object]]:
    return [
        json.loads(r.pair.reply) for r in records if r.strategy == strategy and r.variant is variant and r.pair.decision == "answer"
    ]


def test_a_sample_chain_gives_every_decision_and_the_three_readings(sample: Source) -> None:
    result = synthesize_chain(sample.chains[2], sample.kg, SynthOptions(), _tail_index(sample))
    records = result.records
    kinds = Counter((r.strategy, r.pair.decision, r.mode, r.variant.value) for r in records)
    assert kinds == {
        ("ark", "anchor", "constrained", "gold"): 2, ("ark", "relation", "constrained", "gold"): 2,
        ("ark", "reasoning", "constrained", "gold"): 2, ("ark", "anchor", "free", "gold"): 2,
        ("ark", "relation", "free", "gold"): 2, ("ark", "reasoning", "free", "gold"): 2,
        # The final answer's prompt is the same in both modes: one pair, mode "any".
        ("ark", "answer", "any", "gold"): 1, ("kaping", "answer", "any", "gold"): 1,
        ("ark", "answer", "any", "contradicting"): 1, ("kaping", "answer", "any", "contradicting"): 1,
        ("ark", "answer", "any", "unsettled"): 1, ("kaping", "answer", "any", "unsettled"): 1,
        # The planner writes the program's four lines, in each mode.
        ("kg-agent", "line", "constrained", "gold"): 4, ("kg-agent", "line", "free", "gold"): 4,
    }  # fmt: skip
    assert result.unusable == []
    # Gold: Paris is in France, so no. Contradicting: the answer flips with the replaced fact.
    assert [a["answer"] for a in _answers(records, "ark", Variant.GOLD)] == ["no"]
    [flipped] = [r for r in records if r.strategy == "ark" and r.variant is Variant.CONTRADICTING]
    assert json.loads(flipped.pair.reply)["answer"] == "yes" and "Poland" in flipped.pair.messages[-1].content.split("Now answer")[0]
    # Unsettled: ARK stopped after the first hop; KAPING without the evidence.
    [stopped] = [r for r in records if r.strategy == "ark" and r.variant is Variant.UNSETTLED]
    assert "Step 2" not in stopped.pair.messages[-1].content
    assert json.loads(stopped.pair.reply) == {"explanation": "No fact shown gives (Paris, country, ?).", "answer": "unknown"}
    [kaping] = _answers(records, "kaping", Variant.UNSETTLED)
    assert kaping["answer"] == "unknown" and kaping["cited_keys"] == []


def test_retries_add_free_mode_retry_pairs_of_the_gold_route_and_nothing_else(sample: Source) -> None:
    def kinds(retries: bool) -> Counter[tuple[str, str, str, str]]:
        result = synthesize_chain(sample.chains[2], sample.kg, SynthOptions(retries=retries, settings=OUTGOING), _tail_index(sample))
        assert result.unusable == []
        return Counter((r.strategy, r.pair.decision, r.mode, r.variant.value) for r in result.records)

    added = kinds(retries=True) - kinds(retries=False)
    # Step 1: a misspelt anchor and a wrong relation; step 2: a detour to step 1's anchor and away,
    # then a wrong relation at its own.
    assert added == {("ark", "anchor-retry", "free", "gold"): 2, ("ark", "relation-retry", "free", "gold"): 3}


def test_a_chain_without_a_program_gives_gold_pairs_only_and_says_why(sample: Source) -> None:
    result = synthesize_chain(sample.chains[3], sample.kg, SynthOptions(), _tail_index(sample))
    assert result.program is None
    assert {r.variant for r in result.records} == {Variant.GOLD}
    assert [(u.stage, u.reason) for u in result.unusable] == [("program", Reason.ONE_VALUE), ("kaping/any/gold", Reason.NO_LABEL)]
    assert _answers(result.records, "ark", Variant.GOLD) == [
        {"explanation": "The Nobel Prize in Chemistry is a Nobel Prize.", "answer": "yes"}
    ]


def test_an_incoming_hop_is_reported_with_edges_out_and_followed_with_edges_both(geo: Source) -> None:
    chain = next(c for c in geo.chains if c.id.startswith("country_with_capital"))
    tails = _tail_index(geo)
    result = synthesize_chain(chain, geo.kg, SynthOptions(variants=(Variant.GOLD,), settings=OUTGOING), tails)
    ark = [u for u in result.unusable if u.stage.startswith("ark/")]
    assert len(ark) == 2 and all(u.reason is Reason.NOT_FOLLOWED and "edges=out" in u.detail for u in ark)
    both = SynthOptions(variants=(Variant.GOLD,), settings={"ark": {"edges": EdgeSet.BOTH}})
    records = synthesize_chain(chain, geo.kg, both, tails).records
    relations = [r.pair.reply for r in records if r.pair.decision == "relation" and r.mode == "constrained"]
    assert relations == ["capital (incoming)"]
    [answer] = _answers(records, "ark", Variant.GOLD)
    assert answer["answer"] == ", ".join(chain.answer)  # type: ignore[arg-type]


def _facts_and_verdict(explanation: str) -> tuple[list[str], str]:
    """ "From (a); (b). X is less than Y." -> (["(a)", "(b)"], "X is less than Y.")."""
    found = re.fullmatch(r"From (.*[)\]…])\.?(?: (.*))?", explanation)
    if found is None:
        return [], explanation
    return found.group(1).split("; "), found.group(2) or ""


def test_every_label_of_the_geography_set_matches_the_facts_its_prompt_shows(geo: Source) -> None:
    tails = _tail_index(geo)
    checked = Counter()
    for chain in geo.chains[:60]:
        for record in synthesize_chain(chain, geo.kg, SynthOptions(), tails).records:
            if record.pair.decision != "answer":
                continue
            reply = json.loads(record.pair.reply)
            prompt = record.pair.messages[-1].content
            if reply["answer"] == "unknown":
                assert reply["explanation"].startswith(("No fact shown gives", "No fact shown is about")), record
            elif record.variant is Variant.GOLD:
                expected = chain.answer if not isinstance(chain.answer, bool) else ("yes" if chain.answer else "no")
                assert reply["answer"] == (", ".join(expected) if isinstance(expected, tuple) else str(expected))
            facts, verdict = _facts_and_verdict(reply["explanation"])
            for fact in facts:
                if fact.startswith("(") and not fact.endswith("…"):  # the last one may be cut to fit the reply
                    assert fact in prompt  # an explanation only names facts the prompt shows
            if reply["answer"] in ("yes", "no"):
                # A yes/no reply spells out the comparison it comes from before answering.
                assert verdict.endswith(".") and (" is " in verdict or " are " in verdict), reply
            checked[record.variant] += 1
    assert min(checked.values()) > 10


def test_the_same_seed_gives_the_same_pairs(geo: Source) -> None:
    tails = _tail_index(geo)
    chains = geo.chains[:8]
    first = [synthesize_chain(c, geo.kg, SynthOptions(seed=3), tails).records for c in chains]
    again = [synthesize_chain(c, geo.kg, SynthOptions(seed=3), tails).records for c in chains]
    assert first == again


def test_a_route_reads_every_entity_a_later_step_starts_from(geo: Source) -> None:
    chain = next(c for c in geo.chains if c.id.startswith("least_populous_neighbour"))
    run = program_for(chain, geo.kg)
    route = route_from_program(geo.kg, run.memory, run.evidence)
    country = chain.topic_entities[0]
    borders = geo.kg.triples(country, "shares border with")
    assert (route[0].anchor, route[0].relation) == (country, "shares border with")
    # All the neighbours whose populations are compared, not only the least populous one.
    assert route[0].triples == tuple(borders) and len(borders) > 1
    assert [(step.anchor, step.relation) for step in route[1:]] == [(t.tail, "population") for t in borders]


def test_a_count_over_a_threshold_rests_on_every_value_it_weighed(geo: Source) -> None:
    """Not only the cities above the threshold: a route that read those alone would count in hindsight."""
    chain = next(c for c in geo.chains if c.id.startswith("count_big_cities-") and c.answer == 0)
    country = chain.topic_entities[0]
    cities = geo.kg.triples(country, "country", Direction.IN)
    assert chain.triples == () and cities  # the source's evidence: the cities kept, here none
    run = program_for(chain, geo.kg)
    populations = [t for city in cities for t in geo.kg.triples(city.head, "population")]
    assert set(map(identity, run.evidence)) == set(map(identity, [*cities, *populations]))
    route = route_from_program(geo.kg, run.memory, run.evidence)
    assert [(step.anchor, step.label) for step in route] == [
        (country, "country (incoming)"),
        *((city.head, "population") for city in cities),
    ]
