"""`arkg serve --host`: which addresses need a token, and that the URL printed at start works."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from test_serve_cli import runner, served  # noqa: F401

from arkg.cli import app


def test_another_loopback_address_needs_a_token_and_its_printed_url_works(served):  # noqa: F811
    result = runner.invoke(app, ["serve", "--host", "127.0.0.2", "--port", "8123"])
    assert result.exit_code == 0, result.output
    token = re.search(r"http://127\.0\.0\.2:8123/\?token=([\w-]+)", result.output).group(1)
    with TestClient(served["app"], base_url="http://127.0.0.2:8123") as client:
        assert client.get("/api/info").status_code == 401
        page = client.get(f"/?token={token}")  # the printed URL: its token goes into a cookie
        assert page.status_code == 200 and page.url == "http://127.0.0.2:8123/"
        assert client.get("/api/info").json()["model"] == "scripted"
        refused = client.get("/api/info", headers={"host": "attacker.example"})
        assert refused.status_code == 400 and refused.json()["status"] == 400


@pytest.mark.parametrize(("host", "shown"), [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]"), ("localhost", "localhost")])
def test_127_0_0_1_ipv6_loopback_and_localhost_need_no_token(served, host, shown):  # noqa: F811
    result = runner.invoke(app, ["serve", "--host", host, "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert f"http://{shown}:8123/ " in result.output and "token" not in result.output
    with TestClient(served["app"], base_url=f"http://{shown}:8123") as client:
        assert client.get("/").status_code == 200
        assert client.get("/api/info").json()["model"] == "scripted"


def test_a_refused_host_name_gets_the_apis_json_error(served):  # noqa: F811
    assert runner.invoke(app, ["serve"]).exit_code == 0
    with TestClient(served["app"], base_url="http://127.0.0.1:8000") as client:
        for host in ("attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example", "[::2]:8000", ""):
            refused = client.get("/api/info", headers={"host": host})
            assert refused.status_code == 400, host
            assert refused.headers["content-type"] == "application/json"
            body = refused.json()
            assert body["status"] == 400 and "invalid host header" in body["error"] and "127.0.0.1" in body["error"]
        for host in ("127.0.0.1:8000", "LOCALHOST:8000", "[::1]:8000", "localhost"):
            assert client.get("/api/info", headers={"host": host}).status_code == 200, host
