"""A chat-completions server on 127.0.0.1 that answers from a script, for the tests of the text agents
(``llm:MODEL@URL``) and of their benchmark: valid names, numbers, junk, empty replies, slow replies past the
agent's timeout, 500s and 429s."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def listed_moves(text: str) -> list[tuple[str, str]]:
    """``(number, name)`` of every move in a prompt's list of legal moves."""
    return re.findall(r"^(\d+)\. (.*)$", text.split("== Your legal moves ==")[-1], re.M)


def good_reply(text: str, rng: np.random.Generator) -> str:
    """A legal move read off the prompt: a finishing move when there is one (games end sooner), else at random,
    by name or by number."""
    moves = listed_moves(text)
    finishing = [name for _, name in moves if name.startswith(("finish", "win"))]
    if finishing:
        return finishing[0]
    number, name = moves[rng.integers(len(moves))]
    return name if rng.random() < 0.5 else number


Step = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


class ChatServer:
    """A chat-completions server on 127.0.0.1 that answers each request with the next step of ``script``, and
    once the script is used up with ``policy(the prompt) -> reply``. ``requests`` holds every request (headers,
    body)."""

    def __init__(self) -> None:
        self.script: list[Step] = []
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.rng = np.random.default_rng(0)
        self.policy: Callable[[str], str] = lambda text: good_reply(text, self.rng)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                if self.path != "/v1/chat/completions":
                    return send(self, 404, b"not found")
                step = server.script.pop(0) if server.script else None
                if step is not None:
                    return step(self, body)
                return send_reply(self, server.policy(body["messages"][1]["content"]))  # the prompt

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    try:
        handler.send_response(status)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):  # the client gave up (a slow reply past its timeout)
        pass


def send_reply(handler: BaseHTTPRequestHandler, content: str, usage: dict[str, int] | None = None) -> None:
    usage = usage or {"prompt_tokens": 100, "completion_tokens": 3, "total_tokens": 103}
    answer = {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    send(handler, 200, json.dumps({**answer, "usage": usage}).encode(), {"Content-Type": "application/json"})


def reply(content: str) -> Step:
    return lambda handler, body: send_reply(handler, content)


def status(code: int, headers: dict[str, str] | None = None) -> Step:
    return lambda handler, body: send(handler, code, b'{"error": "scripted"}', headers)


def slow(seconds: float, content: str) -> Step:
    def step(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        time.sleep(seconds)
        send_reply(handler, content)

    return step
