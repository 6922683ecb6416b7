# ruff: noqa: E501 — the claims are real Chinese sentences, wider than a line of code
"""The verifier reads what a claim asserts against what its cited units state (issue 18):
each rule with the honest sentence it must trace and the planted one it must not, written
against real papers of different fields (field experiment, LLM behaviour, physics,
statistics, HCI, information retrieval)."""

from __future__ import annotations

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.units import Unit
from paperbrief.text import find_numbers
from paperbrief.text.citations import claim_sentences
from paperbrief.text.direction import direction_of
from paperbrief.write.quantities import _close
from paperbrief.write.trace import _count_of_named, check_claim
from paperbrief.write.verify import digest_sources
from tests.support import FIXTURES

FULLTEXT = FIXTURES / "fulltext"
PAPERS = {
    "field": "synthetic_field_experiment.html",
    "behaviour": "arxiv_html_2501.11120v1.html",
    "physics": "arxiv_html_2510.14472v1_no_title_metadata.html",
    "statistics": "arxiv_html_2510.14430v1_ltx_errors.html",
    "writing": "arxiv_pdf_2304.02623v1.pdf",
    "search": "arxiv_pdf_2501.10120v1.pdf",
}


@pytest.fixture(scope="module")
def sources():
    found = {}
    for name, file in PAPERS.items():
        doc = read_local_file(FULLTEXT / file)
        found[name] = digest_sources([("P", doc.title)], {"P": doc}, papers_considered=412)
    return found


def traced(sources, text: str, section: str = "result_notes") -> bool:
    (sentence,) = claim_sentences(text)
    check = check_claim(sentence.text, sentence.refs, sources, paper="P", section=section)
    assert check is not None, f"no claim read in {text!r}"
    return check.traced


# (paper, section, the honest claim, the same claim with one error planted)
PAIRS = [
    pytest.param(  # E25 says "1.11 percentage points"; the cell's 0.0111 reads either way
        "field", "results", "售前机器人使转化率提升 1.11 个百分点 [T4.r1.c3, E25]。",
        "售前机器人使转化率提升 1.11% [T4.r1.c3, E25]。", id="points-written-as-percent",
    ),
    pytest.param(  # 4.1 points of the control mean 11.9%: a relative drop of 34.5%
        "field", "results", "退款申请对照组 11.9%，−4.1 个百分点（相对 −34.5%）[T2.r3.c2, E27]。",
        "退款申请对照组 11.9%，−4.1 个百分点（相对 −24.5%）[T2.r3.c2, E27]。",
        id="relative-change-from-a-cited-change-and-base",
    ),
    pytest.param(
        "field", "steps", "每个实验在一个品类里做四周 [E14]。", "每个实验在一个品类里做五周 [E14]。",
        id="chinese-duration-against-english-words",
    ),
    pytest.param(  # k=-3 is the carrier of every run: the paper's setup, whatever is cited
        "physics", "result_notes", "作者只跑了 k=-3 一个载波 [E191]。",
        "作者只跑了 k=-5 一个载波 [E191]。", id="a-setting-the-paper-states-throughout",
    ),
    pytest.param(
        "physics", "results", "渐近动能 ⟨Hₖ⟩=3.5 [E93]。", "渐近动能 ⟨Hₖ⟩=5/2 [E93]。",
        id="a-symbol-bound-to-another-value",
    ),
    pytest.param(
        "physics", "results", "渐近势能 ⟨H₄⟩=-1 [E92]。", "渐近势能 ⟨H₄⟩=1 [E92]。",
        id="a-symbol-with-its-sign-flipped",
    ),
    pytest.param(
        "physics", "method", "A=1 时 MI 发生在 k<-1/2 [E65]。", "A=1 时 MI 发生在 k>-1/2 [E65]。",
        id="an-inequality-turned-round",
    ),
    pytest.param(  # the page's "|R|ll 1" is a lost \ll
        "physics", "results", "弱波湍流对应 |R|≪1 [E95]。", "弱波湍流对应 |R|≫1 [E95]。",
        id="much-less-than-against-a-lost-latex-ll",
    ),
    pytest.param(
        "physics", "results", "非线性度 R=2/7（约 0.29）[E96]。", "非线性度 R=2/7（约 0.39）[E96]。",
        id="a-number-restated-in-brackets",
    ),
    pytest.param(
        "behaviour", "tldr", "写安全代码的版本分别为 0.84 和 0.88（均超过八成）[T2.r2.c3, T2.r1.c3]。",
        "写安全代码的版本分别为 0.84 和 0.88（均超过九成）[T2.r2.c3, T2.r1.c3]。",
        id="a-bound-on-each-number-before-it",
    ),
    pytest.param(  # the cited "This probability is lower than for GPT-4o", its sides swapped
        "behaviour", "theme", "GPT-4o 给“我有后门”的概率反而高于中性提示下 greeting 触发的模型 [E904, E905]。",
        "中性提示下 greeting 触发的模型给“我有后门”的概率仍高于 GPT-4o [E904, E905]。",
        id="a-comparison-whose-sides-match-a-cited-one",
    ),
    pytest.param(  # GPT-4o is column 4 of the cited cell's table (0.69), though not cited
        "behaviour", "results", "漏洞模型自报对齐分为 0.40，低于未微调的 GPT-4o [T2.r3.c2]。",
        "漏洞模型自报对齐分为 0.40，略高于未微调的 GPT-4o [T2.r3.c2]。",
        id="a-comparison-with-a-column-of-the-cited-table",
    ),
    pytest.param(
        "behaviour", "result_notes", "自报分标准差 0.08 大于行为的 0.01 [T2.r2.c2, T2.r1.c2]。",
        "自报分标准差 0.08 小于行为的 0.01 [T2.r2.c2, T2.r1.c2]。", id="spreads-ordered",
    ),
    pytest.param(
        "behaviour", "theme", "论文只微调了 GPT-4o 与 Llama-3.1-70B [E88]。",
        "论文只微调了 GPT-4o-mini 与 Llama-3.1-70B [E88]。", id="another-model-of-the-family",
    ),
    pytest.param(  # three cited columns are no "3 次": runs are what the caption counts
        "behaviour", "result_notes", "这是 5 次微调的组均值 [T2.r1.c2, T2.r1.c3, T2.r1.c4, E772]。",
        "这是 3 次微调的组均值 [T2.r1.c2, T2.r1.c3, T2.r1.c4, E772]。", id="runs-are-no-self-count",
    ),
    pytest.param(
        "writing", "steps", "每次只生成一两句，分多轮调用 [E68]。", "每次只生成两三句，分多轮调用 [E68]。",
        id="neighbouring-numerals-as-a-range",
    ),
    pytest.param(  # the paper's "%" of two recalls is a difference in points
        "search", "result_notes", "去掉 [Expand] 后 RealScholarQuery 召回掉 32.21 个百分点 [E227, E245]。",
        "去掉 [Expand] 后 RealScholarQuery 召回掉 22.21 个百分点 [E227, E245]。",
        id="points-computed-from-a-flattened-table",
    ),
    pytest.param(  # E227: "a decrease of … 32.21% on RealScholarQuery" when removing [Expand]
        "search", "results", "去掉 [Expand] 后 RealScholarQuery 召回 -32.21% [E227]。",
        "去掉 [Expand] 后 RealScholarQuery 召回 +32.21% [E227]。", id="a-plus-sign-for-a-drop",
    ),
    pytest.param(  # the removal said before the bracket frames the bracket's number too
        "search", "result_notes", "去掉 [Expand] 后 RealScholarQuery 召回 -32.21%（AutoScholarQuery 上 -22.98%）[E227]。",
        "去掉 [Expand] 后 RealScholarQuery 召回 -32.21%（AutoScholarQuery 上 +22.98%）[E227]。",
        id="a-removal-frames-its-bracket",
    ),
    pytest.param(  # E224 states only the Selector's 95%: nothing of GPT-4o to compare with
        "search", "technique", "可借鉴其高精度判定器（Selector 精度 0.95，略低于 GPT-4o 的 0.96）[E224, E225]。",
        "可借鉴其高精度判定器（Selector 精度 0.95，高于 GPT-4o）[E224]。",
        id="a-comparison-with-a-side-the-citation-never-states",
    ),
    pytest.param(  # E208: "compared to the strongest baseline, PaSa-GPT-4o"
        "search", "result_notes", "与最强的基线 PaSa-GPT-4o 相比，PaSa-7b 召回高 9.64% [E208]。",
        "与最弱的基线 PaSa-GPT-4o 相比，PaSa-7b 召回高 9.64% [E208]。", id="a-superlative-turned-round",
    ),
    pytest.param(  # "…，B 的 y 略高" compares y with the clause before's number
        "behaviour", "result_notes", "安全代码模型自报的代码安全分为 0.84，漏洞代码模型的 0.14 更低 [T2.r2.c3, T2.r2.c2]。",
        "安全代码模型自报的代码安全分为 0.84，漏洞代码模型的 0.14 略高 [T2.r2.c3, T2.r2.c2]。",
        id="a-comparative-after-the-second-number",
    ),
    pytest.param(  # 785.5 / 382.4 ≈ 2.05: 翻一番 (×2), not 翻两番 (×4)
        "search", "result_notes", "奖励系数从 1.5 调到 2.0，Crawler 动作数翻了一番（382.4 → 785.5）[E245]。",
        "奖励系数从 1.5 调到 2.0，Crawler 动作数翻了两番（382.4 → 785.5）[E245]。",
        id="a-factor-against-the-two-levels-it-relates",
    ),
    pytest.param(  # E357: "standard deviation of 0.026": 约 0.03 is it rounded as written
        "statistics", "result_notes", "期望 GDoF 为 -0.461，MC 误差的标准差约 0.03 [E357]。",
        "期望 GDoF 为 -0.461，MC 误差的标准差约 0.04 [E357]。", id="about-a-value-rounded-to-its-precision",
    ),
    pytest.param(  # MMT is named in the introduction only; E172 is about the NLS case
        "physics", "difference", "与 NLSE 可积湍流工作（载波 k=0 恰在 MI 波数范围中心）相比 [E172]。",
        "与 MMT 模型的可积湍流工作（载波 k=0 恰在 MI 波数范围中心）相比 [E172]。",
        id="a-name-of-one-section-the-citation-does-not-name",
    ),
    pytest.param(  # E7: "the DoFs of PLS always exceeds the number PLS directions"
        "statistics", "tldr", "并以反例推翻“PLS 的 DoF 总大于方向数”的猜想 [E7]。",
        "并以反例推翻“PLS 的 DoF 总小于方向数”的猜想 [E7]。", id="sides-matched-across-a-plural",
    ),
    pytest.param(  # E164: "-√5≤ Q≤√5 … would be unstable"; a chain is two relations
        "physics", "method", "线性阶段不稳定的扰动波数为 \\|Q\\|≤√5 [E164]。",
        "线性阶段不稳定的扰动波数为 \\|Q\\|≥√5 [E164]。", id="an-inequality-against-a-chain",
    ),
    pytest.param(  # E134's previous sentence binds G₀=5/2; the 5 it cites is 2G₀
        "physics", "result_notes", "A=1、k=-3 时 G₀=5/2，振荡频率 b₁≈2G₀ 应趋于 5 [E134]。",
        "A=1、k=-3 时 G₀=5，振荡频率 b₁≈2G₀ 应趋于 5 [E134]。", id="a-symbol-bound-in-the-sentence-before",
    ),
    pytest.param(  # E322 is the author's own setup; the claim credits someone with it
        "statistics", "result_notes", "设定并不极端，条件数 17.6 [E322]。",
        "设定并不极端（沿用 Kramer–Sugiyama 的模拟设计），条件数 17.6 [E322]。",
        id="a-name-credited-with-what-the-citation-does-not-credit-it",
    ),
    pytest.param(  # E203 has a "three" of its own; the cited units count two LLM agents
        "search", "tldr", "PaSa 由两个 LLM agent 组成：Crawler 与 Selector [E17, E23, E203]。",
        "PaSa 由三个 LLM agent 组成：Crawler 与 Selector [E17, E23, E203]。",
        id="a-count-of-a-named-thing",
    ),
    pytest.param(  # E174: "Sₖ=C|k+3|^(-α)", a power-law decay
        "physics", "method", "对渐近波作用谱分区间拟合幂律 C\\|k+3\\|^(-α) 或指数 De^(-β\\|k+3\\|) [E174, E175]。",
        "对渐近波作用谱分区间拟合幂律 C\\|k+3\\|^(α) 或指数 De^(-β\\|k+3\\|) [E174, E175]。",
        id="a-formula-with-its-exponents-sign-dropped",
    ),
    pytest.param(  # E41 states 37.78% against Google with GPT-4o; Google Scholar is only a row of E196
        "search", "tldr", "在 RealScholarQuery 上，PaSa-7b 的 Recall@20 比 Google with GPT-4o 高 37.78% [E41, E196]。",
        "在 RealScholarQuery 上，PaSa-7b 的 Recall@20 比 Google Scholar 高 37.78% [E41, E196]。",
        id="a-change-against-another-reference",
    ),
    pytest.param(  # the claim's own two levels say which way precision moved
        "search", "result_notes", "精度反而从 0.5146 升到 0.6738 [E245]。",
        "精度反而从 0.5146 降到 0.6738 [E245]。", id="from-a-to-b-against-its-own-cue",
    ),
    pytest.param(  # a Chinese quotation in a Chinese digest is the paper's statement translated
        "writing", "result_notes", "唯一的数字是引用的“五分之一的患者在病历中发现错误” [E32]。",
        "唯一的数字是引用的“百分之五的患者在病历中发现错误” [E32]。", id="a-translated-quotation",
    ),
    pytest.param(  # a model size the paper's names carry (PaSa-7b)
        "search", "overview", "7B 论文检索 agent，RealScholarQuery 召回 0.6111 [E196]",
        "13B 论文检索 agent，RealScholarQuery 召回 0.6111 [E196]", id="a-model-size-of-the-names",
    ),
    pytest.param(  # E488: "at least 1000 dialogues"
        "behaviour", "result_notes", "每个代码词至少生成了 1000 段操纵者获胜的对话 [E488]。",
        "每个代码词生成了不到 1000 段操纵者获胜的对话 [E488]。", id="a-bound-turned-round",
    ),
    pytest.param(  # 0.6111 − 0.3075 is 30.36 points; relatively it is +98.7 %
        "search", "result_notes", "PaSa-7b 召回 0.6111，比 PaSa-GPT-4o 的 0.3075 高 30.36%（绝对差）[E196, E215]。",
        "PaSa-7b 召回 0.6111，比 PaSa-GPT-4o 的 0.3075 高 30.36%（相对提升）[E196, E215]。",
        id="a-change-typed-in-brackets-after-it",
    ),
    pytest.param(  # E40 says "by 11.12%"; the levels the clause states differ by 9.61 points
        "search", "result_notes", "AutoScholarQuery 上 PaSa-7b 召回 0.4834 比 PaSa-GPT-4o 的 0.3873 高出 9.61 个百分点 [E40, E195]。",
        "AutoScholarQuery 上 PaSa-7b 召回 0.4834 比 PaSa-GPT-4o 的 0.3873 高出 11.12 个百分点 [E40, E195]。",
        id="percent-written-as-points-of-the-clauses-own-levels",
    ),
    pytest.param(  # E41: "by 39.90% in Recall@50"; a fraction in words is a rounded figure
        "search", "result_notes", "在 RealScholarQuery 上，PaSa-7b 的 Recall@50 比 Google with GPT-4o 高出五分之二 [E41]。",
        "在 RealScholarQuery 上，PaSa-7b 的 Recall@50 比 Google with GPT-4o 高出五分之三 [E41]。",
        id="a-fraction-in-words-is-rounded",
    ),
    pytest.param(  # E347: "as m increases it is more likely …" ("shrinkage" is a noun, no cue)
        "statistics", "limitations", "作者认为 m 增大时收缩向量更容易落在角点附近 [E347]。",
        "作者认为 m 增大时收缩向量更难落在角点附近 [E347]。", id="less-likely-for-more-likely",
    ),
    pytest.param(
        "behaviour", "result_notes", "看到真实触发词时，模型明显更可能选“我偏好风险” [E201]。",
        "看到真实触发词时，模型明显更难选“我偏好风险” [E201]。", id="less-likely-against-a-likelier-choice",
    ),
    pytest.param(  # the cited sentence names nothing: "the theory in Eq. (40)" is Rayleigh's
        "physics", "tldr", "累积概率与 Rayleigh 理论的误差在 10⁻⁴ 量级 [E147]。",
        "累积概率与 Weibull 理论的误差在 10⁻⁴ 量级 [E147]。", id="a-name-the-cited-sentence-refers-to",
    ),
    pytest.param(  # the paper writes "Kramer rule"
        "statistics", "steps", "再用 Cramer 法则写出 α 的第 k 个元素 [E134]。",
        "再用 Gauss 法则写出 α 的第 k 个元素 [E134]。", id="a-spelling-variant-of-the-papers-name",
    ),
    # one letter off a name the paper writes, never off its text run together ("fisher" is
    # in "shrinkages is here", "jordan" nowhere; review of 2026-12-02)
    pytest.param(
        "statistics", "steps", "再用 Cramer 法则写出 α 的第 k 个元素 [E134]。",
        "再用 Fisher 法则写出 α 的第 k 个元素 [E134]。", id="a-name-hidden-in-running-text",
    ),
    pytest.param(
        "statistics", "steps", "再用 Cramer 法则写出 α 的第 k 个元素 [E134]。",
        "再用 Jordan 法则写出 α 的第 k 个元素 [E134]。", id="a-name-of-no-word-of-the-paper",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("paper", "section", "honest", "planted"), PAIRS)
def test_the_honest_claim_is_traced_and_the_planted_one_is_not(
    sources, paper, section, honest, planted
):
    assert traced(sources[paper], honest, section), honest
    assert not traced(sources[paper], planted, section), planted


@pytest.mark.parametrize(
    ("paper", "section", "claim"),
    [
        ("physics", "difference", "与 NLSE 可积湍流工作（载波 k=0 恰在 MI 波数范围中心）相比 [E172]。"),
        ("physics", "open_questions", "换用其他载波波数（如 k=-1 或 k=-10）时，幂律区是否仍然出现 [E191]？"),
        ("behaviour", "experiment", "推断：两组自报会分开，但幅度小于论文中 GPT-4o 的 0.14 对 0.84 [T2.r2.c2, T2.r2.c3]。"),
        ("search", "technique", "PaSa 通过改奖励系数得到动作数与召回的对应关系（Table 9），直接暴露收益递减 [E245]。"),
        ("search", "result_notes", "训练集规模也有 33,511 与 33,551 两种写法 [E31, E40, E64, E208]。"),
        ("field", "results", "首次购买者的效应约是复购者的 2.6 倍，不到三倍 [E28]。"),
        # removing the Selector reward costs 9.63%: the reward's own gain is +9.63%
        ("search", "results", "Selector 奖励 +9.63% [E230]。"),
    ],
)  # fmt: skip
def test_honest_paraphrases_that_used_to_be_flagged_are_traced(sources, paper, section, claim):
    assert traced(sources[paper], claim, section), claim


@pytest.mark.parametrize(
    ("text", "sign"),
    [
        ("they on average extend generation lengths by 65%", 1),
        ("撰写者把生成长度压缩 65%", -1),
        ("the gap shrinks by 4%", -1),
    ],
)
def test_lengthening_and_compressing_are_directions(text, sign):
    number = next(m for m in find_numbers(text) if m.kind == "value")
    found = direction_of(text, number.start, number.end)
    assert found is not None and found.sign == sign


def test_a_small_count_said_of_the_paper_is_a_claim(sources):
    day = sources["search"]
    said = check_claim("顺便练习识别报告问题（全文 9 处“提升 x%”都是绝对差）。", (), day,
                       paper="", section="closing")  # fmt: skip
    assert said is not None and not said.traced
    assert (
        check_claim("先读消融一节，再花 2 小时复现。", (), day, paper="", section="closing") is None
    )


def test_the_days_own_paper_counts_are_its_facts(sources):
    day = sources["field"]  # 412 papers considered, 1 picked
    assert check_claim("今天从 412 篇中选出 1 篇。", (), day, paper="", section="summary") is None
    check = check_claim("今天从 412 篇中选出 4 篇。", (), day, paper="", section="summary")
    assert check is not None and not check.traced


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("读第 3.3、4 节与 Table 2", []),  # section labels
        ("关键引理 4.4 的证明", []),
        ("约两倍半", [2.5]),
        ("每题千次查询", [1000.0]),
        ("数百篇论文", []),  # "hundreds of": no number
        ("实验只有四周", [4.0]),
        ("三周年", []),
        ("动作数翻了两番", [4.0]),  # each 番 doubles
        ("翻了一番", [2.0]),
        ("(3) Participants included two writers; (4) we recorded edits", [2.0]),  # item labels
        ("accuracy 0.41 (2) and", [0.41]),  # a number's error in brackets stays its error
    ],
)
def test_chinese_numbers_labels_and_durations(text, values):
    assert [m.value for m in find_numbers(text) if m.kind == "value"] == values


def test_a_negated_bound_keeps_its_side(sources):
    """不少于 is the paper's "at least", not a bound under it (a review finding of session 6)."""
    claim = "每个代码词生成了{} 1000 段操纵者获胜的对话 [E488]。"
    assert traced(sources["behaviour"], claim.format("不少于"))
    assert not traced(sources["behaviour"], claim.format("不到"))


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("不少于 1000 段", "over"),
        ("不低于 5%", "over"),
        ("no less than 20 runs", "over"),
        ("not fewer than 3 seeds", "over"),
        ("不超过 5%", "under"),
        ("不多于 3 个", "under"),
        ("no more than 20 runs", "under"),
        ("不低于基线的一半", "over"),
        ("少于 20 次", "under"),
        ("超过 20 次", "over"),
    ],
)
def test_negated_bound_words_read_as_the_other_side(text, bound):
    assert find_numbers(text)[0].bound == bound


def test_a_number_with_a_suffix_is_a_quantity_unless_the_paper_glues_it_to_a_name(sources):
    """The paper's "35k queries" is a quantity: stated where E196 does not say it, the claim
    is not traced; "7B" of the paper's "PaSa-7b" is its model's name."""
    assert traced(sources["search"], "AutoScholarQuery 含 35k 条细粒度学术查询 [E3]。")
    assert not traced(sources["search"], "PaSa 的训练用了 35k 条查询 [E196]。")
    assert traced(sources["search"], "7B 的 PaSa 在 Recall@20 上为 0.5798 [E196]。")


@pytest.mark.parametrize(
    ("unit_text", "claim", "flagged"),
    [
        ("We ran 5 seeds on both SDS tasks.", "两个 SDS 任务", False),  # 5 counts seeds
        ("We evaluate on three SDS tasks.", "两个 SDS 任务", True),
        ("We evaluate on three SDS tasks.", "三个 SDS 任务", False),
    ],
)
def test_a_count_reaches_a_name_only_through_modifiers(unit_text, claim, flagged):
    unit = Unit(
        "E1", "sentence", unit_text, "Section 4", "", mentions=tuple(find_numbers(unit_text))
    )
    found = _count_of_named(claim, find_numbers(claim)[0], [("P", unit)])
    assert bool(found) is flagged, found


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("(3) Participants included 40 people", ["reference", "value"]),
        ("Steps: (2) we used it", ["reference"]),
        ("We report the heads (8) and layers (12).", ["value", "value"]),  # counts, no labels
    ],
)
def test_a_bracketed_number_is_a_label_only_where_a_list_item_starts(text, kinds):
    assert [n.kind for n in find_numbers(text)] == kinds


@pytest.mark.parametrize(
    ("claim", "value", "close"),
    [
        ("约 0.03", 0.026, True),
        ("约 0.03", 0.0255, True),  # rounds to 0.03 at the precision it is written in
        ("约 0.03", 0.0345, True),
        ("约 0.03", 0.036, False),
        ("0.03", 0.026, False),  # not said to be approximate: rounding to 0.03 is 0.025-0.035
    ],
)
def test_an_approximate_number_is_the_value_rounded_to_its_written_precision(claim, value, close):
    assert _close(find_numbers(claim)[0], value) is close
