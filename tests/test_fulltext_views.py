"""The writer/verifier views over a real parsed page."""

from __future__ import annotations

import pytest

from paperbrief.fulltext.document import Document, FigureRef, Section, Table
from paperbrief.fulltext.latexml import parse_latexml
from paperbrief.fulltext.views import (
    budgeted_text,
    choose_figure,
    evidence_index,
    results_tables,
    section_sentences,
    table_to_markdown,
    to_figure,
    to_table_data,
)
from paperbrief.text import estimate_tokens
from tests.support import FIXTURES

FULLTEXT_FIXTURES = FIXTURES / "fulltext"


@pytest.fixture(scope="module")
def doc() -> Document:
    return parse_latexml((FULLTEXT_FIXTURES / "arxiv_html_2501.11120v1.html").read_bytes())


def test_table_to_markdown_renders_the_grid(doc):
    assert table_to_markdown(doc.tables[1]).splitlines()[:3] == [
        "|  | FT on vulnerable code | FT on secure code | GPT-4o |",
        "|---|---|---|---|",
        "| Rate of outputting secure code | 0.14 ± 0.01 | 0.88 ± 0.01 | 0.74 |",
    ]


def test_markdown_merges_multi_row_headers_and_escapes_pipes():
    table = Table(
        caption="",
        label="Table 1",
        rows=(("Model", "Acc", "Acc"), ("Model", "dev", "test"), ("a|b", "1.0", "2.0")),
        header_rows=2,
    )
    assert table_to_markdown(table) == (
        "| Model | Acc / dev | Acc / test |\n|---|---|---|\n| a\\|b | 1.0 | 2.0 |"
    )


def test_conversion_to_the_digest_table_and_figure(doc):
    data = to_table_data(doc.tables[1])
    assert data.header == ("", "FT on vulnerable code", "FT on secure code", "GPT-4o")
    assert data.rows[0] == ("Rate of outputting secure code", "0.14 ± 0.01", "0.88 ± 0.01", "0.74")
    assert data.caption.startswith("Table 2: When models are finetuned to write vulnerable code")
    figure = to_figure(doc.figures[0])
    assert (figure.label, figure.url) == ("Figure 1", "https://arxiv.org/html/2501.11120v1/x1.png")


def test_results_tables_prefer_the_main_body_result_table(doc):
    tables = results_tables(doc, limit=2)
    assert tables[0].label == "Table 2"
    assert all(t.label != "Table 1" for t in tables)  # an overview table without numbers


@pytest.mark.parametrize("budget", [300, 800, 1500, 4000, 20000])
def test_budget_is_respected_and_tables_are_never_cut(doc, budget):
    text = budgeted_text(doc, budget)
    assert estimate_tokens(text) <= budget
    assert text.startswith("# Tell me about yourself")
    included = [t for t in doc.tables if f"**{t.label}.**" in text]
    for table in included:
        assert table_to_markdown(table) in text  # a table is whole or absent
    if budget >= 20000:
        assert included  # with room, the results tables are in


def test_budget_fills_by_priority(doc):
    small = budgeted_text(doc, 600)
    assert "## Abstract" in small and "## 1 Introduction" in small
    assert "## 8 Conclusion" not in small
    large = budgeted_text(doc, 12000)
    assert "**Table 2.**" in large  # the result table comes with the experiments
    assert "## 8 Conclusion" in large
    assert large.index("## 1 Introduction") < large.index("## 8 Conclusion")


def test_evidence_index_finds_table_cells_with_headers_and_sentences(doc):
    evidence = evidence_index(doc)
    cell = next(e for e in evidence if "0.88 ± 0.01" in e.text)
    assert cell.location == "Table 2"
    assert cell.text == "Rate of outputting secure code | FT on secure code: 0.88 ± 0.01"
    assert cell.numbers == ("0.88", "0.01")
    sentence = next(e for e in evidence if "we run 100 repeated queries" in e.text)
    assert sentence.location == "Section 3.1.2 Evaluation"
    assert sentence.numbers == ("100", "10")
    caption = next(e for e in evidence if "five repeated training runs" in e.text)
    assert caption.location == "Figure 3" and "95%" in caption.numbers
    llama = next(e for e in evidence if "with rank 4, using the Fireworks" in e.text)
    assert llama.numbers == ("4",)  # not the 3.1 and 70 of "Llama-3.1-70B"
    # numbers that only point at a section, table or figure are not evidence
    assert all(e.numbers for e in evidence)
    assert not any(e.text == "We show some examples of myopic trained examples." for e in evidence)


def test_section_sentences_come_from_the_right_sections(doc):
    limitations = section_sentences(doc, "limitations")
    assert limitations[0].startswith("The results in this paper are limited to three settings")
    problem = section_sentences(doc, "problem")
    assert problem[0].startswith("Large Language Models (LLMs) can learn sophisticated")
    conclusion = section_sentences(doc, "conclusion")
    assert conclusion[0].startswith("Our research demonstrates that language models")


def test_choose_figure_prefers_an_overview_caption():
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
    plain = Document("1", "t", (), "a", figures=figures[:1])
    assert choose_figure(plain).label == "Figure 1"
    assert choose_figure(Document("1", "t", (), "a")) is None


def test_choose_figure_on_a_real_page_falls_back_to_the_teaser(doc):
    assert choose_figure(doc).url == "https://arxiv.org/html/2501.11120v1/x1.png"
