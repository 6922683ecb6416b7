"""arXiv and full-text requests against servers that misbehave on purpose, and with no
network at all (see tests/faults.md): drip-fed answers, redirect loops, bad gzip, gzip
bombs, names that do not resolve. Each ends in a one-line SourceError (or a recorded
fetch failure) in bounded time, never a traceback."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from paperbrief.errors import FetchFailed, SourceError
from paperbrief.fulltext import read_paper
from paperbrief.http import HostUnreachable, PoliteClient
from paperbrief.models import Document, Paper
from paperbrief.retry import RetryPolicy
from paperbrief.sources import fetch_listing
from paperbrief.transport import Deadline
from tests.support import ROOT
from tests.support.faults import (
    RawServer,
    bad_gzip,
    drip,
    gzip_bomb,
    pdf_bomb,
    response,
    without_network,
)

PAPER = Paper(
    id="2605.10001",
    title="A paper",
    authors=("A. Author",),
    abstract="An abstract.",
    categories=("cs.SE",),
    primary_category="cs.SE",
)


def client(**options) -> PoliteClient:
    return PoliteClient(delay_seconds=0, **{"retry": RetryPolicy(max_retries=0), **options})


def _read_from(server: RawServer, http: PoliteClient, version: int | None = 1) -> Document:
    """The paper's full text with every source (HTML, ar5iv, PDF) on the loopback server."""
    return read_paper(
        PAPER.id,
        version,
        http,
        html_base=server.url + "/html",
        ar5iv_base=server.url + "/ar5iv",
        pdf_base=server.url + "/pdf",
        abstract_fallback=PAPER,
    )


def test_a_drip_fed_arxiv_answer_is_cut_at_the_whole_request_timeout():
    with RawServer(drip(response(b"<feed/>" * 40), every=0.05)) as server:
        started = time.monotonic()
        with client(timeout=2) as http, pytest.raises(SourceError):
            http.get(server.url + "/atom/cs.SE")
    assert time.monotonic() - started < 3  # the drip alone takes ~16 s


def test_a_redirect_loop_is_a_one_line_error_not_a_traceback():
    def loop(conn, request):
        conn.sendall(response(status=302, headers={"Location": "/again"}))

    with RawServer(loop) as server, client() as http, pytest.raises(SourceError) as caught:
        http.get(server.url + "/start")
    assert "redirect loop" in caught.value.message and "not retried" in caught.value.hint


def test_bad_gzip_is_a_one_line_error_and_not_retried():
    with RawServer(bad_gzip()) as server, client(retry=RetryPolicy(max_retries=3)) as http:
        with pytest.raises(SourceError) as caught:
            http.get(server.url + "/feed")
        assert "could not be decoded" in caught.value.message
        assert len(server.requests) == 1


def test_a_gzip_bomb_stops_at_the_decompressed_size_cap():
    bomb = gzip_bomb(64 * 1024 * 1024)  # 64 MiB of zeros in ~64 KB

    def serve(conn, request):
        conn.sendall(response(bomb, headers={"Content-Encoding": "gzip"}))

    capped = pytest.raises(SourceError, match="larger than 1048576 bytes")
    with RawServer(serve) as server, client(max_bytes=1024 * 1024) as http, capped:
        http.get(server.url + "/feed")


def test_a_pdf_that_inflates_to_a_gib_stops_at_the_readers_memory_cap():
    bomb = pdf_bomb(1024 * 1024 * 1024)
    assert len(bomb) < 2_000_000

    def serve(conn, request):
        path = request.split(b" ", 2)[1]
        if path.startswith(b"/pdf/"):
            conn.sendall(response(bomb, headers={"Content-Type": "application/pdf"}))
        else:
            conn.sendall(response(b"gone", status=404))

    started = time.monotonic()
    with RawServer(serve) as server, client() as http:
        document = _read_from(server, http, version=1)
    assert time.monotonic() - started < 20
    assert document.source == "abstract"
    assert "more than 1024 MiB of memory" in document.attempts[-1]


def test_redirect_loops_and_bad_gzip_in_full_text_are_recorded_fetch_failures():
    def serve(conn, request):
        if b"/html/" in request.split(b"\r\n", 1)[0]:
            conn.sendall(response(status=302, headers={"Location": "/html/2605.10001"}))
        else:
            conn.sendall(response(b"garbage", headers={"Content-Encoding": "gzip"}))

    with RawServer(serve) as server, client() as http:
        document = _read_from(server, http, version=None)
    assert document.flags == ("abstract-only", "fetch-failed")
    html, ar5iv, pdf = document.attempts
    assert "fetch failed" in html and "redirect loop" in html
    assert "could not be decoded" in ar5iv and "could not be decoded" in pdf


def test_no_network_fails_fast_across_all_three_full_text_sources():
    bases = {
        "html_base": "http://arxiv.invalid/html",
        "ar5iv_base": "http://ar5iv.invalid/html",
        "pdf_base": "http://arxiv.invalid/pdf",
    }
    started = time.monotonic()
    with client(retry=RetryPolicy(max_retries=4)) as http:
        documents = [
            read_paper(PAPER.id, 1, http, abstract_fallback=PAPER, **bases) for _ in range(4)
        ]
    assert time.monotonic() - started < 5  # was 1:40 per paper
    for document in documents:
        assert document.source == "abstract"
        assert document.flags == ("abstract-only", "fetch-failed")
        assert all(": fetch failed: " in attempt for attempt in document.attempts)
    assert "DNS lookup failed" in documents[0].attempts[0]
    assert "not tried" in documents[1].attempts[0]  # the host is remembered as unreachable


def test_a_missing_html_is_not_called_a_fetch_failure():
    def not_there(conn, request):
        conn.sendall(
            response(
                b"<h1>No HTML for '2605.10001'</h1>HTML is not available for the source", status=404
            )
        )

    with RawServer(not_there) as server, client() as http:
        document = _read_from(server, http, version=1)
    assert document.flags == ("abstract-only",)  # absent, not failed
    assert "fetch failed" not in " ".join(document.attempts)


def test_full_text_after_the_run_deadline_is_not_fetched():
    with RawServer(lambda conn, request: None) as server:
        with client(deadline=Deadline.after(0, "the run's deadline")) as http:
            document = read_paper(
                PAPER.id,
                1,
                http,
                html_base=server.url,
                ar5iv_base=server.url,
                pdf_base=server.url,
                abstract_fallback=PAPER,
            )
        assert server.requests == []
    assert "fetch-failed" in document.flags
    assert "deadline" in document.attempts[0] and "not tried" in document.attempts[-1]


def test_a_listing_with_no_network_is_fetch_failed_at_once():
    started = time.monotonic()
    with client(retry=RetryPolicy(max_retries=4)) as http, pytest.raises(FetchFailed) as caught:
        fetch_listing(
            date(2026, 5, 22),
            ["cs.SE", "cs.AI"],
            http,
            rss_base="http://rss.invalid/atom",
            api_base="http://export.invalid/api",
            list_base="http://arxiv.invalid/list",
        )
    assert time.monotonic() - started < 3
    assert "DNS lookup failed" in caught.value.message and "--listing" in caught.value.hint


def test_the_unreachable_host_error_is_typed_for_callers():
    with client() as http, pytest.raises(HostUnreachable) as caught:
        http.get("http://arxiv.invalid/x")
    assert caught.value.reason.startswith("DNS lookup failed")


def test_read_with_no_network_at_all_is_one_line_in_seconds(tmp_path: Path):
    command = [sys.executable, "-m", "paperbrief", "read", "2501.11120"]
    started = time.monotonic()
    done = subprocess.run(
        without_network(command, loopback=False),
        cwd=ROOT,
        text=True,
        capture_output=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PAPERBRIEF_HOME": str(tmp_path)},
    )
    elapsed = time.monotonic() - started
    assert elapsed < 30  # was 1:40 (5 retries x 3 sources)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "error:" in done.stderr and "hint:" in done.stderr
