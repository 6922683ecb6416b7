"""The one per-language table of every word the digest prints.

``Labels`` is typed, so a misspelt label is a mypy error, not a blank heading; writers,
renderers, delivery, the verifier and the web UI's digest pages read their words from here
and hard-code none (punctuation included: ``colon`` and ``separator`` differ between zh and
en). The web UI's own words (its pages, buttons and forms) are ``web.labels.WebLabels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Labels:
    """The words of one language."""

    html_lang: str  # the lang attribute of HTML pages
    colon: str  # Between a label and its text.
    rank_fits: str  # the ranker's one-line reason: {line}
    rank_matches: str  # ... and the key phrases it matched: {terms}
    rank_close: str  # ... or that it is only semantically close
    rank_like_picked: str  # ... like papers the reader picked before
    rank_avoided: str  # ... touches an avoided topic
    rank_instructions: str  # ... its text gives instructions to the model (never picked)
    rank_steered: str  # its rating rested on a sentence addressing its reader ({before}, {after})
    rank_follow_up: str  # ... a new version of a paper the reader liked
    rank_thin_day: str  # the digest's note on a day with fewer picks than wanted
    separator: str  # Between items of running text.
    title_with_stars: str  # A pick named in running text: {title}, {stars}.
    summary: str
    overview: str
    col_paper: str
    col_direction: str
    col_contribution: str
    col_relevance: str
    theme: str
    reason: str
    info: str
    tldr: str
    problem: str
    method: str
    insight: str
    steps: str
    difference: str
    results: str
    result_notes: str
    reported_numbers: str
    limitations: str
    limitation_n: str
    open_question: str
    implications: str
    technique: str
    experiment: str
    trend: str
    comparison: str
    dimension: str
    provenance: str
    writer_offline: str
    abstract_only: str
    not_fetched: str
    matched_terms: str
    result_headers: tuple[str, ...]  # the key-results table's columns
    claims_traced: str  # footer: {traced} claims traced, {untraced} not traced (⚠)
    strict_cut_lead: str  # footer: one claim strict mode cut, "<paper> · <section>: <text>"
    line: str
    stars: str
    source_label: str
    model: str
    tokens: str
    cost: str
    papers_considered: str
    why_line: str
    why_terms: str
    full: str
    more: str
    day_offline_summary: str
    with_fulltext: str
    closing_offline: str
    empty_reason_nothing_passed: str
    et_al: str  # after the first authors of a long author list
    key_numbers: str  # offline comparison row: the numbers each abstract reports
    strict_removed: str  # footer: {n} untraced claims cut by strict mode
    source_names: tuple[tuple[str, str], ...]  # Document.source -> what the reader sees
    section_names: tuple[tuple[str, str], ...]  # verifier section key -> heading words
    fulltext_pdf: str  # the brief was read from a PDF (no figures)
    fulltext_pdf_no_html: str  # arXiv has no HTML for it: read from the PDF
    fulltext_pdf_html_failed: str  # the HTML could not be fetched: read from the PDF
    fulltext_pdf_html_unusable: str  # the HTML conversion is unusable: read from the PDF
    fulltext_html_degraded: str  # an HTML page with many conversion errors was used
    fulltext_fetch_failed: str  # every source failed to arrive: abstract only
    fulltext_none: str  # a source exists but has no usable text: abstract only
    fulltext_absent: str  # arXiv serves neither HTML nor PDF for it: abstract only
    no_figure_in_html: str  # the HTML exists but has no usable image

    def source_name(self, source: str) -> str:
        """What a full-text source value (``arxiv-html``, ``not-fetched`` …) is called."""
        return dict(self.source_names).get(source, source)

    def section_name(self, key: str) -> str:
        """The heading words of a verifier section key (``tldr``, ``result_notes`` …)."""
        return dict(self.section_names).get(key, key)

    # What fell back and why (the pipeline's fallbacks, said in the digest).
    fallback_embedding: str  # {reason}: ranked without the embedding model
    fallback_ranking: str  # {reason}
    fallback_brief: str  # {reason}: under the pick whose deep read fell back
    fallback_briefs: str  # {reason}, {papers}: the provenance line
    fallback_day: str  # {reason}
    fallback_fulltext: str  # {reason}, {papers}
    day_fallback_summary: str  # {total}, {count}, {items}
    reason_unreachable: str
    reason_timeout: str
    reason_budget: str
    reason_invalid: str
    reason_refused: str
    reason_deadline: str
    reason_fetch: str
    reason_model: str
    reason_error: str

    def fallback_reason(self, reason: str) -> str:
        """The words for a fallback's reason (``errors.LLMError.reason`` and ``fetch``)."""
        return {
            "unreachable": self.reason_unreachable,
            "timeout": self.reason_timeout,
            "budget": self.reason_budget,
            "invalid": self.reason_invalid,
            "refused": self.reason_refused,
            "deadline": self.reason_deadline,
            "fetch": self.reason_fetch,
            "model": self.reason_model,
        }.get(reason, self.reason_error)


_ZH = Labels(
    html_lang="zh-CN",
    colon="：",
    rank_fits="契合「{line}」",
    rank_matches="命中 {terms}",
    rank_close="与该方向语义相近",
    rank_like_picked="与你以往选中的论文相似",
    rank_avoided="含回避主题，已降权",
    rank_instructions="文中含有写给模型的指令，已标记，不会入选",
    rank_steered="评分取决于文中写给读者的一句话（有它 {before} 星，去掉后 {after} 星）：",
    rank_follow_up="你喜欢过的论文出了新版本",
    rank_thin_day="今天 {total} 篇论文中只有 {count} 篇达到 {stars} 星（想要 {wanted} 篇）；"
    "没有拿更弱的论文凑数。",
    separator="；",
    title_with_stars="{title}（{stars}）",
    summary="今日总结",
    overview="今日全览",
    col_paper="论文",
    col_direction="方向",
    col_contribution="核心贡献",
    col_relevance="与我们的相关度",
    theme="今日主题",
    reason="推荐理由",
    info="论文信息",
    tldr="TL;DR",
    problem="问题是什么？",
    method="他们怎么做的？",
    insight="核心 Insight",
    steps="具体流程",
    difference="跟之前方法的本质区别",
    results="关键结果",
    result_notes="结果解读",
    reported_numbers="摘要中报告的数字",
    limitations="局限性与开放问题",
    limitation_n="局限 {n}",
    open_question="开放问题",
    implications="💡 对我们的启发",
    technique="直接可用的技术点",
    experiment="具体实验想法",
    trend="研究趋势判断",
    comparison="方法对比",
    dimension="维度",
    provenance="来源与核验",
    writer_offline="本期由离线模式生成（未使用大语言模型）：内容全部来自论文元数据、摘要与可获取的全文，以抽取为主，不含推断；无法如实填写的小节已省略。",
    abstract_only="仅依据摘要撰写：未能获取全文。",
    not_fetched="离线模式：本次未读取全文，内容仅依据摘要，不含原图。",
    matched_terms="命中关键词",
    result_headers=("任务 / 基准", "设置 / 指标", "基线", "本文", "变化", "出处"),
    claims_traced="{traced} 条论断可追溯到原文的句子或表格单元格；{untraced} 条未能追溯，已标 ⚠。",
    strict_cut_lead="删去：",
    line="研究方向",
    stars="相关度",
    source_label="全文来源",
    model="模型",
    tokens="tokens",
    cost="成本",
    papers_considered="今日候选论文",
    why_line="与「{line}」方向相关",
    why_terms="命中：{terms}",
    full="阅读全文",
    more="另有 {n} 篇，见全文",
    day_offline_summary=(
        "今日 {total} 篇新论文中，按画像筛出 {count} 篇：{items}。"
        "以下内容直接取自论文摘要{fulltext}，未经大语言模型改写。"
    ),
    with_fulltext="与全文",
    closing_offline="建议先读《{title}》：它与「{line}」方向最相关（{stars}）。",
    empty_reason_nothing_passed="{day} 共 {total} 篇论文，但没有一篇达到画像的最低相关度。",
    et_al="等",
    key_numbers="关键数字",
    strict_removed="严格模式删去了 {n} 条未能追溯到原文的论断（整句或整行删去）：",
    source_names=(
        ("arxiv-html", "arXiv HTML 全文"),
        ("ar5iv", "ar5iv 全文"),
        ("pdf", "PDF 全文"),
        ("local-html", "本地 HTML 全文"),
        ("local-pdf", "本地 PDF 全文"),
        ("abstract", "仅摘要"),
        ("not-fetched", "未读取全文（离线）"),
    ),
    section_names=(
        ("reason", "推荐理由"),
        ("tldr", "TL;DR"),
        ("problem", "问题"),
        ("insight", "核心 Insight"),
        ("method", "方法"),
        ("steps", "具体流程"),
        ("difference", "本质区别"),
        ("results", "关键结果"),
        ("result_notes", "结果解读"),
        ("reported_numbers", "摘要中的数字"),
        ("limitations", "局限"),
        ("open_questions", "开放问题"),
        ("technique", "技术点"),
        ("experiment", "实验想法"),
        ("trend", "趋势判断"),
        ("figure", "图注"),
        ("overview", "今日全览"),
        ("comparison", "方法对比"),
        ("summary", "今日总结"),
        ("theme", "今日主题"),
        ("closing", "结语"),
    ),
    fulltext_pdf="全文取自 PDF，本文不含原图。",
    fulltext_pdf_no_html="该论文没有 arXiv HTML 版本，全文取自 PDF，本文不含原图。",
    fulltext_pdf_html_failed=(
        "arXiv HTML 获取失败（网络或服务器错误），全文改取 PDF，本文不含原图。"
    ),
    fulltext_pdf_html_unusable="arXiv HTML 转换不可用，全文改取 PDF，本文不含原图。",
    fulltext_html_degraded="arXiv HTML 转换错误较多，全文可能有缺漏。",
    fulltext_fetch_failed="全文获取失败（网络或服务器错误），本篇仅依据摘要撰写，不含原图；下次运行会重试。",
    fulltext_none="没有可用的全文（无 HTML，PDF 无法提取文字），本篇仅依据摘要撰写。",
    fulltext_absent="arXiv 上没有这篇的 HTML 或 PDF 全文，本篇仅依据摘要撰写。",
    no_figure_in_html="原文 HTML 中没有可展示的图片。",
    fallback_embedding=(
        "排序：嵌入模型无法加载（{reason}），今日仅按关键词（BM25）、类别与回避主题排序，"
        "未用从反馈中学到的偏好。"
    ),
    fallback_ranking="排序：大语言模型评审未完成（{reason}），沿用初筛排序。",
    fallback_brief="本篇深读未能由大语言模型完成（{reason}），以下为离线摘录。",
    fallback_briefs="深读改为离线摘录（{reason}）：{papers}",
    fallback_day="今日总结与方法对比：大语言模型未能完成（{reason}），改用离线汇总。",
    fallback_fulltext="全文获取失败（{reason}），依据摘要撰写：{papers}",
    day_fallback_summary="今日 {total} 篇新论文中，按画像筛出 {count} 篇：{items}。",
    reason_unreachable="无法连接大语言模型服务",
    reason_timeout="大语言模型服务超时",
    reason_budget="今日 token / 费用预算已用完",
    reason_invalid="大语言模型的回答无法使用",
    reason_refused="大语言模型服务拒绝了请求",
    reason_deadline="已到本次运行的截止时间",
    reason_fetch="网络或服务器故障",
    reason_model="模型文件缺失或损坏，重装 paperbrief 即可",
    reason_error="出现意外错误",
)

_EN = Labels(
    html_lang="en",
    colon=": ",
    rank_fits="Fits “{line}”",
    rank_matches=" matches {terms}",
    rank_close=" semantically close",
    rank_like_picked=" similar to papers you picked before",
    rank_avoided=" touches an avoided topic, down-weighted",
    rank_instructions=" its text gives instructions to the model: flagged, never picked",
    rank_steered="its rating rested on a sentence addressed to its reader ({before} stars"
    " with it, {after} without): ",
    rank_follow_up=" a new version of a paper you liked",
    rank_thin_day="A thin day: {count} of today's {total} papers reached {stars} stars (you"
    " asked for {wanted}); nothing weaker was added to fill it.",
    separator="; ",
    title_with_stars="{title} ({stars})",
    summary="Summary",
    overview="Overview",
    col_paper="Paper",
    col_direction="Area",
    col_contribution="Key contribution",
    col_relevance="Relevance to us",
    theme="Theme of the day",
    reason="Why we picked it",
    info="Paper",
    tldr="TL;DR",
    problem="What is the problem?",
    method="How do they do it?",
    insight="Core insight",
    steps="Steps",
    difference="What is really different from prior work",
    results="Key results",
    result_notes="Reading the results",
    reported_numbers="Numbers reported in the abstract",
    limitations="Limitations and open questions",
    limitation_n="Limitation {n}",
    open_question="Open question",
    implications="💡 What this means for us",
    technique="Usable now",
    experiment="A concrete experiment",
    trend="Where this is heading",
    comparison="Comparison",
    dimension="Dimension",
    provenance="Sources and verification",
    writer_offline=(
        "Written in offline mode (no LLM): everything below is extracted from the "
        "papers' metadata, abstracts and available full text, without inference; "
        "sections that could not be filled honestly are left out."
    ),
    abstract_only="Written from the abstract only: the full text was not available.",
    not_fetched="Offline mode: the full text was not read; written from the abstract, no figures.",
    matched_terms="matched terms",
    result_headers=(
        "Task / benchmark",
        "Setting / metric",
        "Baseline",
        "Theirs",
        "Change",
        "Source",
    ),
    claims_traced=(
        "{traced} claims traced to a sentence or table cell of the paper; {untraced} not"
        " traced, marked ⚠."
    ),
    strict_cut_lead="Cut: ",
    line="research line",
    stars="relevance",
    source_label="full text source",
    model="model",
    tokens="tokens",
    cost="cost",
    papers_considered="papers considered today",
    why_line="serves the line “{line}”",
    why_terms="matched: {terms}",
    full="Read the full digest",
    more="{n} more in the full digest",
    day_offline_summary=(
        "Of today's {total} new papers, the profile selects {count}: {items}. Everything "
        "below is taken from the abstracts{fulltext} without LLM rewriting."
    ),
    with_fulltext=" and full texts",
    closing_offline="Read “{title}” first: it is closest to the line “{line}” ({stars}).",
    empty_reason_nothing_passed=(
        "{day} listed {total} papers, but none reached the profile's minimum relevance."
    ),
    et_al="et al.",
    key_numbers="Key numbers",
    strict_removed=(
        "Strict mode cut {n} claim(s) that could not be traced (whole sentences or rows):"
    ),
    source_names=(
        ("arxiv-html", "arXiv HTML full text"),
        ("ar5iv", "ar5iv full text"),
        ("pdf", "PDF full text"),
        ("local-html", "local HTML full text"),
        ("local-pdf", "local PDF full text"),
        ("abstract", "abstract only"),
        ("not-fetched", "full text not read (offline)"),
    ),
    section_names=(
        ("reason", "why we picked it"),
        ("tldr", "TL;DR"),
        ("problem", "problem"),
        ("insight", "core insight"),
        ("method", "method"),
        ("steps", "steps"),
        ("difference", "difference"),
        ("results", "key results"),
        ("result_notes", "reading the results"),
        ("reported_numbers", "numbers in the abstract"),
        ("limitations", "limitations"),
        ("open_questions", "open questions"),
        ("technique", "usable now"),
        ("experiment", "experiment"),
        ("trend", "trend"),
        ("figure", "figure caption"),
        ("overview", "overview"),
        ("comparison", "comparison"),
        ("summary", "summary"),
        ("theme", "theme"),
        ("closing", "closing"),
    ),
    fulltext_pdf="Read from the PDF, so no original figures.",
    fulltext_pdf_no_html="arXiv has no HTML version of this paper: read from the PDF, no figures.",
    fulltext_pdf_html_failed=(
        "The arXiv HTML could not be fetched (network or server error): read from the PDF,"
        " no figures."
    ),
    fulltext_pdf_html_unusable=(
        "The arXiv HTML conversion is unusable: read from the PDF, no figures."
    ),
    fulltext_html_degraded="The arXiv HTML has many conversion errors: the text may have gaps.",
    fulltext_fetch_failed=(
        "The full text could not be fetched (network or server error): written from the"
        " abstract only, no figures; the next run tries again."
    ),
    fulltext_none=(
        "No usable full text (no HTML, no extractable PDF text): written from the abstract only."
    ),
    fulltext_absent="arXiv has neither an HTML nor a PDF of this paper: written from the abstract.",
    no_figure_in_html="The paper's HTML has no image to show.",
    fallback_embedding=(
        "Ranking: the embedding model could not be loaded ({reason}); today's ranking uses"
        " key words (BM25), categories and avoided topics only, without the taste learned"
        " from feedback."
    ),
    fallback_ranking="Ranking: the LLM judge did not finish ({reason}); the cheap ranking stands.",
    fallback_brief=(
        "The LLM could not write this deep read ({reason}); below is the offline extract."
    ),
    fallback_briefs="Deep reads replaced by the offline extract ({reason}): {papers}",
    fallback_day=(
        "Summary and comparison: the LLM could not write them ({reason}); the offline"
        " assembly stands."
    ),
    fallback_fulltext="The full text could not be fetched ({reason}); written from the"
    " abstract: {papers}",
    day_fallback_summary="Of today's {total} new papers, the profile selects {count}: {items}.",
    reason_unreachable="the LLM endpoint is unreachable",
    reason_timeout="the LLM endpoint timed out",
    reason_budget="the day's token / cost budget is spent",
    reason_invalid="the LLM's answer was unusable",
    reason_refused="the LLM endpoint refused the request",
    reason_deadline="the run's deadline was reached",
    reason_fetch="a network or server failure",
    reason_model="its file is missing or damaged; reinstalling paperbrief mends it",
    reason_error="an unexpected error",
)

LABELS: Mapping[str, Labels] = MappingProxyType({"zh": _ZH, "en": _EN})  # profile.LANGUAGES


def labels_for(language: str) -> Labels:
    """The labels of ``language`` (``zh`` or ``en``)."""
    try:
        return LABELS[language]
    except KeyError:
        raise ValueError(
            f"no labels for language {language!r}; use one of {sorted(LABELS)}"
        ) from None


def stars_text(stars: int) -> str:
    return "⭐" * max(1, min(5, stars))
