"""fetch_listing and fetch_papers against a real HTTP server on 127.0.0.1.

The server replays the recorded arXiv responses in tests/fixtures/sources/ and cases derived
from them (stale, empty, truncated, failing). The export API is answered from a catalogue
built out of the recorded feed (same ids, titles, authors, categories).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from paperbrief.errors import (
    EXIT_FETCH_FAILED,
    EXIT_NO_ANNOUNCEMENT,
    EmptyDay,
    FetchFailed,
    NoAnnouncement,
    SourceError,
)
from paperbrief.http import PoliteClient
from paperbrief.models import Paper
from paperbrief.retry import RetryPolicy
from paperbrief.sources import fetch_listing
from paperbrief.sources.arxiv_api import fetch_papers
from paperbrief.sources.arxiv_feed import parse_feed
from paperbrief.sources.listing_page import parse_listing_page
from tests.support.arxiv import (
    ATOM_86,
    ATOM_TRUNCATED,
    PAGE_CURRENT,
    RSS2_4,
    SOURCES_FIXTURES,
    api_answer,
    derived_new_page,
)

FEED_DAY = date(2025, 8, 20)  # a Wednesday


class Recorder:
    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def client(recorder: Recorder) -> PoliteClient:
    with PoliteClient(sleep=recorder.sleep, timeout=5, retry=RetryPolicy(max_retries=2)) as polite:
        yield polite  # type: ignore[misc]


def catalogue_from_feed(path: Path) -> dict[str, Paper]:
    """What the export API knows about the feed's papers (from the recorded feed itself)."""
    return {
        entry.id: Paper(
            id=entry.id,
            title=entry.title,
            authors=entry.authors,
            abstract=entry.abstract,
            categories=entry.categories,
            primary_category=entry.categories[0],
            comment=f"{len(entry.authors)} authors; API comment",
            version=entry.version,
        )
        for entry in parse_feed(path.read_bytes()).entries
    }


def api_handler(catalogue: dict[str, Paper], requests: list[list[str]]) -> Callable:
    def handle(request: Request) -> Response:
        ids = request.args.get("id_list", "").split(",")
        requests.append(ids)
        known = [catalogue[paper_id] for paper_id in ids if paper_id in catalogue]
        return Response(api_answer(known), content_type="application/atom+xml")

    return handle


def urls(server: HTTPServer) -> dict[str, str]:
    return {
        "rss_base": server.url_for("/atom"),
        "api_base": server.url_for("/api/query"),
        "list_base": server.url_for("/list"),
    }


def test_feed_listing_gets_api_metadata_in_batches(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(
        ATOM_86.read_bytes(), content_type="application/atom+xml"
    )
    api_requests: list[list[str]] = []
    catalogue = catalogue_from_feed(ATOM_86)
    httpserver.expect_request("/api/query").respond_with_handler(
        api_handler(catalogue, api_requests)
    )
    listing = fetch_listing(FEED_DAY, ["cs.AI"], client, api_batch_size=50, **urls(httpserver))
    assert listing.day == FEED_DAY and listing.source == "arxiv-feed" and listing.notes == ()
    assert len(listing.papers) == 86
    assert Counter(p.listings["cs.AI"] for p in listing.papers) == {"new": 41, "cross": 45}
    assert [len(batch) for batch in api_requests] == [50, 36]
    chain = next(p for p in listing.papers if p.id == "2508.13167")
    assert chain.comment == "30 authors; API comment"  # filled in by the API
    assert chain.announced == "2025-08-20" and chain.version == 1
    user_agents = {entry[0].headers["User-Agent"] for entry in httpserver.log}
    assert len(user_agents) == 1 and user_agents.pop().startswith("paperbrief/")


def test_combined_feed_leaves_replacements_out_unless_asked(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    categories = ["cs.LG", "cs.AI", "cs.CL", "stat.ML"]
    httpserver.expect_request("/atom/cs.LG+cs.AI+cs.CL+stat.ML").respond_with_data(
        RSS2_4.read_bytes()
    )
    httpserver.expect_request("/api/query").respond_with_handler(
        api_handler(catalogue_from_feed(RSS2_4), [])
    )
    day = date(2026, 9, 24)
    listing = fetch_listing(day, categories, client, **urls(httpserver))
    assert {p.id: p.listings for p in listing.papers} == {
        "2609.26811": {"cs.LG": "new"},
        "2609.26820": {"cs.LG": "new", "cs.AI": "cross"},
        "2205.06398": {"stat.ML": "cross"},
    }
    with_replacements = fetch_listing(
        day, categories, client, include_replacements=True, **urls(httpserver)
    )
    assert with_replacements.papers[-1].id == "2009.13987"
    assert with_replacements.papers[-1].listings == {"cs.LG": "replace", "stat.ML": "replace"}


def _serve_page_and_api(server: HTTPServer, day: date) -> list[tuple[str, str]]:
    page, expected = derived_new_page(day, new=4, cross=3, replace=2)
    server.expect_request("/list/cs.AI/new").respond_with_data(page, content_type="text/html")
    catalogue = {
        paper_id: Paper(
            id=paper_id,
            title=f"Paper {paper_id}",
            authors=("A. Author",),
            abstract=f"Derived abstract of {paper_id}.",
            categories=("cs.AI",) if kind == "new" else ("cs.LG", "cs.AI"),
            primary_category="cs.AI" if kind == "new" else "cs.LG",
        )
        for paper_id, kind in expected
    }
    server.expect_request("/api/query").respond_with_handler(api_handler(catalogue, []))
    return expected


def test_stale_feed_falls_back_to_the_list_page(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(ATOM_86.read_bytes())
    expected = _serve_page_and_api(httpserver, FEED_DAY)
    yesterday = set(catalogue_from_feed(ATOM_86))  # the feed repeats yesterday's ids
    listing = fetch_listing(FEED_DAY, ["cs.AI"], client, previous_ids=yesterday, **urls(httpserver))
    assert listing.source == "arxiv-list-page"
    assert any("stale (86 of 86 ids" in note for note in listing.notes)
    kept = [(paper_id, kind) for paper_id, kind in expected if kind != "replace"]
    assert [(p.id, p.listings["cs.AI"]) for p in listing.papers] == kept
    assert listing.papers[0].title == f"Paper {kept[0][0]}"


@pytest.mark.parametrize(
    ("feed_body", "note"),
    [
        (re.sub(rb"<entry>.*</entry>", b"", ATOM_86.read_bytes(), flags=re.S), "feed was empty"),
        (ATOM_TRUNCATED.read_bytes(), "not well-formed XML"),
        (ATOM_86.read_bytes().replace(b"2025-08-20T00:00", b"2025-08-19T00:00"), "announces"),
    ],
    ids=["empty-feed", "truncated-feed", "yesterdays-feed"],
)
def test_unusable_feed_falls_back_to_the_list_page(
    httpserver: HTTPServer, client: PoliteClient, feed_body: bytes, note: str
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(feed_body)
    _serve_page_and_api(httpserver, FEED_DAY)
    listing = fetch_listing(FEED_DAY, ["cs.AI"], client, **urls(httpserver))
    assert listing.source == "arxiv-list-page"
    assert len(listing.papers) == 7
    assert any(note in text for text in listing.notes), listing.notes


def test_weekend_day_is_no_announcement_without_any_request(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(date(2025, 8, 23), ["cs.AI"], client, **urls(httpserver))
    assert isinstance(caught.value, NoAnnouncement)
    assert caught.value.exit_code == EXIT_NO_ANNOUNCEMENT
    assert "Saturday" in caught.value.message
    assert httpserver.log == []


def test_empty_feed_and_empty_page_on_a_weekday_is_no_announcement(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    empty_feed = re.sub(rb"<entry>.*</entry>", b"", ATOM_86.read_bytes(), flags=re.S)
    httpserver.expect_request("/atom/cs.AI").respond_with_data(empty_feed)
    page, _ = derived_new_page(FEED_DAY, new=0, cross=0, replace=0)
    httpserver.expect_request("/list/cs.AI/new").respond_with_data(page)
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(FEED_DAY, ["cs.AI"], client, **urls(httpserver))
    assert isinstance(caught.value, NoAnnouncement)
    assert caught.value.exit_code == EXIT_NO_ANNOUNCEMENT


def test_everything_failing_is_fetch_failed(
    httpserver: HTTPServer, client: PoliteClient, recorder: Recorder
) -> None:
    httpserver.expect_request("/atom/cs.SE+cs.AI").respond_with_data("down", status=503)
    httpserver.expect_request("/list/cs.SE/new").respond_with_data("down", status=503)
    httpserver.expect_request("/list/cs.AI/new").respond_with_data("gone", status=404)
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(FEED_DAY, ["cs.SE", "cs.AI"], client, **urls(httpserver))
    assert isinstance(caught.value, FetchFailed)
    assert caught.value.exit_code == EXIT_FETCH_FAILED
    assert "HTTP 503" in caught.value.message and "HTTP 404" in caught.value.message
    # 3 attempts on each 503, one on the 404 (not retried)
    assert len(httpserver.log) == 3 + 3 + 1


def test_api_outage_keeps_the_feed_metadata_with_a_note(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(ATOM_86.read_bytes())
    httpserver.expect_request("/api/query").respond_with_data("busy", status=503)
    listing = fetch_listing(FEED_DAY, ["cs.AI"], client, **urls(httpserver))
    assert len(listing.papers) == 86
    assert listing.papers[0].title.startswith("Chain-of-Agents")
    assert any("export API unavailable" in note for note in listing.notes)


def test_api_empty_page_is_retried(
    httpserver: HTTPServer, client: PoliteClient, recorder: Recorder
) -> None:
    httpserver.expect_ordered_request("/api/query").respond_with_data(
        (SOURCES_FIXTURES / "api_id_0000.0000_no_results.xml").read_bytes()
    )
    httpserver.expect_ordered_request("/api/query").respond_with_data(
        (SOURCES_FIXTURES / "api_id_1605.08386.xml").read_bytes()
    )
    papers = fetch_papers(["1605.08386v1"], client, api_base=httpserver.url_for("/api/query"))
    assert list(papers) == ["1605.08386"]
    assert papers["1605.08386"].title == "Heat-bath random walks with Markov bases"
    assert len(httpserver.log) == 2
    assert httpserver.log[0][0].args["id_list"] == "1605.08386"


def test_api_http_400_error_body_is_reported_without_retry(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    httpserver.expect_request("/api/query").respond_with_data(
        (SOURCES_FIXTURES / "api_id_abc_error_http400.xml").read_bytes(), status=400
    )
    with pytest.raises(SourceError) as caught:
        fetch_papers(["abc"], client, api_base=httpserver.url_for("/api/query"))
    assert "HTTP 400" in caught.value.message
    assert "incorrect id format for abc" in caught.value.message
    assert len(httpserver.log) == 1


def test_list_page_for_another_day_is_not_used(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(ATOM_86.read_bytes())
    _serve_page_and_api(httpserver, date(2025, 8, 19))
    yesterday = set(catalogue_from_feed(ATOM_86))
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(FEED_DAY, ["cs.AI"], client, previous_ids=yesterday, **urls(httpserver))
    assert isinstance(caught.value, NoAnnouncement)
    assert "2025-08-19" in caught.value.message


def test_requests_are_spaced_by_the_politeness_delay(
    httpserver: HTTPServer, recorder: Recorder
) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data(ATOM_86.read_bytes())
    httpserver.expect_request("/api/query").respond_with_handler(
        api_handler(catalogue_from_feed(ATOM_86), [])
    )
    with PoliteClient(sleep=recorder.sleep, delay_seconds=3.0) as polite:
        listing = fetch_listing(FEED_DAY, ["cs.AI"], polite, api_batch_size=30, **urls(httpserver))
    assert len(listing.papers) == 86
    assert len(httpserver.log) == 4  # feed + 3 API batches
    # the fake sleep does not advance the real clock, so each later request waits ~3 s
    assert len(recorder.sleeps) == 3
    assert all(2.5 < seconds <= 3.0 for seconds in recorder.sleeps)


def test_paper_listings_use_the_api_primary_category(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    # the feed lists cs.AI first, but the API says the paper's primary is cs.CL
    httpserver.expect_request("/atom/cs.AI+cs.CL").respond_with_data(ATOM_86.read_bytes())
    catalogue = catalogue_from_feed(ATOM_86)
    catalogue["2508.13167"] = replace(
        catalogue["2508.13167"], primary_category="cs.CL", categories=("cs.CL", "cs.AI")
    )
    httpserver.expect_request("/api/query").respond_with_handler(api_handler(catalogue, []))
    listing = fetch_listing(FEED_DAY, ["cs.AI", "cs.CL"], client, **urls(httpserver))
    chain = next(p for p in listing.papers if p.id == "2508.13167")
    assert chain.primary_category == "cs.CL"
    assert chain.listings == {"cs.AI": "cross", "cs.CL": "new"}


def _serve_pastweek(server: HTTPServer) -> list[Paper]:
    """A feed already at Fri 22 Nov 2024 and the real astro-ph /pastweek page of that week."""
    feed = ATOM_86.read_bytes().replace(b"2025-08-20T00:00:00", b"2024-11-22T00:00:00")
    server.expect_request("/atom/astro-ph").respond_with_data(feed)
    server.expect_request("/list/astro-ph/pastweek", query_string="show=2000").respond_with_data(
        PAGE_CURRENT.read_bytes(), content_type="text/html"
    )
    entries = parse_listing_page(PAGE_CURRENT.read_bytes()).entries
    catalogue = {
        e.id: Paper(
            id=e.id,
            title=e.title,
            authors=e.authors,
            abstract=f"Abstract of {e.id}.",
            categories=e.categories,
            primary_category=e.primary_category,
        )
        for e in entries
    }
    server.expect_request("/api/query").respond_with_handler(api_handler(catalogue, []))
    return list(catalogue.values())


def test_past_day_is_read_from_the_pastweek_page(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    _serve_pastweek(httpserver)
    thursday = date(2024, 11, 21)
    listing = fetch_listing(thursday, ["astro-ph"], client, **urls(httpserver))
    assert listing.source == "arxiv-pastweek-page"
    assert len(listing.papers) == 67  # "Thu, 21 Nov 2024 (showing 67 of 67 entries )"
    assert Counter(p.listings["astro-ph"] for p in listing.papers) == {"new": 56, "cross": 11}
    survey = next(p for p in listing.papers if p.id == "2411.13551")
    assert survey.abstract == "Abstract of 2411.13551." and survey.announced == "2024-11-21"
    assert any("announces 2024-11-22, not 2024-11-21" in note for note in listing.notes)
    assert not any("/new" in entry[0].path for entry in httpserver.log)  # skipped: also newer


def test_day_older_than_the_pastweek_is_fetch_failed(
    httpserver: HTTPServer, client: PoliteClient
) -> None:
    _serve_pastweek(httpserver)
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(date(2024, 11, 11), ["astro-ph"], client, **urls(httpserver))
    assert isinstance(caught.value, FetchFailed)
    assert "older than the past week" in caught.value.message
    assert "--listing" in caught.value.hint


def test_unreachable_host_stops_after_the_first_page(client: PoliteClient) -> None:
    # nothing listens on port 9: the feed and the first /new page fail at connection level,
    # the other categories' pages (same host) are not tried
    dead = "http://127.0.0.1:9"
    with pytest.raises(EmptyDay) as caught:
        fetch_listing(
            FEED_DAY,
            ["cs.SE", "cs.AI", "cs.LG"],
            client,
            rss_base=f"{dead}/atom",
            api_base=f"{dead}/api/query",
            list_base=f"{dead}/list",
        )
    assert isinstance(caught.value, FetchFailed)
    assert "cs.SE /new page" in caught.value.message
    assert "cs.AI" not in caught.value.message.split("cs.SE /new page")[1]
