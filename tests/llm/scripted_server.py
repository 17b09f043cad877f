"""A scripted OpenAI-compatible server on 127.0.0.1 for the HTTP backend's tests (fixture `serve`)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the assistant message's content
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    error: str = "scripted failure"
    # Sent verbatim instead of a chat completion built from the fields above.
    body: str | None = None
    content_type: str = "application/json"


@dataclass
class Received:
    at: float
    body: dict[str, Any]


class ScriptedServer:
    """Answers each POST with the next scripted Reply (the last one repeats) and records requests.

    `replies` may also be a function of the request body, for servers that answer by content.
    """

    def __init__(self, replies: list[Reply] | Any) -> None:
        self.replies = replies
        self.received: list[Received] = []
        self.closing = threading.Event()  # ends the waits of delayed replies
        script = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                script.received.append(Received(time.monotonic(), body))
                reply = script.reply_to(body)
                script.closing.wait(reply.delay_s)
                if reply.body is not None:
                    data = reply.body.encode()
                elif reply.status == 200:
                    data = json.dumps(chat_completion(reply.content or "")).encode()
                else:
                    data = json.dumps({"error": {"message": reply.error, "type": "scripted"}}).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def reply_to(self, body: dict[str, Any]) -> Reply:
        if callable(self.replies):
            return self.replies(body)
        return self.replies[min(len(self.received), len(self.replies)) - 1]

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_completion(
    content: str | None, *, finish_reason: str = "stop", reasoning_tokens: int | None = None, **message: Any
) -> dict[str, Any]:
    """A chat completion as servers send it; `message` adds fields such as reasoning_content."""
    usage: dict[str, Any] = {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
    if reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return {
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage,
    }
