"""The multi-domain source: fictional KGs of many domains and their questions, deterministic for a
seed, right by construction, balanced, disjoint from the held-out domains, and fed through the
synthesis pipeline and `arkg synth --domains` end to end."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arkg.cli import synth as synth_cli
from arkg.datasets.geo.questions import GeoQuestion
from arkg.graph.literals import compare
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth import SynthOptions, Variant, parse_split, synthesize
from arkg.synth.domains import HELD_OUT_DOMAINS, TRAINING_DOMAINS, DomainGraph, build_domains, generate_questions
from arkg.synth.programs import Program, answer_of, run_program, same_answer
from arkg.synth.sources import domains_source


@pytest.fixture(scope="module")
def domains() -> list[tuple[DomainGraph, list[GeoQuestion]]]:
    graphs = build_domains(TRAINING_DOMAINS + HELD_OUT_DOMAINS, seed=3)
    return [(graph, generate_questions(graph, seed=3)) for graph in graphs]


def test_the_same_seed_gives_the_same_kgs_and_questions_and_another_seed_others() -> None:
    first, again = (build_domains(TRAINING_DOMAINS[:3], seed=7) for _ in range(2))
    assert [g.triples for g in first] == [g.triples for g in again]
    assert [generate_questions(g, seed=7) for g in first] == [generate_questions(g, seed=7) for g in again]
    other = build_domains(TRAINING_DOMAINS[:3], seed=8)
    assert other[0].triples != first[0].triples
    # A domain's KG does not depend on which domains follow it.
    assert build_domains(TRAINING_DOMAINS[:1], seed=7)[0].triples == first[0].triples


def test_there_are_many_training_domains_each_with_its_own_relations_and_every_value_kind() -> None:
    assert len(TRAINING_DOMAINS) >= 8 and len(HELD_OUT_DOMAINS) >= 3
    kinds = {value.kind for domain in TRAINING_DOMAINS for value in domain.values}
    assert kinds == {"date", "year", "quantity"}
    assert any(value.unit for domain in TRAINING_DOMAINS for value in domain.values)
    for domain in TRAINING_DOMAINS:
        others = set().union(*(d.relations for d in TRAINING_DOMAINS if d is not domain))
        assert domain.relations - others, f"{domain.name} has no relation of its own"


def test_held_out_relations_and_entity_types_are_never_seen_in_training() -> None:
    training_relations = set().union(*(d.relations for d in TRAINING_DOMAINS))
    training_types = set().union(*(d.type_names for d in TRAINING_DOMAINS))
    for domain in HELD_OUT_DOMAINS:
        assert domain.relations.isdisjoint(training_relations), domain.name
        assert domain.type_names.isdisjoint(training_types), domain.name
    graphs = build_domains(HELD_OUT_DOMAINS, seed=0)
    used = {t.relation for g in graphs for t in g.triples}
    assert used.isdisjoint(training_relations)


def test_no_two_domains_share_an_entity_name(domains: list[tuple[DomainGraph, list[GeoQuestion]]]) -> None:
    owner: dict[str, str] = {}
    for graph, _ in domains:
        for name in {n for t in graph.triples for n in (t.head, t.tail)} & {n for names in graph.entities.values() for n in names}:
            assert owner.setdefault(name.casefold(), graph.domain.name) == graph.domain.name, name


def test_every_gold_answer_is_what_its_program_computes_on_a_real_store(
    domains: list[tuple[DomainGraph, list[GeoQuestion]]], tmp_path: Path
) -> None:
    for graph, questions in domains:
        with SQLiteGraph(tmp_path / f"{graph.domain.name}.db") as kg:
            kg.add_triples(graph.triples)
            for question in questions:
                memory = run_program(kg, question.question, Program(tuple(question.program), tuple(question.entities)))
                gold = tuple(question.answer) if isinstance(question.answer, list) else question.answer
                assert same_answer(answer_of(memory.answer), gold), question


def test_gold_answers_recomputed_from_the_triples(domains: list[tuple[DomainGraph, list[GeoQuestion]]]) -> None:
    """Independently of the executor: one-hop lookups and counts, comparisons, and every evidence triple."""
    checked: Counter[str] = Counter()
    for graph, questions in domains:
        out: dict[tuple[str, str], set[str]] = defaultdict(set)
        into: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t in graph.triples:
            out[(t.head, t.relation)].add(t.tail)
            into[(t.tail, t.relation)].add(t.head)
        for question in questions:
            assert all(triple in graph.triples for triple in question.evidence), question.id
            [subject, *_] = question.entities
            relation = question.evidence[0].relation
            if question.template in ("lookup", "count"):
                expected = out[(subject, relation)]
            elif question.template in ("lookup-in", "count-in"):
                expected = into[(subject, relation)]
            elif question.template == "compare":
                a, b = question.entities
                op = "<" if '"<"' in question.program[-2] else ">"
                [left], [right] = out[(a, relation)], out[(b, relation)]
                assert compare(left, op, right) is question.answer, question
                checked["compare"] += 1
                continue
            else:
                continue
            found = len(expected) if question.template.startswith("count") else expected
            assert found == (question.answer if isinstance(question.answer, int) else set(question.answer)), question
            checked[question.template] += 1
    assert min(checked.values()) > 50 and len(checked) == 5


def test_yes_no_answers_are_balanced_and_comparisons_go_both_ways(domains: list[tuple[DomainGraph, list[GeoQuestion]]]) -> None:
    ops: Counter[tuple[str, bool]] = Counter()
    for graph, questions in domains:
        answers = Counter(q.answer for q in questions if isinstance(q.answer, bool))
        assert abs(answers[True] - answers[False]) <= 1 and answers[True] > 5, graph.domain.name
        for q in questions:
            if q.kind == "comparison" and isinstance(q.answer, bool):
                ops[("<" if '"<"' in q.program[-2] else ">", q.answer)] += 1
            if q.template == "compare-open":
                ops[("argmin" if "argmin" in q.program[-2] else "argmax", True)] += 1
    assert set(ops) == {("<", True), ("<", False), (">", True), (">", False), ("argmin", True), ("argmax", True)}


def test_questions_span_one_to_three_hops_and_every_template(domains: list[tuple[DomainGraph, list[GeoQuestion]]]) -> None:
    questions = [q for _, qs in domains for q in qs]
    assert {q.hops for q in questions} == {1, 2, 3}
    assert {q.template for q in questions} == {
        "lookup", "lookup-in", "chain-2", "chain-3", "compare", "compare-2hop", "compare-open", "count", "count-in", "member", "member-2hop",
        "member-kind", "member-kind-2hop",
    }  # fmt: skip
    # An answer never appears in its own question, except as one of the alternatives offered.
    for q in questions:
        if isinstance(q.answer, list):
            assert all(name in q.entities or name not in q.question for name in q.answer), q


def test_a_kind_question_is_settled_by_the_kinds_of_what_its_subject_reaches(
    domains: list[tuple[DomainGraph, list[GeoQuestion]]],
) -> None:
    """Recomputed from the triples: some tail of the subject's link (after the noun hops) has the kind named."""
    asked: Counter[tuple[str, bool]] = Counter()
    for graph, questions in domains:
        out: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t in graph.triples:
            out[(t.head, t.relation)].add(t.tail)
        for question in (q for q in questions if q.template.startswith("member-kind")):
            subject, named = question.entities
            relations = [line.split('"')[-2] for line in question.program if "get_tail_entity" in line]
            *hops, link, kind = relations
            reached = {subject}
            for relation in hops:
                [reached] = [out[(entity, relation)] for entity in reached]
            tails = set().union(*(out[(entity, link)] for entity in reached))
            kinds = set().union(*(out[(tail, kind)] for tail in tails))
            assert kind == "instance of" and (named in kinds) is question.answer, question
            assert named in question.question and question.hops == len(relations)
            asked[(graph.domain.name, question.answer)] += 1
    assert {domain for domain, _ in asked} == {"film", "music", "cooking"}
    assert all(asked[(domain, True)] and asked[(domain, False)] for domain, _ in asked)


def test_kinds_leave_the_rest_of_every_domain_as_it_was_without_them() -> None:
    """Kind types and links draw on their own random stream: the KG and the questions of every other
    template are those of the same domain without kinds (recorded tuning data stays reproducible)."""
    bare = [
        replace(domain, kind_types=(), kind_links=(), links=tuple(replace(link, check_kind=()) for link in domain.links))
        for domain in TRAINING_DOMAINS
    ]
    for with_kinds, without in zip(build_domains(TRAINING_DOMAINS, seed=5), build_domains(bare, seed=5), strict=True):
        assert with_kinds.triples[: len(without.triples)] == without.triples
        assert {name: with_kinds.entities[name] for name in without.entities} == without.entities
        questions = [q for q in generate_questions(with_kinds, seed=5) if not q.template.startswith("member-kind")]
        assert [(q.id, q.answer) for q in questions] == [(q.id, q.answer) for q in generate_questions(without, seed=5)]


def test_the_source_gives_one_chain_per_question_over_the_union_of_the_domains() -> None:
    source = domains_source(2, seed=0, per_template=2)
    try:
        graphs = build_domains(TRAINING_DOMAINS[:2], seed=0)
        assert len(source.chains) == sum(len(generate_questions(g, 0, 2)) for g in graphs) and not source.unusable
        assert {c.id.split("-")[0] for c in source.chains} == {"film", "music"}
        assert all(c.program and c.split == "train" for c in source.chains)
        assert source.kg.stats().triples == sum(len(g.triples) for g in graphs)
    finally:
        source.close()
    with pytest.raises(ValueError, match="training domains"):
        domains_source(len(TRAINING_DOMAINS) + 1)


def test_domain_chains_become_pairs_of_every_taught_strategy(tmp_path: Path) -> None:
    source = domains_source(1, seed=0, per_template=1)
    try:
        out = tmp_path / "pairs.jsonl"
        report = synthesize([source], out, SynthOptions(variants=(Variant.GOLD,)), parse_split("default"))
    finally:
        source.close()
    [summary] = report.sources
    assert summary.programs == summary.chains == len(source.chains)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["strategy"] for r in records} == set(SynthOptions().strategies)
    assert all(r["source"] == "domains" and r["question_id"].startswith("film-") for r in records)


def test_arkg_synth_domains_writes_pairs_and_records_the_command(tmp_path: Path) -> None:
    app = typer.Typer()
    app.callback()(lambda: None)
    synth_cli.register(app)
    out = tmp_path / "pairs.jsonl"
    args = ["synth", "--out", str(out), "--domains", "1", "--domain-questions", "1", "--variant", "gold", "--strategy", "kg-agent"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    meta = json.loads(out.with_name("pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in meta["sources"]] == ["domains"] and "--domains 1" in meta["command"]
    assert meta["pairs"]["total"] == len(out.read_text(encoding="utf-8").splitlines()) > 0
    bad = CliRunner().invoke(app, ["synth", "--out", str(tmp_path / "x.jsonl"), "--domains", str(len(TRAINING_DOMAINS) + 1)])
    assert bad.exit_code == 2


def test_the_docs_page_names_every_domain_and_relation() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "synth-domains.md").read_text(encoding="utf-8")
    for domain in (*TRAINING_DOMAINS, *HELD_OUT_DOMAINS):
        assert f"| {domain.name} |" in page
        for relation in domain.relations:
            assert f"{relation} (" in page, (domain.name, relation)
