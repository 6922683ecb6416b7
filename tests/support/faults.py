"""Loopback servers that misbehave on purpose, for the fault tests (``tests/faults.md``).

``RawServer`` is a real TCP server on 127.0.0.1 whose every connection is answered by a
handler with the raw socket, so a test can drip bytes, hang, drop the connection half way
or stream an endless body — things a well-behaved HTTP server library will not do.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

Handler = Callable[[socket.socket, bytes], None]


def read_request(conn: socket.socket, timeout: float = 5.0) -> bytes:
    """The request head and as much body as its Content-Length says."""
    conn.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def response(body: bytes = b"", status: int = 200, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} X"]
    values = {"Content-Length": str(len(body)), "Connection": "close", **(headers or {})}
    lines += [f"{name}: {value}" for name, value in values.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chat_completion(content: str, usage: object = None) -> bytes:
    """The JSON body of a chat completion; ``usage`` as given (None: no usage at all)."""
    payload: dict[str, object] = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }
    if usage is not None:
        payload["usage"] = usage
    return json.dumps(payload).encode()


def drip(data: bytes, every: float = 0.2) -> Handler:
    """Answer with ``data`` one byte at a time, ``every`` seconds apart."""

    def handle(conn: socket.socket, request: bytes) -> None:
        for byte in data:
            conn.sendall(bytes([byte]))
            time.sleep(every)

    return handle


def endless_body(chunk: bytes = b"x" * 65536, declared: int | None = None) -> Handler:
    """Headers, then body bytes for as long as the client reads (a 200 MB answer...)."""

    def handle(conn: socket.socket, request: bytes) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
        if declared is not None:
            head += f"Content-Length: {declared}\r\n"
        conn.sendall(head.encode() + b"\r\n")
        while True:
            conn.sendall(chunk)

    return handle


def hang_after_request() -> Handler:
    """Read the request, then answer nothing until the client gives up."""

    def handle(conn: socket.socket, request: bytes) -> None:
        conn.settimeout(30)
        with contextlib.suppress(OSError):
            conn.recv(1)  # returns when the client closes

    return handle


def bad_gzip(body: bytes = b"this is not gzip at all") -> Handler:
    def handle(conn: socket.socket, request: bytes) -> None:
        conn.sendall(response(body, headers={"Content-Encoding": "gzip"}))

    return handle


def gzip_bomb(size: int) -> bytes:
    """``size`` zero bytes, gzip-compressed (about 1000 : 1)."""
    return gzip.compress(b"\0" * size, compresslevel=9)


class RawServer:
    """A threaded TCP server on 127.0.0.1; each connection goes to ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._open: list[socket.socket] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._open.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            request = read_request(conn)
            with self._lock:
                self.requests.append(request)
            self.handler(conn, request)
        except OSError:
            pass  # the client hung up: what these servers are for
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def require_namespaces() -> str:
    """The path of ``unshare``; skips the calling test where unprivileged user, network and
    mount namespaces are not allowed (some containers)."""
    import shutil
    import subprocess

    import pytest

    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "-rnm", "true"], capture_output=True)
    if unshare is None or probe.returncode != 0:
        pytest.skip("unshare -rnm (user, network and mount namespaces) is not available here")
    return unshare


def without_network(command: list[str], *, loopback: bool = True) -> list[str]:
    """``command`` run in a network namespace of its own: no route anywhere (the fault
    campaign's "no network at all"), with loopback up unless ``loopback`` is False."""
    unshare = require_namespaces()
    script = ("ip link set lo up 2>/dev/null; " if loopback else "") + 'exec "$@"'
    return [unshare, "-rn", "sh", "-c", script, "sh", *command]


def offline_but_looking_online(command: list[str], resolv_conf: Path) -> list[str]:
    """``command`` in network and mount namespaces of its own that look online to it: an
    address (TEST-NET-1) and a default route on loopback, and ``resolv_conf`` (naming a
    resolver on 127.0.0.1, where nothing answers) over /etc/resolv.conf. A program that
    would phone home then really tries (glibc sends no query from a namespace with no
    address but loopback's), and every packet it sends stays on the namespace's loopback."""
    unshare = require_namespaces()
    script = (
        'mount --bind "$0" /etc/resolv.conf && ip link set lo up'
        " && ip addr add 192.0.2.1/24 dev lo && ip route add default dev lo"
        ' && exec "$@"'
    )
    return [unshare, "-rnm", "sh", "-c", script, str(resolv_conf), *command]


def pdf_bomb(inflated: int) -> bytes:
    """A one-page PDF of about inflated/1000 bytes whose content stream (FlateDecode)
    inflates to ``inflated`` bytes when a reader opens the page."""
    import zlib

    # After a full flush deflate starts afresh, so one block of spaces is compressed once
    # and its bytes repeated; the zlib header and the Adler-32 of the whole are added here.
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = b"BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n"
    block = b" " * (16 * 1024 * 1024)
    count = inflated // len(block)
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    repeated = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    checksum = zlib.adler32(head)
    for _ in range(count):
        checksum = zlib.adler32(block, checksum)
    deflated = first + repeated * count + packer.flush(zlib.Z_FINISH)
    stream = b"\x78\xda" + deflated + checksum.to_bytes(4, "big")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out
