"""The source fallbacks, the store cache and `paperbrief read`, against a loopback server."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import FullTextError
from paperbrief.fulltext import load_or_read_paper, read_paper
from paperbrief.http import PoliteClient
from paperbrief.models import Paper
from paperbrief.retry import RetryPolicy
from paperbrief.store import open_store
from tests.support import FIXTURES

FULLTEXT_FIXTURES = FIXTURES / "fulltext"
BEHAVIORS = (FULLTEXT_FIXTURES / "arxiv_html_2501.11120v1.html").read_bytes()
ERRORS = (FULLTEXT_FIXTURES / "arxiv_html_2510.14430v1_ltx_errors.html").read_bytes()
AUTHOR = (FULLTEXT_FIXTURES / "arxiv_html_author_submitted_cs_9901011v1.htm").read_bytes()
PDF = (FULLTEXT_FIXTURES / "arxiv_pdf_2304.02623v1.pdf").read_bytes()
# Built from the two strings of arXiv's no_html.html template (arXiv/arxiv-browse).
NO_HTML = (
    "<!DOCTYPE html><html><head><title>No HTML</title></head><body>"
    "<h1>No HTML for '2510.14430v1'</h1><p>HTML is not available for the source.</p>"
    "<p>This could be due to the source files not being HTML, LaTeX, or a conversion "
    "failure.</p></body></html>"
)
FAILED_CONVERSION = (
    "<html><body><div class='ltx_page_main'><article class='ltx_document'>"
    "<h1 class='ltx_title ltx_title_document'>Broken</h1></article></div></body></html>"
)


@pytest.fixture
def client():
    with PoliteClient(
        delay_seconds=0, retry=RetryPolicy(max_retries=0), sleep=lambda _: None
    ) as polite:
        yield polite


def endpoints(httpserver) -> dict[str, str]:
    return {
        "html_base": httpserver.url_for("/html"),
        "ar5iv_base": httpserver.url_for("/ar5iv/html"),
        "pdf_base": httpserver.url_for("/pdf"),
    }


def metadata(paper_id: str = "2510.14430", version: int | None = 1) -> Paper:
    return Paper(
        id=paper_id,
        title="The geometry of PLS shrinkages",
        authors=("A. Author", "B. Author"),
        abstract="Listing abstract.",
        categories=("math.ST",),
        primary_category="math.ST",
        version=version,
    )


def test_native_html_is_used_first_with_arxiv_figure_urls(httpserver, client):
    httpserver.expect_request("/html/2501.11120v1").respond_with_data(
        BEHAVIORS, content_type="text/html; charset=utf-8"
    )
    doc = read_paper("2501.11120", 1, client, **endpoints(httpserver))
    assert doc.source == "arxiv-html" and doc.attempts == ()
    assert doc.source_url == httpserver.url_for("/html/2501.11120v1")
    assert len(doc.tables) == 47
    assert doc.figures[0].url == "https://arxiv.org/html/2501.11120v1/x1.png"


def test_no_html_page_falls_through_to_ar5iv(httpserver, client):
    httpserver.expect_request("/html/2510.14430v1").respond_with_data(
        NO_HTML, status=404, content_type="text/html"
    )
    httpserver.expect_request("/ar5iv/html/2510.14430").respond_with_data(
        ERRORS, content_type="text/html; charset=utf-8"
    )
    doc = read_paper("2510.14430", 1, client, **endpoints(httpserver), abstract_fallback=metadata())
    assert doc.source == "ar5iv"
    assert len(doc.attempts) == 1
    assert doc.attempts[0].startswith("arxiv-html: arXiv has no HTML for this paper")
    assert "latexml-errors:410" in doc.flags  # errors mostly in the bibliography: still used
    assert doc.authors == ("A. Author", "B. Author")  # listing metadata fills what is missing
    assert "metadata-from-listing" in doc.flags


def test_no_html_page_with_status_200_is_recognised_too(httpserver, client):
    httpserver.expect_request("/html/2304.02623").respond_with_data(NO_HTML)
    httpserver.expect_request("/ar5iv/html/2304.02623").respond_with_data("", status=404)
    httpserver.expect_request("/pdf/2304.02623").respond_with_data(
        PDF, content_type="application/pdf"
    )
    doc = read_paper("2304.02623", None, client, **endpoints(httpserver))
    assert doc.source == "pdf"
    assert doc.attempts[0] == (
        "arxiv-html: arXiv has no HTML for this paper ('HTML is not available for the source')"
    )
    assert doc.attempts[1].startswith("ar5iv: GET") and "HTTP 404" in doc.attempts[1]
    assert doc.sections[0].heading == "Introduction"


def test_failed_conversion_and_ar5iv_redirect_fall_through_to_pdf(httpserver, client):
    httpserver.expect_request("/html/2304.02623v1").respond_with_data(
        FAILED_CONVERSION, content_type="text/html"
    )
    httpserver.expect_request("/ar5iv/html/2304.02623").respond_with_data(
        "", status=302, headers={"Location": httpserver.url_for("/abs/2304.02623")}
    )
    httpserver.expect_request("/abs/2304.02623").respond_with_data("<html>abs page</html>")
    httpserver.expect_request("/pdf/2304.02623v1").respond_with_data(
        PDF, content_type="application/pdf"
    )
    doc = read_paper("2304.02623", 1, client, **endpoints(httpserver))
    assert doc.source == "pdf"
    assert doc.attempts == (
        "arxiv-html: conversion failed: the page has no section with text",
        "ar5iv: redirected to the abstract page (no conversion)",
    )
    assert "pdf-no-tables" in doc.flags


def test_author_submitted_html_is_accepted_and_flagged(httpserver, client):
    httpserver.expect_request("/html/cs/9901011v1").respond_with_data(
        AUTHOR, content_type="text/html; charset=iso-8859-1"
    )
    doc = read_paper("cs/9901011", 1, client, **endpoints(httpserver))
    assert doc.source == "arxiv-html" and "author-html" in doc.flags
    assert doc.title == "A Brief History of the Internet"


def test_everything_failing_gives_the_abstract_or_an_error(httpserver, client):
    for path in ("/html/2599.00001v2", "/ar5iv/html/2599.00001", "/pdf/2599.00001v2"):
        httpserver.expect_request(path).respond_with_data("not here", status=404)
    paper = metadata("2599.00001", 2)
    doc = read_paper("2599.00001", 2, client, **endpoints(httpserver), abstract_fallback=paper)
    assert doc.source == "abstract" and doc.abstract == "Listing abstract."
    assert [a.split(":")[0] for a in doc.attempts] == ["arxiv-html", "ar5iv", "pdf"]
    with pytest.raises(FullTextError) as caught:
        read_paper("2599.00001", 2, client, **endpoints(httpserver))
    assert "no full text for 2599.00001v2" in caught.value.message and caught.value.hint


def test_body_over_the_size_cap_is_refused(httpserver, client):
    httpserver.expect_request("/html/2501.11120v1").respond_with_data(BEHAVIORS)
    httpserver.expect_request("/ar5iv/html/2501.11120").respond_with_data("", status=404)
    httpserver.expect_request("/pdf/2501.11120v1").respond_with_data("", status=404)
    with pytest.raises(FullTextError) as caught:
        read_paper("2501.11120", 1, client, **endpoints(httpserver), max_html_bytes=100_000)
    assert "over the 100000-byte cap" in caught.value.message


def test_a_paper_is_fetched_once_then_served_from_the_store(httpserver, client, tmp_path):
    httpserver.expect_request("/html/2501.11120v1").respond_with_data(BEHAVIORS)
    paper = metadata("2501.11120", 1)
    with open_store(tmp_path / "paperbrief.db") as store:
        first = load_or_read_paper(store.documents, paper, client, **endpoints(httpserver))
        requests_after_first = len(httpserver.log)
        second = load_or_read_paper(store.documents, paper, client, **endpoints(httpserver))
        assert len(httpserver.log) == requests_after_first == 1
        assert second == first
        assert store.documents.load("2501.11120").source == "arxiv-html"


def test_a_page_cached_before_paragraph_anchors_is_read_again_once(httpserver, client, tmp_path):
    import dataclasses

    httpserver.expect_request("/html/2501.11120v1").respond_with_data(BEHAVIORS)
    paper = metadata("2501.11120", 1)
    with open_store(tmp_path / "paperbrief.db") as store:
        fresh = load_or_read_paper(store.documents, paper, client, **endpoints(httpserver))
        assert fresh.sections[0].anchors[0] == "S1.p1"
        old = dataclasses.replace(
            fresh, sections=tuple(dataclasses.replace(s, anchors=()) for s in fresh.sections)
        )
        store.documents.save(old, 1)  # what a run before issue 18 stored
        again = load_or_read_paper(store.documents, paper, client, **endpoints(httpserver))
        assert again == fresh and len(httpserver.log) == 2
        load_or_read_paper(store.documents, paper, client, **endpoints(httpserver))
        assert len(httpserver.log) == 2  # and then served from the store


def test_read_json_keys_for_a_local_page(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    result = CliRunner().invoke(
        cli, ["read", str(FULLTEXT_FIXTURES / "arxiv_html_2501.11120v1.html"), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"source", "title", "sections", "tables", "figures", "flags"} <= set(data)
    assert data["source"] == "local-html"
    assert {"title", "level"} <= set(data["sections"][0])
    assert data["sections"][0]["title"] == "Introduction"
    assert {"caption", "rows"} <= set(data["tables"][1])
    assert data["tables"][1]["rows"][1][1] == "0.14 ± 0.01"
    assert data["figures"][0] == {
        "label": "Figure 1",
        "caption": data["figures"][0]["caption"],
        "url": "https://arxiv.org/html/2501.11120v1/x1.png",
    }
    assert "latexml-errors:7" in data["flags"]


def test_read_an_arxiv_id_through_the_cache(httpserver, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    httpserver.expect_request("/html/2501.11120v1").respond_with_data(BEHAVIORS)
    args = ["read", "2501.11120v1", "--html-base", httpserver.url_for("/html")]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "source: arxiv-html" in first.output and "Table 2 (4×4)" in first.output
    markdown = CliRunner().invoke(cli, [*args, "--markdown"])
    assert "| Rate of outputting secure code | 0.14 ± 0.01 |" in markdown.output
    assert len(httpserver.log) == 1  # the second run read the store


def test_read_reports_a_missing_file_with_a_hint(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["read", str(tmp_path / "nope.pdf")])
    assert result.exit_code != 0
    assert "does not exist" in result.output and "hint: check the path" in result.output


def test_degraded_conversion_is_kept_only_as_the_last_resort(httpserver, client):
    # The real page with an undefined-macro error span injected into every paragraph.
    broken = BEHAVIORS.replace(
        b'<p class="ltx_p"', b'<span class="ltx_ERROR undefined">\\foo</span><p class="ltx_p"'
    )
    httpserver.expect_request("/html/2501.11120v1").respond_with_data(broken)
    httpserver.expect_request("/ar5iv/html/2501.11120").respond_with_data("", status=404)
    httpserver.expect_request("/pdf/2501.11120v1").respond_with_data("", status=404)
    doc = read_paper("2501.11120", 1, client, **endpoints(httpserver))
    assert doc.source == "arxiv-html"
    assert doc.attempts[0].startswith("arxiv-html: conversion degraded:")
    assert [a.split(":")[0] for a in doc.attempts] == ["arxiv-html", "ar5iv", "pdf"]
    assert "degraded-fallback" in doc.flags
    assert not any("\\foo" in p for s in doc.sections for p in s.paragraphs)
