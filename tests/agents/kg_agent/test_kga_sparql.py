"""The executor over a real SPARQL endpoint (oxigraph on 127.0.0.1) answers a program exactly as
over the SQLite store holding the same facts: same step records, same next-call options."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from arkg.agents.kg_agent import Executor, next_calls
from arkg.graph import KnowledgeGraph, SQLiteGraph, Triple
from arkg.graph.sparql import SparqlGraph
from arkg.graph.sparql.local_server import serve_rdf

FIXTURES = Path(__file__).resolve().parents[2] / "graph" / "fixtures"
PROGRAM = [
    'v1 = get_entity_by_type("human")',
    'v2 = get_head_entity(["Borealis Institute"], "employer")',
    "v3 = intersect(v1, v2)",
    'v4 = get_entity_by_constraint(v3, "position held", ">=", "1890", prop="start time")',
    'v5 = get_tail_entity(v4, "award received")',
    'v6 = get_tail_entity(["Borealis Institute"], "headquarters location")',
    'v7 = get_tail_entity(v6, "population")',
    'v8 = judge(v7, ">", 4000)',
    "v9 = end(v8)",
]
QUESTION = "Does the city where the employer of Ada Quill has its headquarters have more than 4000 inhabitants?"


@pytest.fixture(scope="module")
def sparql(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeGraph]:
    with serve_rdf(FIXTURES / "wikidata_small.ttl", tmp_path_factory.mktemp("oxigraph")) as url:
        graph = SparqlGraph(url, "wikidata")
        yield graph
        graph.close()


def sqlite() -> SQLiteGraph:
    store = SQLiteGraph()
    store.add_triples(Triple(**record) for record in json.loads((FIXTURES / "wikidata_small.json").read_text(encoding="utf-8")))
    return store


def run(kg: KnowledgeGraph) -> tuple[list, list[list[str]]]:
    executor = Executor(kg)
    memory = executor.start(QUESTION, ["Ada Quill", "Borealis Institute"])
    options = []
    for line in PROGRAM:
        options.append(next_calls(executor, memory, limit=100))
        executor.execute(memory, line)
    return memory.records, options


@pytest.mark.slow
def test_a_program_over_sparql_matches_the_sqlite_store(sparql: KnowledgeGraph) -> None:
    records, options = run(sparql)
    assert [(r.sample, r.size) for r in records] == [
        (["Ada Quill", "Ben Quill"], 2),
        (["Ada Quill", "Ben Quill"], 2),
        (["Ada Quill", "Ben Quill"], 2),
        (["Ada Quill"], 1),
        (["Tidewatch Prize"], 1),
        (["Port Halden"], 1),
        (["4200"], 1),
        (["True"], 1),
        (["True"], 1),
    ]
    assert records[3].triples == [
        Triple("Ada Quill", "position held", "director", {"start time": "1890-03-15"}),
    ]
    local_records, local_options = run(sqlite())
    assert records == local_records
    assert options == local_options
