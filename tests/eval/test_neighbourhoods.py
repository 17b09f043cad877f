"""Per-question neighbourhoods fetched from a real SPARQL endpoint (oxigraph on 127.0.0.1): one snapshot
per question, reused offline, and a fetch that resumes where it was interrupted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import arkg.eval.setup
from arkg.eval.results import read_results
from arkg.eval.runner import run_evaluation
from arkg.eval.setup import PER_QUESTION_KG, plan_evaluation
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel

WIKIDATA_TTL = Path(__file__).resolve().parents[1] / "graph" / "fixtures" / "wikidata_small.ttl"
ENTRIES = [
    {
        "id": "S1",
        "query": "Was Ada Quill born before 1860?",
        "answer": True,
        "KG Entities": {"Ada Quill": "Q1"},
        "KG Triples": "1- (Ada Quill, date of birth, 1851-06-02)",
        "Reasoning Strategy": ["number comparison"],
    },
    {
        "id": "S2",
        "query": "Is Port Halden a city?",
        "answer": True,
        "KG Entities": {"Port Halden": "Q4"},
        "KG Triples": "1- (Port Halden, instance of, city)",
        "Reasoning Strategy": ["definition"],
    },
]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_rdf(WIKIDATA_TTL, tmp_path_factory.mktemp("oxigraph")) as url:
        yield url


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    def cite_first(messages, output, sampling):
        keys = output.model_json_schema()["properties"]["cited_keys"]["items"].get("enum", [])
        return {"cited_keys": keys[:1], "explanation": "From the facts.", "answer": "yes"}

    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: ScriptedModel(cite_first))
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(ENTRIES), encoding="utf-8")
    return path


def plan(dataset: Path, cache: Path, db: str | None):
    return plan_evaluation(dataset, "kaping", None, db=db, neighbourhoods=cache, settings={"k": 50})


def test_each_question_runs_on_its_own_snapshot_fetched_once(endpoint: str, dataset: Path, tmp_path: Path) -> None:
    cache = tmp_path / "neighbourhoods"
    first = plan(dataset, cache, f"wikidata:{endpoint}")
    assert first.prefetch() == 2 and sorted(p.name for p in cache.iterdir()) == ["S1.db", "S2.db"]
    with SQLiteGraph(cache / "S1.db", create=False) as snapshot:
        assert snapshot.has_entity("Ada Quill") and not snapshot.has_entity("Port Halden")
    out = tmp_path / "r.jsonl"
    run_evaluation(first.questions, first.setup, first.config, out)
    results = read_results(out)
    assert results.config.kg == f"{PER_QUESTION_KG}:{cache}"
    records = {record.question_id: record for record in results.records}
    # Each question saw its own neighbourhood, where its gold triple lies.
    assert records["S1"].evidence.retrieved_gold == 1 and records["S2"].evidence.retrieved_gold == 1
    assert records["S1"].evidence.unmatched_gold == [] and records["S1"].grounding.violations == []

    # Offline afterwards: no endpoint, the same snapshots.
    again = plan(dataset, cache, None)
    assert again.prefetch() == 0
    run_evaluation(again.questions, again.setup, again.config, tmp_path / "offline.jsonl")
    assert [r.answer for r in read_results(tmp_path / "offline.jsonl").records] == [True, True]


def test_an_interrupted_fetch_keeps_what_it_fetched_and_resumes(endpoint: str, dataset: Path, tmp_path: Path) -> None:
    cache = tmp_path / "neighbourhoods"
    interrupted = plan(dataset, cache, f"wikidata:{endpoint}")
    fetch = interrupted.setup.snapshots.fetch
    calls = []

    def fetch_then_interrupt(seeds, target):
        calls.append(target.name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return fetch(seeds, target)

    interrupted.setup.snapshots.fetch = fetch_then_interrupt
    with pytest.raises(KeyboardInterrupt):
        interrupted.prefetch()
    assert sorted(p.name for p in cache.iterdir() if p.suffix == ".db") == ["S1.db"]
    resumed = plan(dataset, cache, f"wikidata:{endpoint}")
    assert resumed.prefetch() == 1 and (cache / "S2.db").is_file()


def test_a_missing_snapshot_without_an_endpoint_is_a_clear_error(dataset: Path, tmp_path: Path) -> None:
    offline = plan(dataset, tmp_path / "empty", None)
    with pytest.raises(Exception, match=r"no snapshot .*S1\.db for question S1; give --db ENDPOINT"):
        offline.prefetch()
