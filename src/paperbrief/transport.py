"""How every network client opens connections: a whole-request deadline, failures told apart.

httpx's timeouts are per socket operation: a server that sends one byte every second keeps
a request with ``timeout=2`` alive for as long as it likes (the fault campaign held an arXiv
request 30 s, an LLM call 27 s, a webhook 20 s). Here every connect, DNS lookup, read and
write of a request is bounded by the time left until the soonest active ``Deadline`` of the
calling thread, so the request as a whole ends by then, however the bytes arrive.

* ``Deadline``: a moment in monotonic time (a request's own limit, or the run's); the run's
  carries the run's ``Stop``, and a stopped run's deadline has passed at once: no request
  starts after SIGINT/SIGTERM, and one in flight notices within ``STOP_SLICE`` seconds
  (reads wait in slices), so its thread ends and the run exits within seconds.
* ``within(*deadlines)``: the deadlines that bound the requests made inside the block.
* ``bounded_client(...)``: an ``httpx.Client`` whose transport enforces them, proxies from
  the environment included (``HTTP(S)_PROXY``, ``ALL_PROXY``, ``NO_PROXY``).
* ``describe(error) -> Failure``: what an httpx error means for the caller: DNS failure,
  refused connection, timeout, a dropped connection, a redirect loop, an undecodable
  (e.g. bad gzip) body; whether the request may have reached the server (``sent``) and
  whether trying again can help (``transient``).
"""

from __future__ import annotations

import errno
import functools
import socket
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

Clock = Callable[[], float]


STOP_SLICE = 0.25  # seconds a read of a stoppable request waits before it looks again


class Stop:
    """A run told to stop (SIGINT, SIGTERM): set once, from the signal handler, and seen by
    every thread through the run's ``Deadline``."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def set(self, reason: str) -> None:
        self.reason = self.reason or reason
        self._event.set()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` unless told to stop first; True when stopped."""
        return self._event.wait(max(seconds, 0.0))


@dataclass(frozen=True, eq=False)
class Deadline:
    """The moment (``time.monotonic`` seconds) by which something must be over; with a
    ``stop``, also the moment that stop is set (the run was told to stop)."""

    at: float
    what: str = "the request"
    stop: Stop | None = None

    @classmethod
    def after(cls, seconds: float, what: str = "the request", stop: Stop | None = None) -> Deadline:
        return cls(time.monotonic() + max(seconds, 0.0), what, stop)

    def remaining(self) -> float:
        if self.stop is not None and self.stop.stopped:
            return 0.0
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    @property
    def ended(self) -> str:
        """Why it is over, for a message: stopped by a signal, or out of time."""
        if self.stop is not None and self.stop.stopped:
            return f"the run was stopped ({self.stop.reason})"
        return f"{self.what} ran out of time"

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less when the run is stopped meanwhile."""
        if self.stop is None:
            time.sleep(max(seconds, 0.0))
        else:
            self.stop.wait(seconds)


_local = threading.local()  # the soonest active deadline of each thread (never shared)


def current_deadline() -> Deadline | None:
    """The soonest deadline active in this thread, if any."""
    return getattr(_local, "deadline", None)


@contextmanager
def within(*deadlines: Deadline | None) -> Iterator[Deadline | None]:
    """Bound every request this thread makes in the block by the soonest of ``deadlines``
    (and of any deadline already active). Yields that soonest deadline."""
    previous = current_deadline()
    candidates = [d for d in (*deadlines, previous) if d is not None]
    soonest = min(candidates, key=lambda d: d.at) if candidates else None
    stop = next((d.stop for d in candidates if d.stop is not None), None)
    if soonest is not None and soonest.stop is None and stop is not None:
        soonest = Deadline(soonest.at, soonest.what, stop)  # a stop ends any of them
    _local.deadline = soonest
    try:
        yield soonest
    finally:
        _local.deadline = previous


def _bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """``timeout`` cut to the time left until the current deadline (raise when none is)."""
    deadline = current_deadline()
    if deadline is None:
        return timeout
    left = deadline.remaining()
    if left <= 0:
        raise expired(deadline.ended)
    return left if timeout is None else min(timeout, left)


def _stoppable() -> Stop | None:
    deadline = current_deadline()
    return deadline.stop if deadline is not None else None


# A lookup that hangs (an unreachable resolver) must not hang the request: it runs in a
# helper thread that is abandoned when the deadline comes first.
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="paperbrief-dns")


def _resolve(host: str, port: int, timeout: float | None) -> list[tuple[Any, ...]]:
    future = _resolver.submit(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    stop = _stoppable()
    ends = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            left = None if ends is None else ends - time.monotonic()
            if stop is not None and stop.stopped:
                raise httpcore.ConnectTimeout(f"DNS lookup of {host} abandoned: stopped")
            wait = left if stop is None else min(STOP_SLICE, left if left is not None else 1e9)
            try:
                return future.result(timeout=wait)
            except FutureTimeout:
                if stop is None or (left is not None and left <= STOP_SLICE):
                    raise
    except FutureTimeout:
        raise httpcore.ConnectTimeout(f"DNS lookup of {host} timed out") from None
    except OSError as error:
        raise httpcore.ConnectError(str(error)) from error


class _BoundedStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        limit = _bounded(timeout, httpcore.ReadTimeout)
        stop = _stoppable()
        if stop is None:
            return self._inner.read(max_bytes, limit)
        # A run that can be stopped reads in slices: a socket timeout leaves the stream
        # (TLS included) as it was, so the read goes on until its limit or the stop.
        ends = None if limit is None else time.monotonic() + limit
        while True:
            left = None if ends is None else ends - time.monotonic()
            if stop.stopped:
                raise httpcore.ReadTimeout(f"abandoned: the run was stopped ({stop.reason})")
            wait = STOP_SLICE if left is None else max(min(STOP_SLICE, left), 0.001)
            try:
                return self._inner.read(max_bytes, wait)
            except httpcore.ReadTimeout:
                if left is not None and left <= STOP_SLICE:
                    raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    """httpcore's socket backend with every operation cut to the current deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = _resolve(host, port, _bounded(timeout, httpcore.ConnectTimeout))
        failure: Exception = httpcore.ConnectError(f"no address for {host}")
        for family, _, _, _, address in addresses:
            if family not in (socket.AF_INET, socket.AF_INET6):
                continue
            try:
                stream = self._inner.connect_tcp(
                    str(address[0]),
                    port,
                    _bounded(timeout, httpcore.ConnectTimeout),
                    local_address,
                    socket_options,
                )
            except httpcore.ConnectError as error:
                failure = error  # try the next address (e.g. IPv4 after IPv6)
                continue
            return _BoundedStream(stream)
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.UnsupportedProtocol("unix sockets are not used by paperbrief")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


# httpcore's errors as httpx's (the ones callers catch); most specific first.
_AS_HTTPX: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.TimeoutException, httpx.TimeoutException),
)


@contextmanager
def _as_httpx(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except Exception as error:
        for source, target in _AS_HTTPX:
            if isinstance(error, source):
                raise target(str(error) or type(error).__name__, request=request) from error
        raise


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx(self._request):
            yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """The verifying TLS context every client shares: loading the CA bundle takes ~25 ms,
    once per process instead of once per client (a context is safe to share and is never
    changed after it is made)."""
    return httpx.create_ssl_context()


class BoundedTransport(httpx.BaseTransport):
    """An httpx transport over an httpcore pool whose sockets honour ``within`` deadlines."""

    def __init__(self, *, limits: httpx.Limits, proxy: str | None = None) -> None:
        options: dict[str, Any] = {
            "ssl_context": _ssl_context(),
            "max_connections": limits.max_connections,
            "max_keepalive_connections": limits.max_keepalive_connections,
            "keepalive_expiry": limits.keepalive_expiry,
            "network_backend": _BoundedBackend(),
        }
        self._pool: httpcore.ConnectionPool
        if proxy:
            url = httpx.URL(proxy)
            self._pool = httpcore.HTTPProxy(
                proxy_url=httpcore.URL(
                    scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
                ),
                **options,
            )
        else:
            self._pool = httpcore.ConnectionPool(**options)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx(request):
            response = self._pool.handle_request(core)
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream, request),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


def _proxy_mounts(limits: httpx.Limits) -> dict[str, httpx.BaseTransport | None]:
    """Proxies from the environment, as httpx itself reads them (simplified NO_PROXY)."""
    found = urllib.request.getproxies_environment()
    mounts: dict[str, httpx.BaseTransport | None] = {}
    for scheme in ("http", "https", "all"):
        address = found.get(scheme)
        if address:
            url = address if "://" in address else f"http://{address}"
            mounts[f"{scheme}://"] = BoundedTransport(limits=limits, proxy=url)
    for host in (part.strip() for part in found.get("no", "").split(",")):
        if host == "*":
            return {}
        if host:
            mounts[f"all://*{host}" if host[0] == "." else f"all://{host}"] = None
            if host[0] != ".":
                mounts[f"all://*.{host}"] = None
    return mounts


def bounded_client(
    *,
    timeout: float,
    connect_timeout: float | None = None,
    max_connections: int = 10,
    keepalive: bool = True,
    headers: dict[str, str] | None = None,
    follow_redirects: bool = False,
    max_redirects: int = 10,
) -> httpx.Client:
    """An ``httpx.Client`` whose requests honour ``within`` deadlines (see module docstring).

    ``timeout`` is still passed to each socket operation as its own cap.
    """
    limits = httpx.Limits(
        max_connections=max_connections,
        max_keepalive_connections=max_connections if keepalive else 0,
    )
    return httpx.Client(
        headers=headers,
        timeout=httpx.Timeout(timeout, connect=connect_timeout or timeout),
        transport=BoundedTransport(limits=limits),
        mounts=_proxy_mounts(limits),
        trust_env=False,  # proxies are mounted above, on bounded transports
        follow_redirects=follow_redirects,
        max_redirects=max_redirects,
    )


@dataclass(frozen=True)
class Failure:
    """What went wrong with one request.

    ``kind``: dns | refused | connect-timeout | timeout | dropped | redirects | decoding |
    protocol | error. ``sent``: the request may have reached the server (it must not be
    repeated blindly when repeating it has an effect, e.g. a webhook). ``transient``:
    trying again soon can help. ``answered``: some HTTP answer arrived.
    """

    kind: str
    description: str
    sent: bool
    transient: bool
    answered: bool = False


def _root_cause(error: BaseException) -> BaseException:
    seen = error
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return seen


def describe(
    error: httpx.HTTPError, *, timeout: float | None = None, deadline: Deadline | None = None
) -> Failure:
    """Classify an httpx error (see ``Failure``); the description is one line.

    ``timeout`` is the request's own limit and ``deadline`` the one it ran under, so a
    timeout can say which of them ended it.
    """
    if isinstance(error, httpx.ConnectTimeout):
        return Failure("connect-timeout", f"could not connect in time ({error})", False, True)
    if isinstance(error, httpx.PoolTimeout):
        return Failure("connect-timeout", "no free connection in time", False, True)
    if isinstance(error, httpx.TimeoutException):
        limit = f" (limit {timeout:g} s for the whole request)" if timeout else ""
        if deadline is not None and deadline.expired:
            limit = f" ({deadline.what} ran out of time)"
        return Failure("timeout", f"no complete answer in time{limit}", True, True)
    if isinstance(error, httpx.ConnectError):
        cause = _root_cause(error)
        if isinstance(cause, socket.gaierror):
            return Failure("dns", f"DNS lookup failed ({cause.strerror or cause})", False, False)
        if isinstance(cause, ConnectionRefusedError):
            return Failure("refused", "connection refused", False, False)
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return Failure("unreachable", f"no route to the host ({cause.strerror})", False, False)
        return Failure("unreachable", f"cannot connect ({error})", False, True)
    if isinstance(error, httpx.TooManyRedirects):
        return Failure(
            "redirects",
            f"redirect loop or too many redirects ({error})",
            True,
            False,
            answered=True,
        )
    if isinstance(error, httpx.DecodingError):
        return Failure(
            "decoding", f"the answer could not be decoded ({error})", True, False, answered=True
        )
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return Failure("dropped", f"the connection dropped ({error})", True, True)
    if isinstance(error, httpx.UnsupportedProtocol):
        return Failure("protocol", f"unusable URL ({error})", False, False)
    return Failure("error", f"{type(error).__name__}: {error}", True, True)
