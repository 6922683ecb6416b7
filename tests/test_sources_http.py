"""PoliteClient against a real HTTP server on 127.0.0.1 (pytest-httpserver)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from pytest_httpserver import HTTPServer

from paperbrief.errors import SourceError
from paperbrief.http import HostUnreachable, HttpStatusError, PoliteClient
from paperbrief.retry import RetryPolicy, parse_retry_after


class FakeTime:
    """A clock that only moves when ``sleep`` is called; records every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


RETRY_KNOBS = ("max_retries", "backoff_base", "max_backoff", "max_retry_after")


def make_client(fake: FakeTime, **options: float) -> PoliteClient:
    """A client on fake time; retry knobs go to its RetryPolicy, the rest to the client."""
    retry = RetryPolicy(**{k: v for k, v in options.items() if k in RETRY_KNOBS})  # type: ignore[arg-type]
    rest = {k: v for k, v in options.items() if k not in RETRY_KNOBS}
    return PoliteClient(sleep=fake.sleep, clock=fake.clock, timeout=5, retry=retry, **rest)  # type: ignore[arg-type]


def test_sends_descriptive_user_agent_and_returns_final_url(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/old").respond_with_data(
        "", status=301, headers={"Location": httpserver.url_for("/new")}
    )
    httpserver.expect_ordered_request("/new").respond_with_data("hello")
    fake = FakeTime()
    with make_client(fake) as client:
        response = client.get(httpserver.url_for("/old"), {"q": "1"})
    assert response.status == 200
    assert response.text == "hello"
    assert response.url.endswith("/new")
    user_agent = httpserver.log[0][0].headers["User-Agent"]
    assert user_agent.startswith("paperbrief/") and "mailto:" in user_agent


def test_retries_on_503_then_succeeds(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/feed").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/feed").respond_with_data("ok")
    fake = FakeTime()
    with make_client(fake, backoff_base=2.0) as client:
        assert client.get(httpserver.url_for("/feed")).text == "ok"
    assert len(httpserver.log) == 2
    assert 2.0 in fake.sleeps  # the first backoff wait


def test_honours_retry_after_seconds_on_429(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/api").respond_with_data(
        "slow down", status=429, headers={"Retry-After": "17"}
    )
    httpserver.expect_ordered_request("/api").respond_with_data("ok")
    fake = FakeTime()
    with make_client(fake) as client:
        assert client.get(httpserver.url_for("/api")).text == "ok"
    assert fake.sleeps[0] == 17.0
    # after a 17 s wait the 3 s politeness delay is already satisfied: no extra sleep
    assert fake.sleeps == [17.0]


def test_caps_retry_after(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/api").respond_with_data(
        "", status=503, headers={"Retry-After": "86400"}
    )
    httpserver.expect_ordered_request("/api").respond_with_data("ok")
    fake = FakeTime()
    with make_client(fake, max_retry_after=30.0) as client:
        client.get(httpserver.url_for("/api"))
    assert fake.sleeps == [30.0]


def test_parses_retry_after_http_date() -> None:
    now = datetime(2026, 5, 22, 12, 0, 0, tzinfo=UTC)
    header = format_datetime(now + timedelta(seconds=42), usegmt=True)
    assert parse_retry_after(header, now=now) == 42.0
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after("soon") is None


def test_retry_if_retries_an_empty_page(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/page").respond_with_data("")
    httpserver.expect_ordered_request("/page").respond_with_data("<feed>entries</feed>")
    fake = FakeTime()
    with make_client(fake) as client:
        response = client.get(httpserver.url_for("/page"), retry_if=lambda r: not r.content)
    assert response.text == "<feed>entries</feed>"
    assert len(httpserver.log) == 2


def test_http_400_is_not_retried_and_carries_the_body(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/api").respond_with_data("<feed>bad id</feed>", status=400)
    fake = FakeTime()
    with make_client(fake) as client, pytest.raises(HttpStatusError) as caught:
        client.get(httpserver.url_for("/api"))
    assert caught.value.status == 400
    assert b"bad id" in caught.value.response.content
    assert caught.value.hint
    assert len(httpserver.log) == 1


def test_gives_up_after_max_retries_with_a_hint(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/down").respond_with_data("", status=502)
    fake = FakeTime()
    client = make_client(fake, max_retries=2, backoff_base=1.0)
    with client, pytest.raises(SourceError) as caught:
        client.get(httpserver.url_for("/down"))
    assert "3 attempts" in caught.value.message and "HTTP 502" in caught.value.message
    assert "rerun" in caught.value.hint
    assert len(httpserver.log) == 3


def test_refused_connection_fails_fast_and_the_host_is_not_tried_again() -> None:
    # a port nobody listens on: refused at once, so no retry can help
    fake = FakeTime()
    with make_client(fake, max_retries=3) as client:
        with pytest.raises(HostUnreachable) as caught:
            client.get("http://127.0.0.1:9/nothing")
        assert "connection refused" in caught.value.message and fake.sleeps == []
        with pytest.raises(HostUnreachable) as again:
            client.get("http://127.0.0.1:9/other")
        assert "not tried" in again.value.message and "connection refused" in again.value.message
        fake.now += 301  # after unreachable_for the host is tried again (and refuses again)
        with pytest.raises(HostUnreachable) as later:
            client.get("http://127.0.0.1:9/other")
        assert "not tried" not in later.value.message


def test_dns_failure_fails_fast_without_retries() -> None:
    fake = FakeTime()
    with make_client(fake, max_retries=4) as client, pytest.raises(HostUnreachable) as caught:
        client.get("http://arxiv.invalid/feed")  # .invalid never resolves (RFC 2606)
    assert "DNS lookup failed" in caught.value.message and fake.sleeps == []
    assert "network" in caught.value.hint


def test_a_request_that_reached_no_server_costs_no_politeness_wait() -> None:
    fake = FakeTime()
    with make_client(fake, delay_seconds=3) as client:
        for url in ("http://arxiv.invalid/html/1", "http://ar5iv.invalid/html/1"):
            with pytest.raises(HostUnreachable):
                client.get(url)
    assert fake.sleeps == []  # nothing reached arXiv, so nothing to wait for


def test_http_failures_are_not_host_unreachable(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/down").respond_with_data("", status=503)
    client = make_client(FakeTime(), max_retries=1)
    with client, pytest.raises(SourceError) as caught:
        client.get(httpserver.url_for("/down"))
    assert not isinstance(caught.value, HostUnreachable)


def test_rejects_bodies_over_max_bytes(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/big").respond_with_data("x" * 5000)
    fake = FakeTime()
    with make_client(fake, max_bytes=1000) as client, pytest.raises(SourceError) as caught:
        client.get(httpserver.url_for("/big"))
    assert "larger than 1000 bytes" in caught.value.message


def test_one_request_per_delay_seconds(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/a").respond_with_data("ok")
    fake = FakeTime()
    starts: list[float] = []
    with make_client(fake, delay_seconds=3.0) as client:
        for _ in range(4):
            client.get(httpserver.url_for("/a"))
            starts.append(fake.now)
            fake.now += 0.5  # the caller spends half a second on each answer
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:], strict=False)]
    assert gaps == [3.0, 3.0, 3.0]
    assert fake.sleeps == [2.5, 2.5, 2.5]
    assert len(httpserver.log) == 4
