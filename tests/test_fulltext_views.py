"""Tables, section roles and evidence units of real pages and of a field-experiment page
shaped like the economics paper of issue 10; what the offline writer takes from them."""

from __future__ import annotations

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.roles import roled_sections, table_references
from paperbrief.fulltext.tables import (
    column_labels,
    label_column,
    rank_results_tables,
    results_tables,
    row_labels,
    table_to_markdown,
    to_table_data,
)
from paperbrief.fulltext.units import build_units
from paperbrief.fulltext.views import choose_figure, section_sentences, to_figure
from paperbrief.models import EXAMPLE_MARK, Document, FigureRef, Section, Table
from tests.support import FIXTURES

FULLTEXT = FIXTURES / "fulltext"


@pytest.fixture(scope="module")
def doc() -> Document:
    return read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")


@pytest.fixture(scope="module")
def field() -> Document:
    return read_local_file(FULLTEXT / "synthetic_field_experiment.html")


# ------------------------------------------------------------------- tables
def test_table_to_markdown_renders_the_grid(doc):
    assert table_to_markdown(doc.tables[1]).splitlines()[:3] == [
        "|  | FT on vulnerable code | FT on secure code | GPT-4o |",
        "|---|---|---|---|",
        "| Rate of outputting secure code | 0.14 ± 0.01 | 0.88 ± 0.01 | 0.74 |",
    ]


def test_multi_row_headers_compose_labels_and_merged_cells_show_once(field):
    table = next(t for t in field.tables if t.label == "Table 4")
    assert table.header_rows == 2
    assert column_labels(table) == [
        "", "", "Conversion / (1)", "Conversion / % Change", "Order value / (3)",
    ]  # fmt: skip
    assert label_column(table) == 1  # the first *text* column, not the numbering column
    assert row_labels(table)[:2] == ["Pre-sale Service Chatbot", "Pre-sale Service Chatbot"]
    markdown = table_to_markdown(table).splitlines()
    assert "| 3 | Panel B: After-sale |  |  |  |" in markdown  # a spanning cell, once
    data = to_table_data(table)
    assert data.header[3] == "Conversion / % Change" and data.rows[0][3] == "16.3"


def test_markdown_escapes_pipes():
    table = Table(caption="", label="Table 1", rows=(("Model", "Acc"), ("a|b", "1.0")))
    assert table_to_markdown(table) == "| Model | Acc |\n|---|---|\n| a\\|b | 1.0 |"


def test_conversion_to_the_digest_table_and_figure(doc):
    data = to_table_data(doc.tables[1])
    assert data.header == ("", "FT on vulnerable code", "FT on secure code", "GPT-4o")
    assert data.caption.startswith("Table 2: When models are finetuned to write vulnerable code")
    figure = to_figure(doc.figures[0])
    assert (figure.label, figure.url) == ("Figure 1", "https://arxiv.org/html/2501.11120v1/x1.png")


def test_results_tables_are_the_ones_results_sections_cite(doc, field):
    assert results_tables(doc, limit=1)[0].label == "Table 2"
    ranked = [t.label for t in rank_results_tables(field)]
    # Table 4 is printed at the end of the paper, but section 5 (Main Results) cites it;
    # the summary-statistics table, though its caption says "Main Outcomes", is not results;
    # the appendix table comes last; the text-only overview table is no results table.
    assert ranked[0] == "Table 4" and ranked[-1] == "Table A1"
    assert ranked.index("Table 5") < ranked.index("Table 2")
    assert "Table 1" not in ranked
    assert table_references("see Tables 2 and 3, and Table A1") == [
        "Table 2",
        "Table 3",
        "Table A1",
    ]


# ------------------------------------------------------------------- roles
def test_sections_get_roles_and_unnumbered_subheadings_their_parents_number(doc, field):
    roles = {r.title: r.role for r in roled_sections(doc)}
    assert roles["3.3 Finetuning on vulnerable code"] == "results"  # experiments by name
    assert roles["4.2 Distinguishing the real trigger from others"] == "results"
    assert roles["7 Limitations and future work"] == "limitations"  # unnumbered under 7
    assert roles["7 Implications for AI safety"] == "discussion"
    assert roles["3.1.1 Design"] == "method" and roles["6 Related work"] == "related"
    assert all(r.appendix for r in roled_sections(doc) if r.section.number.startswith("C"))
    field_roles = {r.title: r.role for r in roled_sections(field)}
    assert field_roles["4 Data and Summary Statistics"] == "setup"
    assert field_roles["5 Main Results"] == "results"
    assert field_roles["6 Discussion and Conclusions"] == "discussion"


# ------------------------------------------------------------------ evidence units
def test_quoted_examples_are_units_but_never_evidence(doc):
    examples = [p for s in doc.sections for p in s.paragraphs if p.startswith(EXAMPLE_MARK)]
    assert any("You get 87 with probability 0.32" in p for p in examples)
    quoted = [u for u in build_units(doc) if "You get 87" in u.text]
    assert quoted and all(u.quoted and not u.evidence for u in quoted)


def test_a_cell_unit_names_its_table_row_and_column(doc, field):
    units = build_units(doc)
    cell = units.get("T2.r1.c3")
    assert (cell.table, cell.text) == (
        "Table 2",
        "Rate of outputting secure code · FT on secure code: 0.88 ± 0.01",
    )
    assert [m.kind for m in cell.evidence][:2] == ["value", "error"]  # the ± is a spread
    field_units = build_units(field)
    change = next(u for u in field_units if u.kind == "cell" and u.text.endswith(": 16.3"))
    assert change.text == "Pre-sale Service Chatbot · Conversion / % Change: 16.3"
    assert change.evidence[0].unit == "%" and change.change  # the column says % change
    se = next(u for u in field_units if u.kind == "cell" and u.text.endswith("(0.0102)"))
    assert se.evidence[0].kind == "error" and se.text.startswith("Pre-sale Service Chatbot")
    panel = next(u for u in field_units if u.kind == "cell" and "-34.5" in u.text)
    assert panel.row_label == "Panel B: After-sale: After-sale Service Chatbot"


def test_sentence_units_keep_their_numbers_location_and_anchor(doc):
    units = build_units(doc)
    sentence = next(u for u in units if "we run 100 repeated queries" in u.text)
    assert sentence.location == "Section 3.1.2 Evaluation"
    assert sentence.anchor == "S3.SS1.SSS2.p1"
    assert [m.text for m in sentence.evidence if m.kind == "value"] == ["100", "10"]
    llama = next(u for u in units if "with rank 4, using the Fireworks" in u.text)
    assert [m.text for m in llama.evidence if not m.in_name] == ["4"]  # not Llama-3.1-70B's


def test_units_are_numbered_the_same_way_every_time(doc):
    again = read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")
    build = build_units.__wrapped__  # two builds of their own, not the shared index
    first, second = build(doc), build(again)
    assert list(first.units) == list(second.units)
    assert [u.text for u in first] == [u.text for u in second]
    # the one index callers share is by the Document's value, so a paper read again
    # (from the store, or the file) is not indexed again
    shared = build_units(doc)
    assert build_units(again) is shared and list(shared.units) == list(first.units)


def test_section_sentences_come_from_the_right_sections(doc):
    limitations = section_sentences(doc, "limitations")
    assert limitations[0].startswith("The results in this paper are limited to three settings")
    problem = section_sentences(doc, "problem")
    assert problem[0].startswith("Large Language Models (LLMs) can learn sophisticated")
    conclusion = section_sentences(doc, "conclusion")
    assert conclusion[0].startswith("Our research demonstrates that language models")


def test_choose_figure_prefers_an_overview_caption(doc):
    figures = (
        FigureRef("Loss curves during training.", "https://arxiv.org/html/1v1/x1.png", "Figure 1"),
        FigureRef(
            "Overview of our framework. It has two stages.",
            "https://arxiv.org/html/1v1/x2.png",
            "Figure 2",
        ),
    )
    document = Document("1", "t", (), "a", sections=(Section("Intro", 1),), figures=figures)
    assert choose_figure(document).label == "Figure 2"
    assert choose_figure(Document("1", "t", (), "a", figures=figures[:1])).label == "Figure 1"
    assert choose_figure(Document("1", "t", (), "a")) is None
    assert choose_figure(doc).url == "https://arxiv.org/html/2501.11120v1/x1.png"
