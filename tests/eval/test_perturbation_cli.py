"""`arkg eval --perturb` and the report's perturbation table, with a scripted model that answers from
whatever facts it is shown (as a grounded strategy should)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arkg.eval.setup
from arkg.cli import app
from arkg.eval.report import build_report, perturbation_effects
from arkg.llm.scripted import ScriptedModel

ENTRIES = [
    {
        "id": f"S{i}", "query": f"Is Pet {i}, {name}'s pet, of a German breed?", "answer": True, "KG Entities": {f"Pet {i}": ""},
        "KG Triples": f"1- ({name}, has pet, Pet {i}), 2- (Pet {i}, animal breed, dachshund)",
        "Reasoning Strategy": ["set inclusion"],
    }
    for i, name in enumerate(["Yui", "Ann", "Bob"], start=1)
]  # fmt: skip
ENTRIES.append({**ENTRIES[0], "id": "S4", "KG Triples": "1- (Zed, has pet, Pet 9), 2- (Pet 9, animal breed, corgi)",
                "answer": False, "query": "Is Pet 9, Zed's pet, of a German breed?", "KG Entities": {"Pet 9": ""}})  # fmt: skip


def grounded_reply(messages, output, sampling):
    """Yes when a dachshund fact is shown, no when another breed is, unknown when no fact is."""
    facts = messages[-1].content
    keys = output.model_json_schema()["properties"]["cited_keys"]["items"].get("enum", [])
    if "dachshund" in facts:
        return {"cited_keys": keys[:1], "explanation": "x", "answer": "yes"}
    if "animal breed" in facts:
        return {"cited_keys": keys[:1], "explanation": "x", "answer": "no"}
    return {"cited_keys": [], "explanation": "x", "answer": "unknown"}


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: ScriptedModel(grounded_reply))
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(ENTRIES), encoding="utf-8")
    return path


def evaluate(dataset: Path, out: Path, *extra: str) -> None:
    args = ["eval", "--dataset", str(dataset), "--strategy", "kaping", "--out", str(out), "--ids", "S1,S2,S3", *extra]
    result = CliRunner().invoke(app, [*args, "--set", "edges=both"])
    assert result.exit_code == 0, result.output


def test_a_grounded_strategy_abstains_without_its_gold_triples_and_follows_a_replaced_tail(dataset: Path, tmp_path: Path):
    evaluate(dataset, tmp_path / "base.jsonl")
    evaluate(dataset, tmp_path / "removed.jsonl", "--perturb", "remove-gold")
    evaluate(dataset, tmp_path / "replaced.jsonl", "--perturb", "replace-tail")
    systems = build_report([tmp_path / name for name in ("base.jsonl", "removed.jsonl", "replaced.jsonl")])
    effects = {effect.system.config.perturbation: effect for effect in perturbation_effects(systems)}
    removed, replaced = effects["remove-gold"], effects["replace-tail"]
    assert (removed.compared, removed.abstained, removed.changed, removed.correct) == (3, 3, 3, 0)
    # The dachshund tail becomes another breed of the KG (corgi): every answer flips to no.
    assert (replaced.compared, replaced.abstained, replaced.changed, replaced.correct) == (3, 0, 3, 0)
    record = json.loads((tmp_path / "replaced.jsonl").read_text().splitlines()[1])
    assert record["perturbation"] == ["replaced (Pet 1, animal breed, dachshund) by (Pet 1, animal breed, corgi)"]

    report = CliRunner().invoke(app, ["report", *(str(tmp_path / n) for n in ("base.jsonl", "removed.jsonl", "replaced.jsonl"))])
    assert report.exit_code == 0
    assert "Perturbed KGs: does the answer follow the graph?" in report.output
    assert "| remove-gold | 3 | 0 | 100.0 | 100.0 | 0.0 |" in report.output


def test_perturbing_a_store_given_with_db_is_refused(dataset: Path, tmp_path: Path):
    store = tmp_path / "kg.db"
    assert CliRunner().invoke(app, ["kg", "load", str(dataset), "--db", str(store)]).exit_code == 0
    result = CliRunner().invoke(
        app, ["eval", "--dataset", str(dataset), "--strategy", "kaping", "--out", str(tmp_path / "o.jsonl"),
              "--db", str(store), "--perturb", "remove-gold"],
    )  # fmt: skip
    assert result.exit_code == 1 and "perturbations rebuild each question's KG in memory" in result.output


def test_perturbing_the_kg_of_a_strategy_that_reads_none_is_refused_before_any_question_runs(dataset: Path, tmp_path: Path):
    out = tmp_path / "cot.jsonl"
    result = CliRunner().invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "cot", "--out", str(out), "--perturb", "remove-gold"])
    assert result.exit_code == 1, result.output
    assert "--perturb remove-gold" in result.output and "'cot' reads no KG" in result.output
    assert not out.exists()
