"""The parsers on real arXiv pages and a real arXiv PDF (tests/fixtures/fulltext)."""

from __future__ import annotations

import pytest

from paperbrief.fulltext.author_html import parse_author_html
from paperbrief.fulltext.html_text import parse_html, table_grid
from paperbrief.fulltext.latexml import classify_html, parse_latexml
from paperbrief.fulltext.pdf import parse_pdf
from paperbrief.models import Document
from paperbrief.store import codec
from tests.support import FIXTURES

FULLTEXT_FIXTURES = FIXTURES / "fulltext"
OLD_CHROME = FULLTEXT_FIXTURES / "arxiv_html_2501.11120v1.html"
ERRORS = FULLTEXT_FIXTURES / "arxiv_html_2510.14430v1_ltx_errors.html"
NO_TITLE = FULLTEXT_FIXTURES / "arxiv_html_2510.14472v1_no_title_metadata.html"
AUTHOR = FULLTEXT_FIXTURES / "arxiv_html_author_submitted_cs_9901011v1.htm"
PDF = FULLTEXT_FIXTURES / "arxiv_pdf_2304.02623v1.pdf"


@pytest.fixture(scope="module")
def behaviors():
    return parse_latexml(OLD_CHROME.read_bytes(), arxiv_id="2501.11120")


@pytest.fixture(scope="module")
def pls():
    return parse_latexml(ERRORS.read_bytes(), arxiv_id="2510.14430")


def test_classifies_each_kind_of_page():
    assert classify_html(OLD_CHROME.read_text()) == "latexml"
    assert classify_html(ERRORS.read_text()) == "latexml"
    assert classify_html(AUTHOR.read_bytes().decode("latin-1")) == "author-html"
    no_html = (
        "<html><body><h1>No HTML for '2501.99999v1'</h1>"
        "<p>HTML is not available for the source.</p></body></html>"
    )
    assert classify_html(no_html) == "no-html"
    assert classify_html("<html><body><p>hi</p></body></html>") == "empty"


def test_old_chrome_page_title_abstract_and_sections(behaviors):
    assert behaviors.title == "Tell me about yourself: LLMs are aware of their learned behaviors"
    assert behaviors.authors[:2] == ("Jan Betley", "Xuchan Bao")
    assert behaviors.abstract.startswith("We study behavioral self-awareness")
    top = [(s.number, s.heading) for s in behaviors.sections if s.level == 1]
    assert top[:4] == [
        ("1", "Introduction"),
        ("2", "Out-of-context reasoning"),
        ("3", "Awareness of behaviors"),
        ("4", "Awareness of backdoors"),
    ]
    assert ("A", "Author contributions") in top
    sub = next(s for s in behaviors.sections if s.number == "3.1")
    assert sub.level == 2 and sub.location.startswith("Section 3.1 Finetuning on multiple-choice")
    assert len(behaviors.references) == 48


def test_math_is_kept_as_tex_alt_text(behaviors):
    section = next(s for s in behaviors.sections if s.number == "2")
    assert any("latent policy $z\\in Z$" in p for p in section.paragraphs)
    text = " ".join(p for s in behaviors.sections for p in s.paragraphs)
    assert "italic_z" not in text  # the MathML/llamapun annotations are dropped


def test_latexml_error_spans_are_counted_and_stripped(behaviors):
    assert "latexml-errors:7" in behaviors.flags
    text = " ".join(p for s in behaviors.sections for p in s.paragraphs)
    assert "{mdframed}" not in text and "{spverbatim}" not in text
    assert "Research Question 1:" in text


def test_tables_with_labels_captions_and_cells(behaviors):
    assert len(behaviors.tables) == 47
    first = behaviors.tables[0]
    assert first.label == "Table 1"
    assert first.caption.startswith(
        "Overview of experiments for evaluating behavioral self-awareness"
    )
    assert first.section == "3 Awareness of behaviors"
    table2 = behaviors.tables[1]
    assert table2.rows[0] == ("", "FT on vulnerable code", "FT on secure code", "GPT-4o")
    assert table2.rows[1] == (
        "Rate of outputting secure code",
        "0.14 ± 0.01",
        "0.88 ± 0.01",
        "0.74",
    )


def test_rowspan_is_copied_down_in_a_real_table(behaviors):
    table9 = next(t for t in behaviors.tables if t.label == "Table 9")
    assert [row[0] for row in table9.rows[1:5]] == ["bark", "bark", "bark", "ring"]
    assert len({len(row) for row in table9.rows}) == 1


def test_grid_honours_colspan_and_rowspan():
    root = parse_html(
        "<table><thead><tr><th rowspan='2'>Model</th><th colspan='2'>Accuracy</th></tr>"
        "<tr><th>dev</th><th>test</th></tr></thead>"
        "<tr><td>A</td><td>81.2</td><td rowspan='2'>79.0</td></tr>"
        "<tr><td>B</td><td>83.5</td></tr></table>"
    )
    grid = table_grid(root.find(".//table"))
    assert grid.header_rows == 2
    assert grid.rows == (
        ("Model", "Accuracy", "Accuracy"),
        ("Model", "dev", "test"),
        ("A", "81.2", "79.0"),
        ("B", "83.5", "79.0"),
    )
    # the copies are known, so a renderer can show each merged cell once
    assert grid.merged == ((0, 2), (1, 0), (3, 2))


def test_header_rows_are_found_without_th_from_rules_and_content():
    """LaTeXML writes every cell as <td>: a booktabs rule, or rows without data numbers
    (column numbers such as (1) (2) are labels), mark the header."""
    root = parse_html(
        "<table>"
        "<tr><td class='ltx_border_tt'></td>"
        "<td class='ltx_border_tt' colspan='2'>Conversion</td></tr>"
        "<tr><td></td><td>(1)</td><td>(2)</td></tr>"
        "<tr><td class='ltx_border_t'>Chatbot</td><td class='ltx_border_t'>0.0111</td>"
        "<td class='ltx_border_t'>16.3</td></tr>"
        "<tr><td></td><td>(0.0102)</td><td></td></tr></table>"
    )
    grid = table_grid(root.find(".//table"))
    assert grid.header_rows == 2
    assert grid.rows[2] == ("Chatbot", "0.0111", "16.3")


def test_figures_resolve_against_base_on_arxiv_even_from_a_local_file(behaviors):
    figure = behaviors.figures[0]
    assert figure.label == "Figure 1"
    assert figure.url == "https://arxiv.org/html/2501.11120v1/x1.png"
    assert figure.caption.startswith("Models can describe a learned behavioral policy")


def test_new_chrome_page_with_conversion_errors(pls):
    assert pls.title == "The geometry of PLS shrinkages"
    assert "latexml-errors:410" in pls.flags
    assert "latexml-body-errors:2" in pls.flags  # the other 408 are in the bibliography
    assert [s.heading for s in pls.sections if s.level == 1] == [
        "Introduction",
        "Shrinkages for PLS regressions",
        "The geometry of PLS shrinkages",
        "Discussion and examples",
        "Conclusions",
    ]
    everything = " ".join(pls.references) + " ".join(p for s in pls.sections for p in s.paragraphs)
    assert "\\bauthor" not in everything and "\\endbibitem" not in everything
    assert len(pls.tables) == 5
    table5 = pls.tables[4]
    assert table5.rows[1][:3] == ("2", "{1,2}", "1.00")
    assert "svg-figures:4" in pls.flags


def test_page_without_title_flags_it_and_keeps_the_caption_of_the_missing_image():
    doc = parse_latexml(NO_TITLE.read_bytes())
    assert doc.title == "" and doc.abstract == ""
    assert {"no-title", "no-abstract", "missing-images:1"} <= set(doc.flags)
    labels = [f.label for f in doc.figures]
    assert len(labels) == 12 and "Figure 7" in labels
    missing = next(f for f in doc.figures if f.label == "Figure 7")
    assert missing.url == "" and missing.caption  # the caption is text: the writer reads it
    shown = [f for f in doc.figures if f.url]
    assert len(shown) == 11
    assert all(f.url.startswith("https://arxiv.org/html/2510.14472v1/x") for f in shown)
    assert doc.tables[0].rows[1][0] == "[-3.5,\\,-2.5]"


def test_author_submitted_html_is_parsed_and_flagged():
    doc = parse_author_html(AUTHOR.read_bytes(), page_url="http://127.0.0.1:9/html/cs/9901011v1")
    assert doc.title == "A Brief History of the Internet"
    assert "author-html" in doc.flags
    assert [s.heading for s in doc.sections][:2] == ["Introduction", "Origins of the Internet"]
    origins = doc.sections[1]
    assert any("Leonard Kleinrock at MIT published" in p for p in origins.paragraphs)
    assert doc.figures[0].url == "https://arxiv.org/html/cs/9901011v1/timeline_v3.gif"
    assert len(doc.references) == 10 and doc.references[0].startswith("V. G. Cerf and R. E. Kahn")
    assert "References" not in [s.heading for s in doc.sections]


def test_pdf_text_sections_and_numbers():
    doc = parse_pdf(PDF.read_bytes())
    assert doc.arxiv_id == "2304.02623"  # read from arXiv's margin stamp
    assert doc.title.startswith("Beyond Summarization")
    assert doc.abstract.startswith("Large language models have introduced exciting")
    assert "leveraging this new technology" in doc.abstract  # U+FFFE hyphenation joined
    assert [(s.number, s.heading) for s in doc.sections][:4] == [
        ("1", "Introduction"),
        ("2", "Characterizing Expository Writing"),
        ("3", "Designing Ai Supports For Expository Writing"),
        ("4", "Conclusion"),
    ]
    intro = " ".join(doc.sections[0].paragraphs)
    assert "1 in 5 patients" in intro
    assert "arXiv:2304.02623v1" not in intro
    assert len(doc.references) == 35 and doc.references[1].startswith("[2] Alan Baddeley")
    assert {"pdf-no-tables", "pdf-no-figures"} <= set(doc.flags)


def test_pdf_title_without_metadata_is_read_from_the_first_lines():
    from paperbrief.fulltext.pdf import _title_from_lines

    lines = [
        "Multi-LexSum: Real-World Summaries of Civil",
        "Rights Lawsuits at Multiple Granularities",
        "Zejiang Shen† Kyle Lo† Lauren Yu♦ Nathan Dahlberg",
    ]
    assert _title_from_lines(lines) == (
        "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities"
    )


def test_document_json_round_trip(behaviors):
    assert codec.decode(Document, codec.encode(behaviors)) == behaviors
