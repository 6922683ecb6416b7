"""A real OpenAI-compatible chat endpoint on 127.0.0.1 that answers with prepared replies.

Reusable by any test that drives ``paperbrief.llm.LLMClient``::

    with OpenAIServer() as server:
        server.push(Reply(content='{"ok": true}'), Reply(status=429, headers={"Retry-After": "1"}))
        client = LLMClient(settings, store.llm, api_key="k", base_url=server.url)
        ...
        assert server.request_count == 2
        server.requests[0]["messages"]  # the JSON bodies received, in order

Replies come from, in order of precedence: the queue filled by ``push`` (first in, first
out), else ``route(body) -> Reply | str`` given to the constructor, else HTTP 500 with a
message saying the queue is empty (so a test that makes an unexpected call fails loudly).
A ``str`` is shorthand for ``Reply(content=...)``. ``delay`` (per reply, or the server's
default, or a ``(low, high)`` range for a random delay) is slept before answering.
Usage tokens are estimated from the request and answer text unless the reply sets them.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[dict[str, Any]], "Reply | str"]


@dataclass
class Reply:
    """One prepared answer. ``body`` (raw bytes) overrides the generated chat completion."""

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float | None = None
    body: bytes | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIServer:
    """A threaded HTTP server answering POST /v1/chat/completions (and /chat/completions)."""

    def __init__(
        self,
        route: Route | None = None,
        *,
        delay: float | tuple[float, float] = 0.0,
        model: str = "test-model",
    ) -> None:
        self.route = route
        self.delay = delay
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._random = random.Random(7)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.max_in_flight = 0
        self._in_flight = 0

    # --------------------------------------------------------------- lifecycle
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ replies
    def push(self, *replies: Reply | str) -> None:
        with self._lock:
            self._queue.extend(Reply(content=r) if isinstance(r, str) else r for r in replies)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def pending(self) -> int:
        """Prepared replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        if self.route is not None:
            answer = self.route(body)
            return Reply(content=answer) if isinstance(answer, str) else answer
        return Reply(status=500, body=b'{"error": {"message": "no prepared reply left"}}')

    def _delay_for(self, reply: Reply) -> float:
        if reply.delay is not None:
            return reply.delay
        if isinstance(self.delay, tuple):
            with self._lock:
                return self._random.uniform(*self.delay)
        return self.delay

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    server._in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server._in_flight)
                try:
                    self._answer(body)
                finally:
                    with server._lock:
                        server._in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}', {})
                    return
                reply = server._next_reply(body)
                wait = server._delay_for(reply)
                if wait:
                    time.sleep(wait)
                if reply.body is not None:
                    self._send(reply.status, reply.body, reply.headers)
                    return
                content = reply.content or ""
                prompt_text = json.dumps(body.get("messages", []), ensure_ascii=False)
                usage = {
                    "prompt_tokens": reply.prompt_tokens or _estimate(prompt_text),
                    "completion_tokens": reply.completion_tokens or _estimate(content),
                }
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
                payload = {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "model": body.get("model", server.model),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                }
                data = json.dumps(payload, ensure_ascii=False).encode()
                self._send(reply.status, data, reply.headers)

            def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

        return Handler
