"""`arkg mcp`: its options, the token rule and Host names of `arkg serve`, and one line when the extra is missing."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from mcp_helpers import INITIALIZE, MCP_HEADERS, curie_model
from starlette.testclient import TestClient
from typer.testing import CliRunner

import arkg.mcp
import arkg.server
from arkg.cli import app

runner = CliRunner()


@pytest.fixture
def served(monkeypatch):
    """Runs `arkg mcp` up to the point of serving, with the scripted model; what it would serve is kept."""
    started = {}
    monkeypatch.setattr("arkg.session.open_model", lambda spec, **options: curie_model())
    monkeypatch.setattr(arkg.server, "run", lambda application, host, port: started.update(app=application, host=host, port=port))
    monkeypatch.setattr(arkg.mcp, "run_stdio", lambda server: started.update(stdio=server))
    return started


def test_by_default_it_serves_stdio_and_writes_nothing_on_stdout(served):
    result = runner.invoke(app, ["mcp"])
    assert result.exit_code == 0 and "stdio" in served and result.stdout == ""
    assert "the sample KG with model scripted over stdio" in result.stderr


def test_on_another_address_a_token_is_made_printed_and_required(served):
    result = runner.invoke(app, ["mcp", "--http", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert "at http://0.0.0.0:8123/mcp" in result.stdout
    token = _printed_token(result.stdout)
    assert len(token) >= 32 and (served["host"], served["port"]) == ("0.0.0.0", 8123)
    with TestClient(served["app"], base_url="http://192.0.2.7:8123") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS).status_code == 401
        assert client.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"}).status_code == 200


def test_on_another_loopback_address_it_answers_to_that_name_with_its_token(served):
    result = runner.invoke(app, ["mcp", "--http", "--host", "127.0.0.2"])
    assert result.exit_code == 0, result.output
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {_printed_token(result.stdout)}"}
    with TestClient(served["app"], base_url="http://127.0.0.2:8000") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS).status_code == 401
        assert client.post("/mcp", json=INITIALIZE, headers=headers).status_code == 200
        assert client.post("/mcp", json=INITIALIZE, headers={**headers, "host": "evil.example"}).status_code == 400


def test_a_token_from_the_environment_is_required_on_loopback_too(served, monkeypatch):
    monkeypatch.setenv("ARKG_MCP_TOKEN", "from-env")
    assert runner.invoke(app, ["mcp", "--http"]).exit_code == 0
    with TestClient(served["app"], base_url="http://127.0.0.1:8000") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS).status_code == 401


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--host", "0.0.0.0"], "--host apply to --http only"),
        (["--port", "9000", "--token", "t"], "--port, --token apply to --http only"),
        (["--traces", "no/such/folder"], "--traces no/such/folder: no such folder, or not writable"),
        (["--strategy", "oracle"], "unknown strategy 'oracle'"),
        (["--db", "missing.db"], "missing.db: no such KG store"),
        (["--http", "--token", " "], "--token is empty"),
    ],
)
def test_bad_options_are_one_line_errors(served, arguments, message):
    result = runner.invoke(app, ["mcp", *arguments])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert served == {}


def test_without_the_mcp_extra_it_says_in_one_line_which_extra_to_install():
    blocked = "import sys; sys.modules['mcp'] = None; from arkg.cli import main; main()"  # as if mcp were not installed
    done = subprocess.run([sys.executable, "-c", blocked, "mcp"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == "Error: arkg mcp needs the mcp extra (missing: mcp): pip install 'arkg[mcp]'"


def _printed_token(output: str) -> str:
    return re.search(r"Authorization: Bearer ([\w-]+)", output).group(1)
