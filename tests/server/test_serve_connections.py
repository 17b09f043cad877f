"""`arkg serve` run for real (with the scripted model): connections that send no request are closed
after --header-timeout, and a refused Host header is answered with the API's JSON error."""

from __future__ import annotations

import json
import socket
import time
import urllib.parse
from collections.abc import Iterator

import pytest
from support.serving import scripted_serve

HEADER_TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scripted_serve(["--header-timeout", str(HEADER_TIMEOUT_S)], tmp_path_factory.mktemp("serve")) as url:
        yield url


def connect(url: str) -> socket.socket:
    address = urllib.parse.urlsplit(url)
    return socket.create_connection((address.hostname, address.port), timeout=10)


def read_until_closed(connection: socket.socket) -> bytes:
    """All the server sends until it closes the connection (a socket timeout if it never does)."""
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_connections_that_send_nothing_or_part_of_a_request_head_are_closed(server_url: str) -> None:
    started = time.monotonic()
    silent, trickling = connect(server_url), connect(server_url)
    trickling.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the blank line never comes
    try:
        assert read_until_closed(silent) == b"" and read_until_closed(trickling) == b""
        assert HEADER_TIMEOUT_S * 0.8 < time.monotonic() - started < HEADER_TIMEOUT_S + 4
    finally:
        silent.close()
        trickling.close()


def test_a_request_whose_head_came_in_time_is_answered_however_long_its_body_takes(server_url: str) -> None:
    body = json.dumps({"question": "Was Marie Curie born in Warsaw?"}).encode()
    head = f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    with connect(server_url) as connection:
        time.sleep(HEADER_TIMEOUT_S / 2)
        connection.sendall(head.encode())
        for start in range(0, len(body), 8):  # the body takes twice the header timeout
            time.sleep(2 * HEADER_TIMEOUT_S / (len(body) / 8))
            connection.sendall(body[start : start + 8])
        sent = time.monotonic()
        answer = read_until_closed(connection)  # answered, then idle: closed after the header timeout
    assert answer.startswith(b"HTTP/1.1 202 ") and b'"result_url":"/api/runs/' in answer
    assert time.monotonic() - sent < HEADER_TIMEOUT_S + 3  # before uvicorn's own keep-alive timeout (5 s)


def test_a_refused_host_is_a_json_error(server_url: str) -> None:
    with connect(server_url) as connection:
        connection.sendall(b"GET /api/info HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
        head, _, body = read_until_closed(connection).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"content-type: application/json" in head.lower()
    assert json.loads(body)["status"] == 400 and "invalid host header 'attacker.example'" in json.loads(body)["error"]
