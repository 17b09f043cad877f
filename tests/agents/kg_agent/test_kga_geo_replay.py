"""Gold programs are reachable by the planner: a model that replies with the gold lines of
generated geography questions (one per template) gets the gold answer, citing the gold evidence,
in constrained mode (each gold line is one of the options offered) and in free mode."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.agents.kg_agent import KgAgent, KgAgentSettings, LineAttempt
from arkg.agents.kg_agent.answer import SEPARATOR
from arkg.graph.model import triple_key
from arkg.agents.modes import SelectionMode
from arkg.datasets.geo import GeoQuestion, build_geo_kg, generate_questions
from arkg.graph import SQLiteGraph, Triple
from arkg.llm.scripted import ScriptedModel


@pytest.fixture(scope="module")
def geo_kg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteGraph]:
    path: Path = tmp_path_factory.mktemp("geo") / "geo.db"
    build_geo_kg(path, min_city_population=1_000_000)
    with SQLiteGraph(path, create=False) as graph:
        yield graph


@pytest.fixture(scope="module")
def one_per_template(geo_kg: SQLiteGraph) -> list[GeoQuestion]:
    return generate_questions(geo_kg.iter_triples(), seed=3, per_template=1)


def matches_gold(answer: object, gold: bool | int | list[str]) -> bool:
    if isinstance(gold, bool):
        return answer is gold
    if isinstance(gold, int):
        return answer == str(gold)
    return isinstance(answer, str) and sorted(answer.split(SEPARATOR)) == sorted(gold)


def keys(triples: list[dict] | list[Triple]) -> set[tuple]:
    return {triple_key(t if isinstance(t, Triple) else Triple(**t)) for t in triples}


@pytest.mark.parametrize("mode", [SelectionMode.CONSTRAINED, SelectionMode.FREE])
def test_replaying_gold_lines_reproduces_the_gold_answer_and_evidence(
    geo_kg: SQLiteGraph, one_per_template: list[GeoQuestion], mode: SelectionMode
) -> None:
    kinds = {question.kind for question in one_per_template}
    assert kinds == {"lookup", "verification", "comparison", "count", "superlative"} and len(one_per_template) >= 30
    settings = KgAgentSettings(mode=mode)
    for question in one_per_template:
        replies = question.program if mode is SelectionMode.CONSTRAINED else [{"line": line} for line in question.program]
        model = ScriptedModel.from_replies(replies)  # a gold line that is not offered fails the call
        result = KgAgent(geo_kg, model, settings).ask(question.question)
        assert set(question.entities) <= set(result.trace.events[0].entities), question.id
        assert result.trace.program == question.program, question.id
        assert all(event.valid for event in result.trace.events if isinstance(event, LineAttempt)), question.id
        assert result.stop_reason == "the program ended", question.id
        assert matches_gold(result.answer, question.answer), (question.id, result.answer, question.answer)
        assert keys(result.cited_triples) == keys(question.evidence), question.id
        assert keys(result.cited_triples) <= keys(result.retrieved_triples), question.id
