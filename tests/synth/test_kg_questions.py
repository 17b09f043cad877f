"""Questions from any KG (arkg.synth.kg_questions): every template on a KG built here in a real SQLite
file, each gold answer recomputed by replaying its program, the ambiguities skipped, type-like
relations told by shape, the anchor split, and the bundled sample KG."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import json
import random
from contextlib import closing

import pytest
from support.question_kg import question_kg_store, MEMBER_OF, MISLEADING

from arkg.graph.model import Triple
from arkg.graph.open import open_graph
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.kg_questions import TEMPLATES, generate, split_by_anchor
from arkg.synth.kg_questions.profiles import Holds, Profiles
from arkg.synth.kg_questions.sample import walk
from arkg.synth.kg_questions.view import KGView
from arkg.synth.kg_questions.wording import relation_words
from arkg.synth.programs import Program, answer_of, run_program, same_answer


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return question_kg_store(tmp_path_factory.mktemp("kg"))


@pytest.fixture(scope="module")
def made(db: Path):
    with SQLiteGraph(db, create=False, read_only=True) as kg:
        return generate(kg, limit=400, seed=3)


def test_every_template_makes_questions_and_each_gold_replays(db: Path, made) -> None:
    assert set(Counter(q.template for q in made.questions)) == {template.name for template in TEMPLATES}
    assert made.skipped["gold not replayed"] == 0
    with SQLiteGraph(db, create=False, read_only=True) as kg:
        for question in made.questions:
            memory = run_program(kg, question.question, Program(tuple(question.program), tuple(question.entities)))
            gold = tuple(question.answer) if isinstance(question.answer, list) else question.answer
            assert same_answer(answer_of(memory.answer), gold), question
            assert all(triple in kg.triples(triple.head, triple.relation) for triple in question.evidence), question
            assert question.program[-1].split(" = ")[1].startswith("end(")


def test_yes_no_questions_are_balanced_and_both_polarities_are_asked(made) -> None:
    answers = Counter(q.answer for q in made.questions if isinstance(q.answer, bool))
    assert answers[True] and abs(answers[True] - answers[False]) <= 1
    for template in ("compare", "member", "is-kind", "has-kind"):
        assert {q.answer for q in made.questions if q.template == template} == {True, False}, template
    assert {q.hops for q in made.questions} == {1, 2, 3}


def test_an_ambiguous_gold_is_skipped(made) -> None:
    named = {name for q in made.questions for name in q.entities}
    assert not named & {"Springfield", "springfield"}  # two entities, one name up to case
    assert not any(t in MISLEADING for q in made.questions for t in q.evidence)
    assert made.skipped["a name two entities share"] and made.skipped["a prop value that looks like a tail"]
    for question in made.questions:  # a set question wherever a lookup has several answers
        if isinstance(question.answer, list) and len(question.answer) > 1 and question.template != "pick":
            assert question.question.startswith(("List", "What are all", "Name", "Which entities", "What kinds"))


def test_type_like_relations_are_told_by_shape_not_by_name(db: Path) -> None:
    with SQLiteGraph(db, create=False, read_only=True) as kg:
        view = KGView(kg)
        profiles = Profiles(view, walk(view, 200, random.Random(0)))
        assert profiles["est"].holds is Holds.KINDS
        assert profiles["type"].holds is Holds.ENTITIES
        assert profiles["birthDate"].holds is Holds.DATES and profiles["population"].holds is Holds.NUMBERS


def test_wordings_come_from_relation_names() -> None:
    assert relation_words("birthDate") == "birth date"
    assert relation_words("date_of_birth") == "date of birth"
    assert relation_words(MEMBER_OF) == "member of"
    assert relation_words("rdf:type") == "type"
    assert relation_words("http://schema.org/ISBN") == "ISBN"


def test_the_same_seed_gives_the_same_questions(db: Path, made) -> None:
    with SQLiteGraph(db, create=False, read_only=True) as kg:
        again = generate(kg, limit=400, seed=3)
        other = generate(kg, limit=400, seed=4)
    assert [q.question for q in again.questions] == [q.question for q in made.questions]
    assert [q.question for q in other.questions] != [q.question for q in made.questions]


def test_no_test_anchor_appears_in_training(made) -> None:
    split, dropped = split_by_anchor(made.questions, 0.3, seed=1)
    test_anchors = {q.entities[0] for q in split if q.split == "test"}
    train = [q for q in split if q.split == "train"]
    assert test_anchors and train and len(split) + dropped == len(made.questions)
    assert not any(test_anchors & set(q.entities) for q in train)


def test_the_sample_kg_gives_replayed_questions() -> None:
    with open_graph("sample") as kg:
        made = generate(kg, limit=30)
        assert len(made.questions) == 30
        for question in made.questions:
            memory = run_program(kg, question.question, Program(tuple(question.program), tuple(question.entities)))
            gold = tuple(question.answer) if isinstance(question.answer, list) else question.answer
            assert same_answer(answer_of(memory.answer), gold)


# The protocol suite's Wikidata-shaped fixture (tests/graph/fixtures).
WIKIDATA_TTL = Path(__file__).parents[1] / "graph" / "fixtures" / "wikidata_small.ttl"
WIKIDATA_FACTS = WIKIDATA_TTL.with_suffix(".json")


@pytest.fixture(params=["sparql", "bolt"])
def remote(request: pytest.FixtureRequest, tmp_path: Path):
    """The Wikidata-shaped fixture on a real oxigraph SPARQL server, and its facts on a real FalkorDB."""
    from support.bolt import falkordb

    from arkg.graph.bolt import BoltGraph, BoltWriter
    from arkg.graph.sparql import SparqlGraph
    from arkg.graph.sparql.local_server import serve_rdf

    if request.param == "sparql":
        with serve_rdf(WIKIDATA_TTL, tmp_path) as url:
            with closing(SparqlGraph(url, "wikidata")) as graph:
                yield graph
    else:
        facts = [Triple(**record) for record in json.loads(WIKIDATA_FACTS.read_text(encoding="utf-8"))]
        with falkordb(tmp_path) as url:
            with BoltWriter(url) as writer:
                writer.add_triples(facts)
            with BoltGraph(url) as graph:
                yield graph


def test_questions_come_from_sparql_and_bolt_stores_and_replay_there(remote) -> None:
    made = generate(remote, limit=12)
    assert len(made.questions) == 12
    for question in made.questions:
        memory = run_program(remote, question.question, Program(tuple(question.program), tuple(question.entities)))
        gold = tuple(question.answer) if isinstance(question.answer, list) else question.answer
        assert same_answer(answer_of(memory.answer), gold)
