"""What the digest says about a brief's full text: "arXiv has no HTML" only when arXiv said
so; a fetch that failed is reported as a failure (attempts recorded by the real fetch
stage against a loopback server)."""

from __future__ import annotations

import pytest

from paperbrief.fulltext import FullTextStatus, fulltext_status, read_paper
from paperbrief.http import PoliteClient
from paperbrief.labels import labels_for
from paperbrief.models import Paper
from paperbrief.retry import RetryPolicy
from paperbrief.write.notes import fulltext_note
from tests.support import FIXTURES

PDF = (FIXTURES / "fulltext" / "arxiv_pdf_2304.02623v1.pdf").read_bytes()
PAPER = Paper("2304.02623", "Beyond Summarization", ("A",), "An abstract.", ("cs.CL",), "cs.CL")


@pytest.fixture
def client():
    with PoliteClient(
        delay_seconds=0, retry=RetryPolicy(max_retries=0), sleep=lambda _: None
    ) as polite:
        yield polite


def _read(httpserver, client, html_status: int, pdf: bool = True, pdf_status: int = 503):
    for path in ("/html/2304.02623", "/ar5iv/html/2304.02623"):
        httpserver.expect_request(path).respond_with_data("gone", status=html_status)
    if pdf:
        httpserver.expect_request("/pdf/2304.02623").respond_with_data(
            PDF, content_type="application/pdf"
        )
    else:
        httpserver.expect_request("/pdf/2304.02623").respond_with_data("none", status=pdf_status)
    return read_paper(
        "2304.02623",
        None,
        client,
        html_base=httpserver.url_for("/html"),
        ar5iv_base=httpserver.url_for("/ar5iv/html"),
        pdf_base=httpserver.url_for("/pdf"),
        abstract_fallback=PAPER,
    )


def test_no_full_text_at_all_is_not_called_an_unreadable_pdf(httpserver, client):
    doc = _read(httpserver, client, 404, pdf=False, pdf_status=404)
    assert doc.source == "abstract"
    assert fulltext_status(doc) == FullTextStatus.ABSTRACT_ABSENT
    note = fulltext_note(doc, labels_for("zh"), has_figure=False)
    assert note.startswith("arXiv 上没有这篇的 HTML 或 PDF 全文") and "无法提取" not in note


def test_no_html_at_arxiv_is_said_as_a_fact_about_the_paper(httpserver, client):
    doc = _read(httpserver, client, 404)
    assert fulltext_status(doc) == FullTextStatus.PDF_NO_HTML
    note = fulltext_note(doc, labels_for("zh"), has_figure=False)
    assert note.startswith("该论文没有 arXiv HTML 版本")


def test_a_failed_html_fetch_is_reported_as_a_failure_not_as_no_html(httpserver, client):
    doc = _read(httpserver, client, 503)
    assert fulltext_status(doc) == FullTextStatus.PDF_HTML_FAILED
    note = fulltext_note(doc, labels_for("zh"), has_figure=False)
    assert "获取失败" in note and "没有 arXiv HTML" not in note


def test_every_source_failing_says_the_fetch_failed_and_will_be_retried(httpserver, client):
    doc = _read(httpserver, client, 503, pdf=False)
    assert doc.source == "abstract"
    assert fulltext_status(doc) == FullTextStatus.ABSTRACT_FETCH_FAILED
    assert "下次运行会重试" in fulltext_note(doc, labels_for("zh"), has_figure=False)
    assert "next run tries again" in fulltext_note(doc, labels_for("en"), has_figure=False)


def test_a_port_or_path_with_404_in_a_url_is_not_read_as_a_missing_page(httpserver, client):
    """A 503 from a server on port 40493 is a failure to arrive, whatever digits the URL
    holds; a 404 status is still the page missing (the loopback's random port made this
    case flip once in CI)."""
    from dataclasses import replace

    doc = _read(httpserver, client, 503)
    html = [a for a in doc.attempts if not a.startswith("pdf")]
    assert html and all("503" in a for a in html), doc.attempts
    with_port = tuple(
        a.replace(f":{httpserver.port}/", ":40493/").replace("/html/", "/x404/") for a in html
    )
    assert any("404" in a for a in with_port), with_port
    assert fulltext_status(replace(doc, attempts=with_port)) == FullTextStatus.PDF_HTML_FAILED
    httpserver.clear()
    missing = _read(httpserver, client, 404)
    assert fulltext_status(missing) == FullTextStatus.PDF_NO_HTML
