# ruff: noqa: E501 — the claims are real Chinese sentences, wider than a line of code
"""Values keep their table's rows and columns (issue 18). A table the PDF reader flattened
into one sentence unit is read back as rows: a claim is checked against the row it names and
a change is computed from one row or one column (the search paper's Table 6, E196). Numbers
said together of one thing come from one row or one column of a cited table (the physics
paper's Table 1)."""

from __future__ import annotations

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.text.citations import claim_sentences
from paperbrief.write.grid import grid_rows
from paperbrief.write.trace import check_claim
from paperbrief.write.verify import digest_sources
from tests.support import FIXTURES


@pytest.fixture(scope="module")
def physics():
    doc = read_local_file(FIXTURES / "fulltext" / "arxiv_html_2510.14472v1_no_title_metadata.html")
    return digest_sources([("P", doc.title)], {"P": doc})


@pytest.fixture(scope="module")
def search():
    doc = read_local_file(FIXTURES / "fulltext" / "arxiv_pdf_2501.10120v1.pdf")
    return digest_sources([("P", doc.title)], {"P": doc})


def traced(sources, text: str, section: str = "result_notes") -> bool:
    (sentence,) = claim_sentences(text)
    check = check_claim(sentence.text, sentence.refs, sources, paper="P", section=section)
    assert check is not None, f"no claim read in {text!r}"
    return check.traced


def test_a_flattened_table_is_read_as_rows_of_cells(search):
    rows = {row.label.split()[-1]: row for row in grid_rows(search.papers["P"].get("E196"))}
    assert [c.text if c else "-" for c in rows["PaSa-7b"].cells] == [
        "0.7071", "0.5146", "0.6111", "0.6929", "0.6563", "0.5798"
    ]  # fmt: skip
    assert [c.text if c else "-" for c in rows["PaSa-7b-ensemble"].cells][:3] == [
        "0.7503", "0.4938", "0.6488"
    ]  # fmt: skip


def test_prose_is_no_table(search):
    assert grid_rows(search.papers["P"].get("E227")) == ()


@pytest.mark.parametrize(
    ("section", "honest", "planted"),
    [
        pytest.param(  # 0.6488 is the ensemble's row, not PaSa-7b's
            "result_notes", "真实查询上 PaSa-7b 的召回为 0.6111 [E196]。",
            "真实查询上 PaSa-7b 的召回为 0.6488 [E196]。", id="a-value-of-another-row",
        ),
        pytest.param(  # in a results row the model is named in an earlier cell
            "results", "RealScholarQuery | PaSa-7b 召回 | Google 0.2342 | 0.6111 | Table 6 [E196]",
            "RealScholarQuery | PaSa-7b 召回 | Google 0.2342 | 0.6488 | Table 6 [E196]",
            id="a-results-row-naming-its-model-first",
        ),
        pytest.param(  # 0.6111 − 0.3075 (one column); 0.7071 − 0.2007 are of two rows and columns
            "result_notes", "PaSa-7b 的召回比 PaSa-GPT-4o 高 0.3036 [E196]。",
            "PaSa-7b 的召回比 PaSa-GPT-4o 高 0.5064 [E196]。", id="a-difference-across-rows-and-columns",
        ),
    ],
)  # fmt: skip
def test_values_of_a_flattened_table_keep_their_row_and_column(search, section, honest, planted):
    assert traced(search, honest, section), honest
    assert not traced(search, planted, section), planted


def test_numbers_said_together_come_from_one_row(physics):
    # T1 row 4 is k∈[-20,-5.1] with β=0.577; 1.038 is row 7's β (k∈[2.6,12])
    assert traced(physics, "指数衰减区 k∈[-20,-5.1] 的衰减率 β=0.577 [T1.r4.c1, T1.r4.c3]。")
    assert not traced(physics, "指数衰减区 k∈[-20,-5.1] 的衰减率 β=1.038 [T1.r4.c1, T1.r7.c3]。")


def test_a_share_of_something_is_no_change():
    from paperbrief.fulltext.units import Unit
    from paperbrief.text import find_numbers
    from paperbrief.write.quantities import states_change

    def unit(text: str) -> Unit:
        return Unit("E1", "sentence", text, "Section 4", "", tuple(find_numbers(text)))

    share = unit(
        "PRIMERA produces 416 words on average, less than 65% of the ground truths' length."
    )
    drop = unit("Removing the action leads to a drop in recall of 65% on the benchmark.")
    assert not states_change(share, next(m for m in share.mentions if m.value == 65))
    assert states_change(drop, next(m for m in drop.mentions if m.value == 65))
