"""A loopback server speaking the Zotero Web API v3 as documented
(https://www.zotero.org/support/dev/web_api/v3/basics): `GET /users/<id>/collections` and
`/users/<id>/items/top` in pages (`limit`, `start`, a `Link: <…>; rel="next"` header and
`Total-Results`), `Zotero-API-Key` checked (403 otherwise), `Zotero-API-Version: 3`
answered, and on demand a `Backoff` header or a 429 with `Retry-After`.

    with ZoteroServer(items, collections, key="k") as server:
        ZoteroClient("k", server.url).papers(source)
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class ZoteroLibrary:
    """What the server holds: item data dicts, collections ``{key: (name, parent)}``."""

    items: list[dict[str, Any]]
    collections: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    user: str = "12345"
    key: str | None = "k3y"
    rate_limit_once: bool = False  # the first items request gets 429 + Retry-After: 1
    backoff: int = 0  # a Backoff header on every answer
    page_size: int = 100  # the most one page holds (the API's is 100)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)


class ZoteroServer:
    def __init__(self, library: ZoteroLibrary) -> None:
        self.library = library
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ZoteroServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                library = server.library
                library.requests.append((self.path, dict(self.headers)))
                if library.key and self.headers.get("Zotero-API-Key") != library.key:
                    return self._send(403, b"Forbidden")
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                base = f"/users/{library.user}"
                if parts.path == f"{base}/collections":
                    rows = [
                        {"key": k, "data": {"key": k, "name": n, "parentCollection": p or False}}
                        for k, (n, p) in library.collections.items()
                    ]
                elif parts.path == f"{base}/items/top":
                    if library.rate_limit_once:
                        library.rate_limit_once = False
                        return self._send(429, b"Too many requests", {"Retry-After": "1"})
                    rows = [{"key": d["key"], "version": 1, "data": d} for d in library.items]
                else:
                    return self._send(404, b"Not found")
                start = int(query.get("start", 0))
                limit = min(int(query.get("limit", 25)), library.page_size)
                page = rows[start : start + limit]
                headers = {"Total-Results": str(len(rows))}
                if start + limit < len(rows):
                    rest = f"{parts.path}?format=json&limit={limit}&start={start + limit}"
                    headers["Link"] = f'<{server.url}{rest}>; rel="next"'
                self._send(200, json.dumps(page).encode(), headers)

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None):
                self.send_response(status)
                self.send_header("Zotero-API-Version", "3")
                if server.library.backoff:
                    self.send_header("Backoff", str(server.library.backoff))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
