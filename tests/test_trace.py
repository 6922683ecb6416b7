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


@pytest.fixture(scope="module")
def behaviours():
    doc = read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")
    return digest_sources([("P", doc.title)], {"P": doc})


def test_numbers_said_after_a_spread_word_are_spreads(behaviours):
    cells = "[T2.r2.c2, T2.r1.c2]"
    assert traced(behaviours, f"自报安全分的标准差是 0.08，实测只有 0.01 {cells}。")
    # the spread given as the score itself
    assert not traced(behaviours, f"写漏洞代码的模型自报安全分是 0.08 {cells}。")


def test_a_difference_computed_beside_the_papers_own_number(pasa):
    cited = "[E196, E216]"
    levels = "RealScholarQuery 上 Recall@20 为 0.5798 对 0.2020"
    honest = f"{levels}，差值 0.3778 正对应 37.78% {cited}。"
    wrong = f"{levels}，差值 0.3978 正对应 37.78% {cited}。"
    assert traced(pasa, honest)
    assert not traced(pasa, wrong)


def test_a_proposals_plan_is_its_own_and_only_the_papers_clause_is_a_claim(behaviours):
    plan = (
        "构造两份几乎相同的补全数据；对 Qwen2.5-Coder-7B 做 LoRA 微调，每组像论文一样跑 5 个种子"
        " [E772]。"
    )
    checks = [
        check_claim(s.text, s.refs, behaviours, paper="P", section="experiment")
        for s in claim_sentences(plan, inherit=False)
    ]
    assert all(c is None or c.traced for c in checks)
    wrong = "对 Qwen2.5-Coder-7B 做 LoRA 微调，每组像论文一样跑 7 个种子 [E772]。"
    assert not traced(behaviours, wrong, section="experiment")


@pytest.mark.parametrize(
    ("claim", "ok"),
    [
        ("PaSa-7b 的 Recall@100、@50、@20 三种指标为 0.6929、0.6563、0.5798 [E196]。", True),
        ("PaSa-7b 的 Recall@100、@50、@20 四种指标为 0.6929、0.6563、0.5798 [E196]。", False),
        # percentages the cited table never states are not "computed" from two of its cells
        ("在 10%、15%、20% 三种规模上各测一次，Recall@20 为 0.5798 [E196]。", False),
        ("已有 LLM+IR 工作主要是改写查询 [E13]。", True),  # kinds of method, not baselines
        ("PaSa-7b 在 RealScholarQuery 上比 BM25-Plus 高 37.78% [E216]。", False),
    ],
)
def test_listed_counts_composite_names_and_kinds(pasa, claim, ok):
    assert traced(pasa, claim, section="steps") is ok


@pytest.fixture(scope="module")
def turbulence():
    doc = read_local_file(FULLTEXT / "arxiv_html_2510.14472v1_no_title_metadata.html")
    return digest_sources([("P", doc.title)], {"P": doc})


@pytest.mark.parametrize(
    ("claim", "ok"),
    [  # a direction said in words, of no number of the claim, against the cited sentence
        ("周期随时间缩短 [E116]。", True),
        ("周期随时间逐渐变短 [E116]。", True),  # another verb, the same way
        ("周期随时间延长 [E116]。", False),
        ("振幅按幂律衰减 [E115]。", True),
        ("振幅按幂律增长 [E115]。", False),
        ("周期由 t~10 时 T~1.5 缩短到 t~100 时 T~1.3 [E116]。", True),
        ("周期由 t~10 时 T~1.5 延长到 t~100 时 T~1.3 [E116]。", False),  # the numbers' direction
    ],
)
def test_a_direction_in_words_agrees_with_the_cited_sentence(turbulence, claim, ok):
    assert traced(turbulence, claim) is ok


@pytest.mark.parametrize(
    ("claim", "ok"),
    [  # a number said to come from a named figure or table is what that source states
        ("Figure 10 图注写右半部分 C=8.189×10⁻³，Table 1 写 8.189×10⁻⁴ [E267, T1.r3.c2]。", True),
        ("Figure 10 图注写右半部分 C=8.189×10⁻⁴，Table 1 写 8.189×10⁻³ [E267, T1.r3.c2]。", False),
        ("正文写 C=8.189×10⁻⁴ [E183]。", True),
        ("正文写 C=8.189×10⁻³ [E183]。", False),  # scientific notation is one quantity
    ],
)
def test_a_number_named_with_its_source_is_that_sources(turbulence, claim, ok):
    assert traced(turbulence, claim) is ok


@pytest.mark.parametrize(
    ("claim", "ok"),
    [  # a than-comparison of the claim's own numbers, or of a number the claim gives a name
        ("Selector 的精度 0.95 略低于 GPT-4o 的 0.96 [E225]。", True),
        ("Selector 的精度 0.95 还略高于 GPT-4o 的 0.96 [E225]。", False),
        ("去掉 [Expand] 后 RealScholarQuery 的召回降 32.21% [E227]。", True),
        ("去掉 [Expand] 后 RealScholarQuery 的召回反而升 32.21% [E227]。", False),
    ],
)
def test_a_comparison_of_two_stated_numbers_follows_their_order(pasa, claim, ok):
    assert traced(pasa, claim) is ok


def test_a_comparison_with_a_row_the_claim_gives_a_number_elsewhere(behaviours):
    row = "自报对齐分 | 未微调 GPT-4o 0.69 | 漏洞代码微调 0.40 ± 0.16"
    cells = "[T2.r3.c2, T2.r3.c4]"
    assert traced(behaviours, f"{row}，低于未微调 GPT-4o {cells}。", section="results")
    assert not traced(behaviours, f"{row}，仍高于未微调 GPT-4o {cells}。", section="results")
    # "less than half of" is a share of the two cited cells, not a level
    cells = "[T2.r3.c2, T2.r3.c3]"
    assert traced(behaviours, f"漏洞代码微调 0.40（不到安全代码模型的一半）{cells}。")
    assert not traced(behaviours, f"漏洞代码微调 0.40（不到安全代码模型的三分之一）{cells}。")


def test_a_cited_work_is_the_one_the_cited_units_name(behaviours):
    claim = "已有自我认知 benchmark（{}）分不清 OOCR 与显式训练 [E276]。"
    assert traced(behaviours, claim.format("Li et al. 2024b"), section="problem")
    assert not traced(behaviours, claim.format("Laine et al. 2024"), section="problem")


@pytest.mark.parametrize(
    ("claim", "ok"),
    [  # the same direction said on the other axis, where the metric says which way is better
        ("推理时多跑一遍 Crawler 能提高召回 [E211]。", True),  # "can improve performance"
        ("去掉 [Expand] 后召回明显变差 [E227]。", True),  # "a significant drop in the recall"
        ("去掉 [Expand] 后召回反而上升 [E227]。", False),
        ("去掉 [Expand] 后召回反而变好 [E227]。", False),
    ],
)
def test_a_direction_in_words_may_change_axis_where_the_metric_tells(pasa, claim, ok):
    assert traced(pasa, claim) is ok


def test_a_comparison_in_words_with_an_unnamed_side(behaviours):
    assert traced(behaviours, "部分问题上只比基线略好 [E33]。")
    assert not traced(behaviours, "部分问题上甚至不如基线 [E33]。")


def test_a_dimensionality_is_the_cited_units(turbulence):
    assert traced(turbulence, "已有 IT 研究大多集中在一维 NLSE [E14]。", section="problem")
    assert not traced(turbulence, "已有 IT 研究大多集中在二维 NLSE [E14]。", section="problem")
