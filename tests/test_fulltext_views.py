"""What the writer reads (by importance, within a budget) and the evidence index, on real
pages and on a field-experiment page shaped like the economics paper of issue 10."""

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
from paperbrief.fulltext.views import (
    budgeted_text,
    choose_figure,
    evidence_index,
    section_sentences,
    to_figure,
    writer_view,
)
from paperbrief.models import EXAMPLE_MARK, Document, FigureRef, Section, Table
from paperbrief.text import estimate_tokens
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


# ------------------------------------------------------------------- the view
def _held(view, title: str) -> int:
    return next(s.paragraphs for s in view.sections if s.title == title)


def test_writer_view_holds_every_results_section_and_the_main_table_at_the_default_budget(doc):
    view = writer_view(doc, 9000)
    assert view.tokens <= 9000
    for section in roled_sections(doc):
        if (section.main_results or section.closing) and section.section.paragraphs:
            assert _held(view, section.title) >= 1, section.title
    assert "Table 2" in view.tables and "**Table 2.**" in view.text
    for title in ("3.3 Finetuning on vulnerable code", "4.1 Results", "4.2 Distinguishing the "
                  "real trigger from others"):  # fmt: skip
        assert _held(view, title) == len(
            next(s for s in roled_sections(doc) if s.title == title).section.paragraphs
        )
    assert "#### 7 Limitations and future work" in view.text
    assert "C.2.1 Data generation" not in view.text  # appendix waits until the body is in


def test_a_tight_budget_keeps_results_discussion_and_main_table_first(field):
    view = writer_view(field, 700)
    assert view.tokens <= 700
    for title in ("5 Main Results", "5.1 Pre-sale Service", "5.2 After-sale Service",
                  "5.3 Heterogeneity", "6 Discussion and Conclusions"):  # fmt: skip
        assert _held(view, title) >= 1, title
    assert view.tables[0] == "Table 4" and "Table A1" not in view.tables
    assert "Table 2" not in view.tables  # summary statistics are not results
    # printed under the section that cites it, with the composed header
    results = view.text.split("## 5 Main Results", 1)[1]
    assert results.index("**Table 4.**") < results.index("### 5.1")
    assert "Conversion / % Change" in results
    assert "A growing literature" not in view.text  # related work only with budget left


@pytest.mark.parametrize("budget", [300, 800, 1500, 4000, 20000])
def test_budget_is_respected_and_tables_are_whole_or_say_what_they_left_out(doc, budget):
    view = writer_view(doc, budget)
    assert estimate_tokens(view.text) + estimate_tokens(view.figures) <= budget + 5
    assert view.text.startswith("# Tell me about yourself")
    for table in doc.tables:
        if f"**{table.label}.**" in view.text:
            block = view.text.split(f"**{table.label}.**", 1)[1]
            whole = table_to_markdown(table)
            assert whole in view.text or "more rows)" in block.split("\n\n**", 1)[0]
    assert budgeted_text(doc, budget) == view.text


def test_every_figure_is_listed_with_its_caption_within_its_share(doc):
    view = writer_view(doc, 9000)
    lines = view.figures.splitlines()
    assert len(lines) == len(doc.figures) == 36  # not only the first 12
    assert lines[6].startswith("6: Figure 7 Models internalize and self-report policies")
    roomy = writer_view(doc, 60000).figures
    assert doc.figures[0].caption in roomy  # whole captions when the share allows


def test_quoted_examples_are_shown_as_quotes_and_never_evidence(doc):
    examples = [p for s in doc.sections for p in s.paragraphs if p.startswith(EXAMPLE_MARK)]
    assert any("You get 87 with probability 0.32" in p for p in examples)
    assert not any("You get 87" in e.text for e in evidence_index(doc))


# ------------------------------------------------------------------ evidence
def test_evidence_lines_name_table_row_and_column(doc, field):
    cell = next(e for e in evidence_index(doc) if e.text.endswith("0.88 ± 0.01"))
    assert (cell.location, cell.text) == (
        "Table 2",
        "Rate of outputting secure code · FT on secure code: 0.88 ± 0.01",
    )
    assert [m.kind for m in cell.mentions] == ["value", "error"]  # the ± is a spread
    change = next(e for e in evidence_index(field) if e.text.endswith(": 16.3"))
    assert change.text == "Pre-sale Service Chatbot · Conversion / % Change: 16.3"
    assert change.mentions[0].unit == "%"  # the column says the bare 16.3 is a percentage
    se = next(e for e in evidence_index(field) if e.text.endswith("(0.0102)"))
    assert se.mentions[0].kind == "error" and se.text.startswith("Pre-sale Service Chatbot")
    assert not any(e.text.startswith("1 ") or ": 1 " in e.text for e in evidence_index(field))


def test_evidence_sentences_keep_their_numbers_and_locations(doc):
    evidence = evidence_index(doc)
    sentence = next(e for e in evidence if "we run 100 repeated queries" in e.text)
    assert sentence.location == "Section 3.1.2 Evaluation"
    assert sentence.numbers == ("100", "10")
    llama = next(e for e in evidence if "with rank 4, using the Fireworks" in e.text)
    assert llama.numbers == ("4",)  # not the 3.1 and 70 of "Llama-3.1-70B"
    assert all(e.mentions for e in evidence)


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


def test_a_long_field_experiment_paper_keeps_its_results_at_the_default_budget(field):
    """The issue's economics paper was ~100k characters with its results cut: grow the
    field-experiment page to that size (every section ten to forty times longer, appendix
    too) and the default budget still holds every results and discussion section and the
    main results table."""
    import dataclasses

    grown = []
    for section in field.sections:
        times = 40 if section.number in ("1", "2", "A") else 10
        paragraphs = tuple(
            f"{p} (part {n + 1} of the {section.heading.lower()} discussion.)"
            for n in range(times)
            for p in section.paragraphs
        )
        grown.append(dataclasses.replace(section, paragraphs=paragraphs))
    long = dataclasses.replace(field, sections=tuple(grown))
    size = sum(estimate_tokens(p) for s in long.sections for p in s.paragraphs)
    assert 20000 < size < 27000  # fits in three times the 9000-token budget
    view = writer_view(long, 9000)
    assert view.tokens <= 9000
    for section in roled_sections(long):
        if section.main_results or section.closing:
            assert _held(view, section.title) >= 1, section.title
    assert view.tables[0] == "Table 4"
