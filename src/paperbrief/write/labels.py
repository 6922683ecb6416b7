"""The one per-language table of every heading and label the digest prints.

Writers, renderers and the verifier read labels from here; nothing else hard-codes them.
"""

from __future__ import annotations

from typing import Final

LABELS: Final[dict[str, dict[str, str]]] = {
    "zh": {
        "summary": "今日总结",
        "overview": "今日全览",
        "col_paper": "论文",
        "col_direction": "方向",
        "col_contribution": "核心贡献",
        "col_relevance": "与我们的相关度",
        "theme": "今日主题",
        "reason": "推荐理由",
        "info": "论文信息",
        "no_figure": "该论文暂无 arXiv HTML 版本，本文不含原图。",
        "tldr": "TL;DR",
        "problem": "问题是什么？",
        "method": "他们怎么做的？",
        "insight": "核心 Insight",
        "steps": "具体流程",
        "difference": "跟之前方法的本质区别",
        "results": "关键结果",
        "result_notes": "结果解读",
        "reported_numbers": "摘要中报告的数字",
        "limitations": "局限性与开放问题",
        "limitation_n": "局限 {n}",
        "open_question": "开放问题",
        "implications": "💡 对我们的启发",
        "technique": "直接可用的技术点",
        "experiment": "具体实验想法",
        "trend": "研究趋势判断",
        "comparison": "方法对比",
        "dimension": "维度",
        "provenance": "来源与核验",
        "writer_offline": (
            "本期由离线模式生成（未使用大语言模型）：内容全部来自论文元数据、摘要与可获取的全文，"
            "以抽取为主，不含推断；无法如实填写的小节已省略。"
        ),
        "abstract_only": "仅依据摘要撰写：未能获取全文。",
        "not_fetched": "离线模式：本次未读取全文，内容仅依据摘要，不含原图。",
        "extrapolation": "（以下为基于摘要的推断，非论文原文结论）",
        "matched_terms": "命中关键词",
        "result_headers": "任务 / 基准|设置 / 指标|基线|本文|变化|出处",
        "unverified_lead": "未在原文中找到的数字：",
        "line": "研究方向",
        "stars": "相关度",
        "col_benchmark": "来源",
        "col_finding": "报告的结果",
        "source_label": "全文来源",
        "numbers_verified": "数字核验",
        "model": "模型",
        "tokens": "tokens",
        "cost": "成本",
        "papers_considered": "今日候选论文",
        "why_line": "与「{line}」方向相关",
        "why_terms": "命中：{terms}",
        "read_first": "建议先读",
        "full": "阅读全文",
        "more": "另有 {n} 篇，见全文",
        "figure_from": "原文图",
        "day_offline_summary": (
            "今日 {total} 篇新论文中，按画像筛出 {count} 篇：{items}。"
            "以下内容直接取自论文摘要{fulltext}，未经大语言模型改写。"
        ),
        "with_fulltext": "与全文",
        "closing_offline": "建议先读《{title}》：它与「{line}」方向最相关（{stars}）。",
        "empty_reason_no_announcement": "{day} 没有 arXiv 公告（周末或假日）。",
        "empty_reason_fetch_failed": "{day} 的列表获取失败：{detail}",
        "empty_reason_nothing_passed": "{day} 共 {total} 篇论文，但没有一篇达到画像的最低相关度。",
    },
    "en": {
        "summary": "Summary",
        "overview": "Overview",
        "col_paper": "Paper",
        "col_direction": "Area",
        "col_contribution": "Key contribution",
        "col_relevance": "Relevance to us",
        "theme": "Theme of the day",
        "reason": "Why we picked it",
        "info": "Paper",
        "no_figure": "No arXiv HTML rendering exists for this paper, so no original figures.",
        "tldr": "TL;DR",
        "problem": "What is the problem?",
        "method": "How do they do it?",
        "insight": "Core insight",
        "steps": "Steps",
        "difference": "What is really different from prior work",
        "results": "Key results",
        "result_notes": "Reading the results",
        "reported_numbers": "Numbers reported in the abstract",
        "limitations": "Limitations and open questions",
        "limitation_n": "Limitation {n}",
        "open_question": "Open question",
        "implications": "💡 What this means for us",
        "technique": "Usable now",
        "experiment": "A concrete experiment",
        "trend": "Where this is heading",
        "comparison": "Comparison",
        "dimension": "Dimension",
        "provenance": "Sources and verification",
        "writer_offline": (
            "Written in offline mode (no LLM): everything below is extracted from the papers'"
            " metadata, abstracts and available full text, without inference; sections that"
            " could not be filled honestly are left out."
        ),
        "abstract_only": "Written from the abstract only: the full text was not available.",
        "not_fetched": (
            "Offline mode: the full text was not read; written from the abstract, no figures."
        ),
        "extrapolation": "(extrapolated from the abstract, not a finding of the paper)",
        "matched_terms": "matched terms",
        "result_headers": "Task / benchmark|Setting / metric|Baseline|Theirs|Change|Source",
        "unverified_lead": "Numbers not found in the paper: ",
        "line": "research line",
        "stars": "relevance",
        "col_benchmark": "Source",
        "col_finding": "Reported result",
        "source_label": "full text source",
        "numbers_verified": "numbers verified",
        "model": "model",
        "tokens": "tokens",
        "cost": "cost",
        "papers_considered": "papers considered today",
        "why_line": "serves the line “{line}”",
        "why_terms": "matched: {terms}",
        "read_first": "Read first",
        "full": "Read the full digest",
        "more": "{n} more in the full digest",
        "figure_from": "Figure from the paper",
        "day_offline_summary": (
            "Of today's {total} new papers, the profile selects {count}: {items}."
            " Everything below is taken from the abstracts{fulltext} without LLM rewriting."
        ),
        "with_fulltext": " and full texts",
        "closing_offline": "Read “{title}” first: it is closest to the line “{line}” ({stars}).",
        "empty_reason_no_announcement": "arXiv announced nothing on {day} (weekend or holiday).",
        "empty_reason_fetch_failed": "The listing for {day} could not be fetched: {detail}",
        "empty_reason_nothing_passed": (
            "{day} listed {total} papers, but none reached the profile's minimum relevance."
        ),
    },
}


def labels_for(language: str) -> dict[str, str]:
    """The label table for ``language`` (``zh`` or ``en``)."""
    try:
        return LABELS[language]
    except KeyError:
        raise ValueError(
            f"no labels for language {language!r}; use one of {sorted(LABELS)}"
        ) from None


def stars_text(stars: int) -> str:
    return "⭐" * max(1, min(5, stars))
