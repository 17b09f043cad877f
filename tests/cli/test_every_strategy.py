"""Every registered strategy runs through `arkg ask` and `arkg eval`, and one registration is all a new
strategy needs to run through evaluation and reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

import arkg.eval.setup
import arkg.session
from arkg.agents import REGISTRY, Result, RunKit, RunOptions, StrategyInfo, register
from arkg.cli import app
from arkg.llm.base import Choice, Message
from arkg.llm.testing import TestModel

runner = CliRunner()
ENTRIES = [
    {"id": "S1", "query": "Was Marie Curie born in Warsaw?", "answer": True, "KG Entities": {"Marie Curie": "Q7186"},
     "KG Triples": "1- (Marie Curie, place of birth, Warsaw)", "Reasoning Strategy": ["definition"]},
    {"id": "S2", "query": "Was Pierre Curie born in Poland?", "answer": False, "KG Entities": {"Pierre Curie": "Q37463"},
     "KG Triples": "1- (Pierre Curie, place of birth, Paris), 2- (Paris, country, France)",
     "Reasoning Strategy": ["set inclusion"]},
]  # fmt: skip


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    def open_scripted(spec=None, **options):
        return TestModel()

    monkeypatch.setattr(arkg.session, "open_model", open_scripted)
    monkeypatch.setattr(arkg.eval.setup, "open_model", open_scripted)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(ENTRIES), encoding="utf-8")
    return path


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_arkg_ask_runs_every_registered_strategy(scripted, strategy: str) -> None:
    result = runner.invoke(app, ["ask", "Was Marie Curie born in Warsaw?", "--strategy", strategy, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["strategy"] == strategy and answer["answer"] in (True, False, None)


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_arkg_ask_prints_one_answer_line_with_its_basis_for_every_registered_strategy(scripted, strategy: str) -> None:
    """Whatever a strategy's events show, the output has exactly one answer line, and it names the basis
    that --json reports; under an answer its facts do not support, the reasons why."""
    question = ["ask", "Was Marie Curie born in Warsaw?", "--strategy", strategy]
    shown = runner.invoke(app, question, env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    answers = [index for index, line in enumerate(lines) if line.startswith("answer:")]
    assert len(answers) == 1, shown.output
    result = json.loads(runner.invoke(app, [*question, "--json"]).output)
    assert f"  basis: {result['basis']}" in lines[answers[0]]
    support = result["support"]
    assert set(support) == {"supported", "reasons", "closed_world", "note", "missing"} and support["supported"] == (not support["reasons"])
    assert (result["basis"] in ("kg", "kg (closed world)", "kg+commonsense")) == (result["answer"] is not None and support["supported"])
    unsupported = result["answer"] is not None and not support["supported"]
    assert (lines[answers[0] + 1] == "  unsupported: " + "; ".join(support["reasons"])) == unsupported
    if result["answer"] is not None:
        assert lines[answers[0]].endswith("  unsupported" if unsupported else "  supported")


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_arkg_ask_grounded_abstains_on_an_unsupported_answer_for_every_registered_strategy(scripted, strategy: str) -> None:
    question = ["ask", "Was Marie Curie born in Warsaw?", "--strategy", strategy, "--json"]
    plain = json.loads(runner.invoke(app, question).output)
    grounded = json.loads(runner.invoke(app, [*question, "--grounded"]).output)
    supported = plain["answer"] is not None and plain["support"]["supported"]
    assert grounded["answer"] == (plain["answer"] if supported else None)


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_arkg_eval_runs_every_registered_strategy(scripted, dataset: Path, tmp_path: Path, strategy: str) -> None:
    out = tmp_path / f"{strategy}.jsonl"
    result = runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", strategy, "--out", str(out)])
    assert result.exit_code == 0, result.output
    header, *records = (json.loads(line) for line in out.read_text().splitlines())
    assert header["strategy"] == strategy and [r["question_id"] for r in records] == ["S1", "S2"]


class CoinSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    side: str = "yes"


class Coin:
    """A toy strategy: one call choosing yes or no."""

    name = "coin"

    def __init__(self, model, settings: CoinSettings) -> None:
        self.model, self.settings = model, settings

    def ask(self, query, options=None) -> Result:
        kit = RunKit(self.model, options or RunOptions())
        value, _ = kit.complete([Message(role="user", content=query.text)], Choice(["yes", "no"]), "answer")
        return Result(strategy=self.name, question=query.text, answer=value == "yes", usage=kit.usage)


def test_one_registration_runs_a_new_strategy_through_ask_eval_and_report(scripted, dataset: Path, tmp_path: Path):
    register(StrategyInfo("coin", "a toy", CoinSettings, lambda model, kg, settings: Coin(model, settings), uses_kg=False))
    try:
        assert runner.invoke(app, ["ask", "Is it?", "--strategy", "coin", "--set", "side=no"]).exit_code == 0
        out = tmp_path / "coin.jsonl"
        evaluated = runner.invoke(app, ["eval", "--dataset", str(dataset), "--strategy", "coin", "--out", str(out)])
        assert evaluated.exit_code == 0, evaluated.output
        report = runner.invoke(app, ["report", str(out)])
        assert report.exit_code == 0 and "| coin · test · T0 |" in report.output
        assert "50.00" in report.output  # "yes" to both: S1 right, S2 wrong
    finally:
        del REGISTRY["coin"]
