"""Claims checked against the units they cite: quantity, direction, names, comparisons, counts.

The papers are real (a PDF and an HTML page from the fixtures) or the documented synthetic
field-experiment page; the claims are written as a careless model would get them wrong, and
as an honest one would paraphrase them right.
"""

from __future__ import annotations

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.text.citations import claim_sentences, parse_refs
from paperbrief.write.trace import check_claim
from paperbrief.write.verify import digest_sources
from tests.support import FIXTURES

FULLTEXT = FIXTURES / "fulltext"


@pytest.fixture(scope="module")
def field():
    doc = read_local_file(FULLTEXT / "synthetic_field_experiment.html")
    return digest_sources([("P", doc.title)], {"P": doc})


@pytest.fixture(scope="module")
def pasa():
    doc = read_local_file(FULLTEXT / "arxiv_pdf_2501.10120v1.pdf")
    return digest_sources([("P", doc.title)], {"P": doc})


def traced(sources, text: str, section: str = "results_notes", paper: str = "P") -> bool:
    (sentence,) = claim_sentences(text)
    check = check_claim(sentence.text, sentence.refs, sources, paper=paper, section=section)
    assert check is not None, f"no claim read in {text!r}"
    return check.traced


@pytest.mark.parametrize(
    "claim",
    [
        "售前客服机器人使转化率提升 16.3% [E8]。",
        "售前机器人使购买概率提升 1.11 个百分点 [E25]。",
        "售后机器人使退款申请下降 4.1 个百分点 [E27]。",
        "满意度从 4.21 升至 4.37 [E27]。",
        "满意度提升 0.16 分 [E27]。",  # a difference of two cited values, in the right direction
        "七个实验覆盖 1,204,331 次会话 [E5]。",
        "转化率提升约 16% [E8]。",
        "售前机器人使转化率提升 0.163 [E8]。",  # a fraction for its percentage
        "首次购买者的效应是重复购买者的 2.6 倍 [E28]。",
        "平台有 3100 万月活买家 [E13]。",
        "After-sale Service Chatbot 的转化变化为 -34.5% [T4.r4.c4]。",
    ],
)
def test_an_honest_claim_or_paraphrase_is_traced(field, claim):
    assert traced(field, claim)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("售前客服机器人使转化率提升 16.3 个百分点 [E8]。", "percent as points"),
        ("售前机器人使购买概率提升 1.11% [E25]。", "points as percent"),
        ("售后机器人使退款申请增加 4.1 个百分点 [E27]。", "direction flipped"),
        ("满意度下降 0.16 分 [E27]。", "direction of a difference flipped"),
        ("九个实验覆盖 1,204,331 次会话 [E5]。", "wrong count"),
        ("首次购买者的效应是重复购买者的两倍 [E28]。", "两倍 for 2.6×"),
        ("转化率提升近两成 [E8]。", "两成 for 16.3%"),
        ("平台有 3.1 万月活买家 [E13]。", "万 for million"),
        ("After-sale Service Chatbot 的转化提升 34.5% [T4.r4.c4]。", "a fall written as a rise"),
        ("Pre-sale Service Chatbot 的转化变化为 -34.5% [T4.r4.c4]。", "another row's name"),
        ("售前客服机器人使转化率提升 16.3%。", "no citation"),
        ("售前客服机器人使转化率提升 16.3% [E999]。", "a unit the paper lacks"),
    ],
)
def test_a_wrong_claim_is_not_traced(field, claim, kind):
    assert not traced(field, claim), kind


def test_a_number_of_the_paper_cited_from_the_wrong_sentence_is_not_traced(field):
    # 16.3% is a number of the paper, but not of the unit this claim cites
    assert not traced(field, "售前客服机器人使转化率提升 16.3% [E5]。")


@pytest.mark.parametrize(
    ("claim", "ok"),
    [
        (
            "在 RealScholarQuery 上，PaSa-7b 的 Recall@20 比 Google with GPT-4o 高 37.78% [E41]。",
            True,
        ),
        (
            "在 AutoScholarQuery 上，PaSa-7b 的 Recall@20 比 Google with GPT-4o 高 37.78% [E41]。",
            False,
        ),
        (
            "在 RealScholarQuery 上，Google with GPT-4o 的 Recall@20 比 PaSa-7b 高 37.78% [E41]。",
            False,
        ),
        ("在 RealScholarQuery 上，PaSa-7b 的 Recall@20 比 Google Scholar 高 37.78% [E41]。", False),
        ("Google with GPT-4o trails PaSa-7b by 37.78% on RealScholarQuery [E41].", True),
        ("Google with GPT-4o outperforms PaSa-7b by 37.78% on RealScholarQuery [E41].", False),
        ("相比最强基线 PaSa-GPT-4o，PaSa-7b 的召回率提升 9.64% [E208]。", True),
        ("相比最强基线 PaSa-GPT-4o，PaSa-7b 的召回率下降 9.64% [E208]。", False),
        ("PaSa-GPT-4o 优于 PaSa-7b，召回率高 9.64% [E208]。", False),
        ("RealScholarQuery 包含五十个真实查询 [E82]。", True),
        ("RealScholarQuery 包含 60 个真实查询 [E82]。", False),
        ("AutoScholarQuery 的训练集有约 3.4 万条 [E64]。", True),
    ],
)
def test_names_order_and_counts_against_a_real_pdf(pasa, claim, ok):
    assert traced(pasa, claim) is ok


def test_one_cited_cell_supports_one_claimed_number():
    doc = read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")
    sources = digest_sources([("P", doc.title)], {"P": doc})
    cited = "[T2.r1.c2, T2.r2.c2, T2.r1.c3, T2.r2.c3]"
    honest = f"安全代码率只有 0.14，自报安全分也是 0.14（安全版分别为 0.88 和 0.84）{cited}。"
    moved = f"安全代码率只有 0.14，自报安全分也是 0.88（安全版分别为 0.88 和 0.84）{cited}。"
    assert traced(sources, honest)
    assert not traced(sources, moved)


def test_a_day_level_claim_is_checked_against_the_paper_it_cites_only(field, pasa):
    doc_a = read_local_file(FULLTEXT / "synthetic_field_experiment.html")
    doc_b = read_local_file(FULLTEXT / "arxiv_pdf_2501.10120v1.pdf")
    sources = digest_sources(
        [("A", doc_a.title), ("B", doc_b.title)], {"A": doc_a, "B": doc_b},
        short_names=["GenAI 客服", "PaSa"],
    )  # fmt: skip
    right = "GenAI 客服让售前转化提升 16.3% [1:E8]。"
    pooled = "GenAI 客服让售前转化提升 16.3% [2:E8]。"  # the other paper's E8
    assert traced(sources, right, section="summary", paper="")
    assert not traced(sources, pooled, section="summary", paper="")
    assert not traced(sources, "GenAI 客服让售前转化提升 16.3% [E8]。", section="summary", paper="")


def test_citations_are_read_with_their_sentence():
    text = (
        "提升 9.64% [E60]。相比基线，提升 37.78%。[E61, T5.r2.c3]\n• 两倍 [2:E7；3:T4.r1.c2] 然后"
    )
    sentences = claim_sentences(text)
    assert [tuple(str(r) for r in s.refs) for s in sentences] == [
        ("E60",),
        ("E61", "T5.r2.c3"),
        ("2:E7", "3:T4.r1.c2"),
    ]
    assert sentences[1].plain == "相比基线，提升 37.78%。"
    assert parse_refs("[2501.11120:E12]")[0].paper == "2501.11120"
