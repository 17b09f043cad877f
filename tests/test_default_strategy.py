"""The strategy of a run that names none resolves the same way in `ask`, `eval`, `serve` and `mcp`: with no
model named (the bundled model and its tuned adapters) the one measured best on held-out KGs
(BUNDLED_MODEL_STRATEGY), with any other model ARK. The bundled model is replaced by the test model here:
what is checked is the choice, not the answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

import arkg.eval.setup
import arkg.session
from arkg.agents import BUNDLED_MODEL_STRATEGY, default_strategy
from arkg.cli import app
from arkg.llm.testing import TestModel
from arkg.mcp import McpConfig, mcp_server
from arkg.server import ServerConfig, create_app
from arkg.session import Session

QUESTION = "Was Marie Curie born in Warsaw?"
CASES = [([], BUNDLED_MODEL_STRATEGY, True), (["--model", "test"], "ark", True), (["--model", "test", "--strategy", "cot"], "cot", False)]


@pytest.fixture(autouse=True)
def no_real_model(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []

    def open_model(spec: str, **options: object) -> TestModel:
        opened.append(spec)
        return TestModel()

    monkeypatch.setattr(arkg.session, "open_model", open_model)
    monkeypatch.setattr(arkg.eval.setup, "open_model", open_model)
    return opened


def test_the_rule() -> None:
    assert BUNDLED_MODEL_STRATEGY in ("ark", "kg-agent")
    assert default_strategy(None) == BUNDLED_MODEL_STRATEGY
    assert default_strategy("llamacpp") == default_strategy("openai:gpt-4o-mini") == default_strategy(TestModel()) == "ark"
    assert Session(None).default_strategy == BUNDLED_MODEL_STRATEGY
    assert Session(None, "test").default_strategy == "ark"


@pytest.mark.parametrize(("options", "expected", "defaulted"), CASES)
def test_ask(options: list[str], expected: str, defaulted: bool) -> None:
    result = CliRunner().invoke(app, ["ask", QUESTION, *options])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.startswith("strategy: "))
    assert line.startswith(f"strategy: {expected}{' (the default)' if defaulted else ''}; others: --strategy ")
    assert expected not in line.split("others: ")[1].split(", ")


@pytest.mark.parametrize(("options", "expected", "defaulted"), CASES)
def test_eval(tmp_path: Path, options: list[str], expected: str, defaulted: bool) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": QUESTION, "answer": True}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["eval", str(questions), "--db", "sample", "--out", str(out), *options])
    assert result.exit_code in (0, 3), result.output
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert header["strategy"] == expected


@pytest.mark.parametrize(("model", "expected"), [(None, BUNDLED_MODEL_STRATEGY), ("test", "ark")])
def test_serve(model: str | None, expected: str) -> None:
    with TestClient(create_app(Session(None, model), ServerConfig()), base_url="http://127.0.0.1") as client:
        assert client.get("/api/info").json()["strategy"] == expected
    named = create_app(Session(None, model), ServerConfig(strategy="cot"))
    with TestClient(named, base_url="http://127.0.0.1") as client:
        assert client.get("/api/info").json()["strategy"] == "cot"


@pytest.mark.parametrize(("model", "expected"), [(None, BUNDLED_MODEL_STRATEGY), ("test", "ark")])
def test_mcp(model: str | None, expected: str) -> None:
    async def strategy() -> str:
        with Session(None, model) as session, mcp_server(session, McpConfig()) as server:
            async with Client(server) as client:
                return (await client.call_tool("kg_info", {})).structured_content["strategy"]

    assert asyncio.run(asyncio.wait_for(strategy(), 30)) == expected


@pytest.fixture
def adapted_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample KG adapted by `arkg adapt`, ark scoring best: its record and ark's adapter in the cache."""
    from adapted_records import write_record

    from arkg.llm.adapted import adapted_folder

    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "cache"))
    folder = adapted_folder(None)
    write_record(folder, best="ark")
    return folder / "adapted-ark.gguf"


def test_after_adapt_every_command_takes_the_kgs_best_strategy_and_adapter(tmp_path: Path, adapted_sample: Path, no_real_model: list[str]) -> None:
    adapter = f"llamacpp:+{adapted_sample}"
    assert BUNDLED_MODEL_STRATEGY != "ark"  # otherwise this would not tell the record's choice from the rule's
    asked = CliRunner().invoke(app, ["ask", QUESTION])
    assert asked.exit_code == 0, asked.output
    assert "strategy: ark (the best on this KG's test questions after arkg adapt); others: " in asked.output
    assert no_real_model[-1] == adapter

    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": QUESTION, "answer": True}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    evaluated = CliRunner().invoke(app, ["eval", str(questions), "--db", "sample", "--out", str(out)])
    assert evaluated.exit_code in (0, 3), evaluated.output
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["strategy"] == "ark" and no_real_model[-1] == adapter

    with TestClient(create_app(Session(None), ServerConfig()), base_url="http://127.0.0.1") as client:
        assert client.get("/api/info").json()["strategy"] == "ark"

    async def strategy() -> str:
        with Session(None) as session, mcp_server(session, McpConfig()) as server:
            async with Client(server) as client:
                return (await client.call_tool("kg_info", {})).structured_content["strategy"]

    assert asyncio.run(asyncio.wait_for(strategy(), 30)) == "ark"
    # A model named, or a strategy: the record is not consulted for what was named.
    named = CliRunner().invoke(app, ["ask", QUESTION, "--model", "test"])
    assert "strategy: ark (the default)" in named.output and no_real_model[-1] == "test"
    other = CliRunner().invoke(app, ["ask", QUESTION, "--strategy", "kg-agent"])
    assert other.exit_code == 0 and no_real_model[-1] == "llamacpp:tuned-kg-agent"
