"""`arkg serve`: options, the token rule, and the README's command run for real with the bundled model."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.serving import SAMPLE_QUESTION, curie_model, free_port, wait_for_json
from typer.testing import CliRunner

import arkg
import arkg.server
from arkg.cli import app

runner = CliRunner()


@pytest.fixture
def served(monkeypatch):
    """Runs `arkg serve` up to the point of listening, with the scripted model; the app is kept, not served."""
    started = {}
    monkeypatch.setattr("arkg.session.open_model", lambda spec, **options: curie_model())
    monkeypatch.setattr(
        arkg.server, "run", lambda application, host, port, **options: started.update(app=application, host=host, port=port, **options)
    )
    return started


def test_on_another_address_a_token_is_made_and_printed(served):
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0, result.output
    token = re.search(r"http://0\.0\.0\.0:8123/\?token=([\w-]+)", result.output).group(1)
    assert len(token) >= 32 and (served["host"], served["port"]) == ("0.0.0.0", 8123)
    with TestClient(served["app"], base_url="http://192.0.2.7:8123") as client:
        assert client.get("/api/info").status_code == 401
        assert client.get("/api/info", headers={"Authorization": f"Bearer {token}"}).json()["model"] == "scripted"


def test_on_loopback_no_token_is_needed_but_other_host_names_are_refused(served):
    result = runner.invoke(app, ["serve", "--strategy", "kaping"])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8000/ " in result.output and "token" not in result.output
    with TestClient(served["app"], base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/info").json()["strategy"] == "kaping"
        assert client.get("/api/info", headers={"host": "evil.example"}).status_code == 400


def test_a_token_from_the_environment_is_required_on_loopback_too(served, monkeypatch):
    monkeypatch.setenv("ARKG_SERVE_TOKEN", "from-env")
    assert runner.invoke(app, ["serve"]).exit_code == 0
    with TestClient(served["app"], base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/info").status_code == 401
        assert client.get("/?token=from-env").status_code == 200


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--traces", "no/such/folder"], "--traces no/such/folder: no such folder"),
        (["--strategy", "oracle"], "unknown strategy 'oracle'"),
        (["--db", "missing.db"], "missing.db: no such KG store"),
        (["--token", " "], "--token is empty"),
    ],
)
def test_bad_options_are_one_line_errors(served, arguments, message):
    result = runner.invoke(app, ["serve", *arguments])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert served == {}


def test_without_the_web_extra_it_says_how_to_install_it(served, monkeypatch):
    for name in [name for name in sys.modules if name == "arkg.server" or name.startswith("arkg.server.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(arkg, "server")
    monkeypatch.setitem(sys.modules, "fastapi_offline", None)  # as if it were not installed
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 1 and "needs the web extra (missing: fastapi_offline): pip install 'arkg[web]'" in result.output
    assert served == {}


@pytest.mark.slow
def test_the_readme_command_serves_the_sample_kg_with_the_bundled_model(tmp_path):
    port = free_port()
    arkg = Path(sys.executable).with_name("arkg")
    environment = {**os.environ, "ARKG_LLAMA_THREADS": "1", "ARKG_CACHE_DIR": str(tmp_path)}
    server = subprocess.Popen([str(arkg), "serve", "--port", str(port)], env=environment, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        info = wait_for_json(f"{url}/api/info", server, 120)
        assert "SmolLM2" in info["model"] and info["kg"] == "the sample KG"
        request = urllib.request.Request(
            f"{url}/api/runs", data=json.dumps({"question": SAMPLE_QUESTION, "max_calls": 2}).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            run = json.load(response)
        with urllib.request.urlopen(url + run["events"], timeout=120) as response:
            stream = response.read().decode()
        end = json.loads(stream.split("event: end", 1)[1].split("data: ", 1)[1].split("\n", 1)[0])
        assert end["state"] == "done" and end["result"]["question"] == SAMPLE_QUESTION
        assert "event: step" in stream
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=60)
    assert server.returncode == 0, output
    assert f"at http://127.0.0.1:{port}/" in output and "Traceback" not in output
