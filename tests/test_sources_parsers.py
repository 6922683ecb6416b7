"""Parsers of the recorded real arXiv responses in tests/fixtures/sources/."""

from __future__ import annotations

import gzip
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from paperbrief.errors import FeedParseError, SourceError
from paperbrief.sources import (
    digest_date_for,
    latest_listing_day,
    listing_day_for,
    load_snapshot,
    previous_listing_day,
)
from paperbrief.sources.arxiv_api import parse_api_feed
from paperbrief.sources.arxiv_feed import feed_url, parse_feed, split_authors
from paperbrief.sources.listing_page import listing_page_url, parse_listing_page
from tests.support.arxiv import (
    ATOM_86,
    ATOM_TRUNCATED,
    PAGE_CURRENT,
    PAGE_LEGACY,
    RSS2_4,
    SNAPSHOT,
    SOURCES_FIXTURES,
    derived_new_page,
)

# --- listing feeds ------------------------------------------------------------------------


def test_atom_feed_has_41_new_and_45_cross_entries() -> None:
    feed = parse_feed(ATOM_86.read_bytes())
    assert len(feed.entries) == 86
    assert Counter(entry.announce_type for entry in feed.entries) == {"new": 41, "cross": 45}
    assert feed.day == date(2025, 8, 20)
    first = feed.entries[0]
    assert first.id == "2508.13167" and first.version == 1
    assert first.title.startswith("Chain-of-Agents: End-to-End Agent Foundation Models")
    assert first.categories == ("cs.AI", "cs.CL")
    assert first.abstract.startswith("Recent advances in large language models")
    assert "Announce Type" not in first.abstract
    assert len(first.authors) == 30 and first.authors[0] == "Weizhen Li"
    assert first.authors[-1] == "Wangchunshu Zhou"


def test_rss2_feed_gives_announce_types_versions_and_categories() -> None:
    feed = parse_feed(RSS2_4.read_bytes())
    assert feed.day == date(2026, 9, 24)
    assert [(e.id, e.version, e.announce_type) for e in feed.entries] == [
        ("2609.26811", 1, "new"),
        ("2609.26820", 1, "new"),
        ("2205.06398", 2, "cross"),
        ("2009.13987", 3, "replace"),
    ]
    cross = feed.entries[2]
    assert cross.categories == ("stat.ME", "stat.AP", "stat.ML")
    assert cross.authors == ("Pritam Dey", "Zhengwu Zhang", "David B. Dunson")
    assert feed.entries[3].kind == "replace"


def test_truncated_feed_raises_feed_parse_error_with_position() -> None:
    with pytest.raises(FeedParseError) as caught:
        parse_feed(ATOM_TRUNCATED.read_bytes(), "cs.AI feed")
    assert "cs.AI feed is not well-formed XML" in caught.value.message
    assert "line 1233" in caught.value.message and "truncated" in caught.value.message
    assert caught.value.hint


def test_feed_parser_rejects_html_and_empty_bodies() -> None:
    with pytest.raises(FeedParseError, match="neither an Atom nor an RSS feed"):
        parse_feed(b"<html><body>Service unavailable</body></html>")
    with pytest.raises(FeedParseError, match="is empty"):
        parse_feed(b"  \n")


def test_feed_parser_does_not_resolve_external_entities(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    hostile = (
        f'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY leak SYSTEM "file://{secret}">]>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>oai:arXiv.org:2508.00001v1</id>'
        "<title>&leak;</title><summary>x</summary></entry></feed>"
    ).encode()
    feed = parse_feed(hostile)
    assert "TOP-SECRET" not in feed.entries[0].title


def test_split_authors_and_feed_url() -> None:
    assert split_authors("A. One, B. Two and C. Three") == ("A. One", "B. Two", "C. Three")
    assert split_authors("") == ()
    assert feed_url("http://127.0.0.1:1/atom/", ["cs.SE", "cs.AI"]) == (
        "http://127.0.0.1:1/atom/cs.SE+cs.AI"
    )


# --- export API ---------------------------------------------------------------------------


def test_api_feed_with_full_metadata() -> None:
    page = parse_api_feed((SOURCES_FIXTURES / "api_id_1605.08386.xml").read_bytes())
    assert page.total_results == 1
    (paper,) = page.papers
    assert (paper.id, paper.version) == ("1605.08386", 1)
    assert paper.title == "Heat-bath random walks with Markov bases"
    assert paper.primary_category == "math.CO"
    assert paper.categories == ("math.CO", "math.ST")
    assert paper.comment == "20 pages, 3 figures"
    assert len(paper.authors) == 2


def test_api_feed_with_many_authors_and_old_style_id() -> None:
    many = parse_api_feed((SOURCES_FIXTURES / "api_id_0808.05394_1707.08567.xml").read_bytes())
    (paper,) = many.papers  # 0808.05394 does not exist: only one of two ids answered
    assert paper.id == "1707.08567" and len(paper.authors) == 34
    old = parse_api_feed((SOURCES_FIXTURES / "api_id_astro-ph_0601001.xml").read_bytes())
    assert old.papers[0].id == "astro-ph/0601001" and old.papers[0].version == 1
    versioned = parse_api_feed((SOURCES_FIXTURES / "api_id_2104.12255v1.xml").read_bytes())
    assert versioned.papers[0].title == "0" and versioned.papers[0].comment is None


def test_api_zero_results_and_error_feed() -> None:
    empty = parse_api_feed((SOURCES_FIXTURES / "api_id_0000.0000_no_results.xml").read_bytes())
    assert empty.papers == () and empty.total_results == 0
    with pytest.raises(SourceError, match="incorrect id format for abc"):
        parse_api_feed((SOURCES_FIXTURES / "api_id_abc_error_http400.xml").read_bytes())


# --- /list pages --------------------------------------------------------------------------


def test_legacy_listing_page_entries_and_cross_lists() -> None:
    page = parse_listing_page(PAGE_LEGACY.read_bytes())
    assert len(page.entries) == 76
    assert Counter(entry.kind for entry in page.entries) == {"new": 43, "cross": 33}
    first = page.entries[0]
    assert first.id == "2403.08726"
    assert first.title == "Euclid: Testing photometric selection of emission-line galaxy targets"
    assert first.authors[:2] == ("M. S. Cagliari", "B. R. Granett")
    assert first.categories == ("astro-ph.CO",)
    cross = next(entry for entry in page.entries if entry.id == "2403.08759")
    assert cross.kind == "cross" and cross.primary_category == "astro-ph.GA"


def test_current_listing_page_keeps_tex_of_mathjax_titles() -> None:
    page = parse_listing_page(PAGE_CURRENT.read_bytes())
    assert len(page.entries) == 397
    assert Counter(entry.kind for entry in page.entries) == {"new": 334, "cross": 63}
    survey = next(entry for entry in page.entries if entry.id == "2411.13551")
    assert survey.title == (
        "A Survey of H I and O VI Absorption Lines in the Outskirts of $z\\lesssim0.3$ "
        "Galaxy Clusters"
    )
    assert survey.authors[0] == "Priscilla Holguin Luna"
    assert page.day is None  # a /pastweek page has no "Showing new listings for" line


def test_derived_new_page_sections_give_kinds_and_day() -> None:
    content, expected = derived_new_page(date(2025, 8, 20), new=4, cross=3, replace=2)
    page = parse_listing_page(content)
    assert page.day == date(2025, 8, 20)
    assert [(e.id, e.kind) for e in page.entries] == expected
    assert page.entries[0].abstract.startswith("Derived abstract of")


def test_listing_page_without_listing_markup_is_an_error() -> None:
    with pytest.raises(FeedParseError, match="no listing"):
        parse_listing_page(b"<html><body><p>We are down for maintenance.</p></body></html>")
    assert listing_page_url("http://x/list/", "cs.SE") == "http://x/list/cs.SE/new"


# --- snapshots ----------------------------------------------------------------------------


def test_load_snapshot_of_a_real_day() -> None:
    listing = load_snapshot(SNAPSHOT)
    assert listing.day == date(2026, 5, 22)
    assert len(listing.papers) == 12
    assert listing.source == f"snapshot:{SNAPSHOT}"
    teaching = next(p for p in listing.papers if p.id == "2605.21491")
    assert teaching.title.startswith("Teaching Language Models to Forecast Research Success")
    assert teaching.listings == {"cs.AI": "cross", "cs.CL": "cross", "cs.LG": "new"}
    assert teaching.primary_category == "cs.LG" and teaching.announced == "2026-05-22"


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_snapshot_day_from_announced_field_and_versions(tmp_path: Path) -> None:
    lines = gzip.decompress(SNAPSHOT.read_bytes()).decode().splitlines()[:3]
    lines[0] = lines[0].replace('"id": "2605.20348"', '"id": "2605.20348v2"')
    listing = load_snapshot(_write_lines(tmp_path / "today.jsonl", lines))
    assert listing.day == date(2026, 5, 22)
    assert (listing.papers[0].id, listing.papers[0].version) == ("2605.20348", 2)
    assert load_snapshot(tmp_path / "today.jsonl", day=date(2026, 5, 21)).day == date(2026, 5, 21)


def test_snapshot_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    lines = gzip.decompress(SNAPSHOT.read_bytes()).decode().splitlines()[:4]
    lines[2] = lines[2][:80]  # cut mid-record
    path = _write_lines(tmp_path / "2026-05-22.jsonl", lines)
    with pytest.raises(FeedParseError) as caught:
        load_snapshot(path)
    assert f"{path}:3: invalid JSON" in caught.value.message
    lines[2] = '{"title": "no id"}'
    with pytest.raises(FeedParseError, match=r":3: not a valid paper record"):
        load_snapshot(_write_lines(path, lines))


def test_snapshot_missing_or_empty_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        load_snapshot(tmp_path / "nope.jsonl.gz")
    with pytest.raises(FeedParseError, match="holds no papers"):
        load_snapshot(_write_lines(tmp_path / "2026-05-22.jsonl", [""]))


# --- listing days -------------------------------------------------------------------------


def test_listing_day_for_digest_dates() -> None:
    friday = date(2026, 5, 22)
    assert listing_day_for(date(2026, 5, 23)) == friday  # Saturday
    assert listing_day_for(date(2026, 5, 24)) == friday  # Sunday
    assert listing_day_for(date(2026, 5, 25)) == friday  # Monday
    assert listing_day_for(date(2026, 5, 27)) == date(2026, 5, 26)  # Wednesday -> Tuesday
    assert previous_listing_day(date(2026, 5, 25)) == friday  # the listing before Monday's
    for offset in range(14):
        day = date(2026, 5, 18 + offset)
        if day.weekday() < 5:
            assert listing_day_for(digest_date_for(day)) == day


def test_latest_listing_day_follows_the_20h_eastern_announcement() -> None:
    # Thursday 21 May 2026, 19:59 EDT = 23:59 UTC: Thursday's listing is the newest
    assert latest_listing_day(datetime(2026, 5, 21, 23, 59, tzinfo=UTC)) == date(2026, 5, 21)
    # 20:01 EDT: Friday's listing is out
    assert latest_listing_day(datetime(2026, 5, 22, 0, 1, tzinfo=UTC)) == date(2026, 5, 22)
    # Saturday and Sunday afternoon: still Friday's; Sunday 20:00 EDT announces Monday's
    assert latest_listing_day(datetime(2026, 5, 23, 18, 0, tzinfo=UTC)) == date(2026, 5, 22)
    assert latest_listing_day(datetime(2026, 5, 25, 0, 30, tzinfo=UTC)) == date(2026, 5, 25)
