"""A small, polite, synchronous HTTP client for everything that talks to arXiv.

arXiv's terms ask for one request every three seconds over a single connection and a
descriptive User-Agent. ``PoliteClient`` enforces exactly that (per client instance, so the
pipeline passes one client to every arXiv-facing stage), puts a timeout on every request and
retries transient failures with exponential backoff, honouring ``Retry-After``.

Contract of ``PoliteClient.get``:

* returns an ``HttpResponse`` (status, final URL after redirects, body bytes, headers) for
  any 2xx/3xx answer whose body fits in ``max_bytes`` and that ``retry_if`` accepts;
* bounds each attempt as a whole by ``timeout`` (and everything by the run's ``deadline``):
  a server that drips bytes cannot hold a request longer (``paperbrief.transport``);
* retries the statuses of its ``RetryPolicy`` (408, 429, 5xx), timeouts, dropped
  connections and responses that ``retry_if`` rejects, as the policy says
  (``paperbrief.retry``: capped exponential backoff, ``Retry-After`` honoured and capped);
* fails fast, without retrying, on a DNS failure, a refused connection or no route to the
  host (``HostUnreachable``), and then refuses further requests to that host for
  ``unreachable_for`` seconds: with the network down, three full-text sources of four
  picks cost a few failed lookups, not minutes of retries;
* raises ``HttpStatusError`` (a ``SourceError``) at once for any other 4xx/5xx, carrying the
  status and body so callers can read an error document (arXiv's API answers a bad query
  with HTTP 400 and an Atom feed that explains it);
* raises ``SourceError`` at once for a redirect loop or a body that cannot be decoded (bad
  gzip), and with a hint when retries are exhausted or the body is too large
  (``HostUnreachable`` when no attempt got any HTTP answer); ``RunDeadlineReached`` once
  the run's deadline has passed. No httpx exception escapes.

Waiting is done through the injectable ``sleep``/``clock`` callables so tests exercise the
real socket path against a loopback server without waiting real seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from paperbrief import __version__
from paperbrief.errors import SourceError
from paperbrief.retry import RetryPolicy, parse_retry_after
from paperbrief.transport import Deadline, bounded_client, describe, within

DEFAULT_USER_AGENT = (
    f"paperbrief/{__version__} (personal daily arXiv digest; "
    "+https://github.com/paperbrief/paperbrief; mailto:paperbrief@users.noreply.github.com)"
)
# arXiv asks for patience: up to four retries, waits doubling from 2 s to at most 60 s.
ARXIV_RETRY = RetryPolicy(max_retries=4, backoff_base=2.0, max_backoff=60.0)


@dataclass(frozen=True)
class HttpResponse:
    """A finished response: ``url`` is the final URL after redirects."""

    status: int
    url: str
    content: bytes
    headers: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
    encoding: str | None = None

    @property
    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 when none or unknown)."""
        try:
            return self.content.decode(self.encoding or "utf-8", errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")


class HttpStatusError(SourceError):
    """The server answered with a non-retryable error status (4xx other than 429)."""

    def __init__(self, message: str, hint: str, response: HttpResponse) -> None:
        super().__init__(message, hint)
        self.response = response
        self.status = response.status


class HostUnreachable(SourceError):
    """Every attempt failed before any HTTP answer (DNS, refused connection, timeout).

    Callers fetching several URLs from the same host can stop early on this; ``reason``
    is the failure alone (e.g. "DNS lookup failed (...)"), without the URL.
    """

    def __init__(self, message: str, hint: str = "", reason: str = "") -> None:
        super().__init__(message, hint)
        self.reason = reason or message


class RunDeadlineReached(SourceError):
    """The run's deadline has passed: no further request is started."""


class _RetryableFailure(Exception):
    """Internal: one attempt failed in a way worth retrying."""

    def __init__(
        self, description: str, retry_after: float | None = None, *, answered: bool = True
    ) -> None:
        super().__init__(description)
        self.description = description
        self.retry_after = retry_after
        self.answered = answered  # False: no HTTP answer at all (connection-level failure)


@dataclass(frozen=True)
class _Unreachable:
    until: float  # monotonic time until which the host is not tried again
    reason: str


class PoliteClient:
    """One-connection, rate-limited HTTP GET client with retries.

    Args:
        user_agent: sent on every request; arXiv asks for a descriptive one with a contact.
        delay_seconds: minimum time between the starts of two requests (arXiv: 3 s). Applies
            to retries too.
        timeout: seconds one attempt may take in all (connect, every read and write: a
            server that drips bytes cannot hold it longer; ``paperbrief.transport``).
        retry: how often and how long to retry (``paperbrief.retry.RetryPolicy``).
        max_bytes: largest (decompressed) body accepted; a larger one raises ``SourceError``.
        deadline: the run's deadline; once it has passed no request is started
            (``RunDeadlineReached``) and none runs past it.
        unreachable_for: seconds a host that failed at the connection level (DNS failure,
            refused connection, every attempt without an answer) is not tried again: the
            next requests to it fail at once with ``HostUnreachable``.
        sleep: called with seconds to wait (tests pass a recorder).
        clock: monotonic clock in seconds (tests pass a fake one that ``sleep`` advances).
        transport: optional httpx transport replacing the bounded one (no deadlines then).
    """

    def __init__(
        self,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        delay_seconds: float = 3.0,
        timeout: float = 30.0,
        retry: RetryPolicy = ARXIV_RETRY,
        max_bytes: int = 50 * 1024 * 1024,
        deadline: Deadline | None = None,
        unreachable_for: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if delay_seconds < 0 or timeout <= 0:
            raise ValueError("delay_seconds must be >= 0 and timeout > 0")
        self.user_agent = user_agent
        self.delay_seconds = delay_seconds
        self.timeout = timeout
        self.retry = retry
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.unreachable_for = unreachable_for
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()  # one request (hence one connection) at a time
        self._last_start: float | None = None
        self._unreachable: dict[str, _Unreachable] = {}
        if transport is None:
            self._client = bounded_client(
                timeout=timeout,
                max_connections=1,
                headers={"User-Agent": user_agent},
                follow_redirects=True,
            )
        else:
            self._client = httpx.Client(
                headers={"User-Agent": user_agent},
                timeout=httpx.Timeout(timeout),
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                follow_redirects=True,
                transport=transport,
            )

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying connection pool."""
        self._client.close()

    def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        retry_if: Callable[[HttpResponse], bool] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> HttpResponse:
        """GET ``url`` politely; see the module docstring for the full contract.

        ``retry_if(response)`` returning True marks a 2xx answer as transiently unusable
        (e.g. an API page that came back empty) and retries it like a 503.
        """
        host = httpx.URL(url).host
        with self._lock:
            self._refuse_if_unreachable(url, host)
            last_failure = ""
            ever_answered = False
            for attempt in range(self.retry.attempts):
                self._check_deadline(url)
                previous_start = self._wait_for_turn()
                try:
                    response = self._attempt(url, params, headers)
                    if retry_if is not None and retry_if(response):
                        raise _RetryableFailure(
                            f"unusable response from {response.url} (e.g. an empty page)"
                        )
                    return response
                except _RetryableFailure as failure:
                    last_failure = failure.description
                    ever_answered = ever_answered or failure.answered
                    if attempt == self.retry.max_retries:
                        break
                    wait = self.retry.wait(attempt, failure.retry_after)
                    if self.deadline is not None and wait >= self.deadline.remaining():
                        break  # the wait alone would outlast the run
                    self._sleep(wait)
                except HostUnreachable as unreachable:
                    self._remember(host, unreachable.reason)
                    # Nothing reached the server (no name, refused): politeness owes it no
                    # wait, so the next source's request need not wait its 3 s either.
                    self._last_start = previous_start
                    raise
            tried = f"{attempt + 1} attempt" + ("s" if attempt else "")
            if ever_answered:
                raise SourceError(
                    f"GET {url} failed after {tried}: {last_failure}",
                    hint="arXiv may be down or rate-limiting; wait a few minutes and rerun "
                    "(a rerun reuses what was already fetched), or use --listing FILE",
                )
            self._remember(host, last_failure)
            raise HostUnreachable(
                f"GET {url} failed after {tried}: {last_failure}",
                hint="check the network connection; a rerun reuses what was already fetched,"
                " or use --listing FILE",
                reason=last_failure,
            )

    def _refuse_if_unreachable(self, url: str, host: str) -> None:
        known = self._unreachable.get(host)
        if known is None:
            return
        if self._clock() >= known.until:
            del self._unreachable[host]
            return
        raise HostUnreachable(
            f"GET {url} not tried: {host} was unreachable moments ago ({known.reason})",
            hint="check the network connection, then rerun (what was fetched is reused)",
            reason=known.reason,
        )

    def _remember(self, host: str, reason: str) -> None:
        if self.unreachable_for > 0:
            self._unreachable[host] = _Unreachable(self._clock() + self.unreachable_for, reason)

    def _check_deadline(self, url: str) -> None:
        if self.deadline is not None and self.deadline.expired:
            raise RunDeadlineReached(
                f"GET {url} not started: {self.deadline.ended}",
                hint="raise [run] deadline_minutes in the profile if runs are regularly cut short",
            )

    def _wait_for_turn(self) -> float | None:
        """Sleep until this client's next request may start; the previous start time."""
        previous = self._last_start
        now = self._clock()
        if self._last_start is not None:
            remaining = self._last_start + self.delay_seconds - now
            if remaining > 0:
                self._sleep(remaining)
                now = self._clock()
        self._last_start = now
        return previous

    def _attempt(
        self, url: str, params: Mapping[str, Any] | None, headers: Mapping[str, str] | None
    ) -> HttpResponse:
        limit = Deadline.after(self.timeout, f"GET {url}")
        try:
            with (
                within(limit, self.deadline) as deadline,
                self._client.stream("GET", url, params=params, headers=headers) as raw,
            ):
                content = self._read_capped(raw)
                response = HttpResponse(
                    status=raw.status_code,
                    url=str(raw.url),
                    content=content,
                    headers=dict(raw.headers),
                    encoding=raw.charset_encoding,
                )
        except httpx.HTTPError as error:
            failure = describe(error, timeout=self.timeout, deadline=deadline)
            if failure.answered or not failure.transient:
                message = f"GET {url} failed: {failure.description}"
                hint = _FAILURE_HINTS.get(failure.kind, "rerun later")
                if failure.answered:
                    raise SourceError(message, hint) from error
                raise HostUnreachable(message, hint, reason=failure.description) from error
            raise _RetryableFailure(failure.description, answered=False) from error
        if self.retry.retryable(response.status):
            raise _RetryableFailure(
                f"HTTP {response.status}",
                retry_after=parse_retry_after(response.headers.get("retry-after")),
            )
        if 400 <= response.status < 600:
            snippet = response.text[:200].strip().replace("\n", " ")
            raise HttpStatusError(
                f"GET {response.url} answered HTTP {response.status}: {snippet}",
                hint="the request itself was refused; check the URL, ids or query "
                "(it is not retried)",
                response=response,
            )
        return response

    def _read_capped(self, raw: httpx.Response) -> bytes:
        declared = raw.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise _too_large(str(raw.url), self.max_bytes)
        chunks: list[bytes] = []
        size = 0
        for chunk in raw.iter_bytes():  # decompressed: a gzip bomb stops at the cap too
            size += len(chunk)
            if size > self.max_bytes:
                raise _too_large(str(raw.url), self.max_bytes)
            chunks.append(chunk)
        return b"".join(chunks)


_FAILURE_HINTS = {
    "dns": "check the network connection and DNS (no network: use --listing FILE / --offline)",
    "refused": "the server refuses connections; check the URL or rerun later",
    "unreachable": "check the network connection; rerun later",
    "redirects": "the server redirects in a loop; check the URL (it is not retried)",
    "decoding": "the server sent a body that cannot be decoded (e.g. bad gzip); rerun later",
    "protocol": "check the URL in the configuration",
}


def _too_large(url: str, max_bytes: int) -> SourceError:
    return SourceError(
        f"response from {url} is larger than {max_bytes} bytes",
        hint="raise max_bytes of the PoliteClient if this document is expected to be large",
    )
