"""Recorded arXiv responses for the source tests, and answers derived from them."""

from __future__ import annotations

from datetime import date

from lxml import etree, html

from paperbrief.models import Paper
from tests.support import FIXTURES

SOURCES_FIXTURES = FIXTURES / "sources"
ATOM_86 = SOURCES_FIXTURES / "rss_atom_cs.AI_2025-08-20_first86entries.xml"
ATOM_TRUNCATED = SOURCES_FIXTURES / "rss_atom_cs.AI_2025-08-20_raw_truncated.xml"
RSS2_4 = SOURCES_FIXTURES / "rss2_cs.LG+cs.AI+cs.CL+stat.ML_2026-09-24_4items.xml"
PAGE_LEGACY = SOURCES_FIXTURES / "arxiv_list_astro-ph.CO_pastweek_2024-03-14_legacy_format.html"
PAGE_CURRENT = SOURCES_FIXTURES / "arxiv_list_astro-ph_pastweek_2024-11-22_browser_saved.html"
SNAPSHOT = SOURCES_FIXTURES / "2026-05-22_first12.jsonl.gz"


def derived_new_page(
    day: date, *, new: int, cross: int, replace: int
) -> tuple[bytes, list[tuple[str, str]]]:
    """A /list/<cat>/new page built from the real current-markup page's entries.

    The real entries (dt/dd pairs) are regrouped under the /new section headings and the
    dateline line; each dd gets an abstract paragraph like the /new page has. Returns the
    page and the expected ``(id, kind)`` list.
    """
    document = html.document_fromstring(PAGE_CURRENT.read_bytes())
    items = document.xpath("//dl[@id='articles']")[0].xpath("./dt | ./dd")
    pairs = list(zip(items[0::2], items[1::2], strict=False))
    sections = []
    expected: list[tuple[str, str]] = []
    cursor = 0
    for heading, kind, count in (
        ("New submissions", "new", new),
        ("Cross submissions", "cross", cross),
        ("Replacement submissions", "replace", replace),
    ):
        parts = [f"<h3>{heading} (showing {count} of {count} entries)</h3>"]
        for dt, dd in pairs[cursor : cursor + count]:
            paper_id = dt.xpath(".//a[@title='Abstract']")[0].get("id")
            abstract = etree.SubElement(dd, "p", {"class": "mathjax"})
            abstract.text = f"Derived abstract of {paper_id}."
            parts.append(etree.tostring(dt, encoding=str) + etree.tostring(dd, encoding=str))
            expected.append((paper_id, kind))
        cursor += count
        sections.append("<dl id='articles'>" + "".join(parts) + "</dl>")
    page = (
        "<!DOCTYPE html><html><head><title>Artificial Intelligence</title></head><body>"
        "<div id='dlpage'><h1>Artificial Intelligence</h1>"
        f"<div class='list-dateline'>Showing new listings for {day:%A, %d %B %Y}</div>"
        + "".join(sections)
        + "</div></body></html>"
    )
    return page.encode(), expected


def api_answer(papers: list[Paper]) -> bytes:
    """An export-API Atom answer (same shape as api_id_1605.08386.xml) for ``papers``."""
    atom, arxiv = "http://www.w3.org/2005/Atom", "http://arxiv.org/schemas/atom"
    opensearch = "http://a9.com/-/spec/opensearch/1.1/"
    feed = etree.Element(
        f"{{{atom}}}feed", nsmap={None: atom, "arxiv": arxiv, "opensearch": opensearch}
    )
    etree.SubElement(feed, f"{{{opensearch}}}totalResults").text = str(len(papers))
    for paper in papers:
        entry = etree.SubElement(feed, f"{{{atom}}}entry")
        etree.SubElement(
            entry, f"{{{atom}}}id"
        ).text = f"http://arxiv.org/abs/{paper.id}v{paper.version or 1}"
        etree.SubElement(entry, f"{{{atom}}}title").text = paper.title
        etree.SubElement(entry, f"{{{atom}}}summary").text = paper.abstract
        for category in paper.categories:
            etree.SubElement(entry, f"{{{atom}}}category", term=category)
        if paper.comment:
            etree.SubElement(entry, f"{{{arxiv}}}comment").text = paper.comment
        etree.SubElement(entry, f"{{{arxiv}}}primary_category", term=paper.primary_category)
        for name in paper.authors:
            author = etree.SubElement(entry, f"{{{atom}}}author")
            etree.SubElement(author, f"{{{atom}}}name").text = name
    return etree.tostring(feed, xml_declaration=True, encoding="UTF-8")
