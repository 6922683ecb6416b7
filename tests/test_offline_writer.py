"""The offline writer only selects what the authors wrote, and the renderers escape it."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from paperbrief.models import DayFacts, Digest, Paper, ScoredPaper
from paperbrief.profile import load_profile
from paperbrief.render import render_html, render_markdown
from paperbrief.store import codec
from paperbrief.text import clean_tex, split_sentences
from paperbrief.text.citations import claim_sentences
from paperbrief.write.extract import classify_abstract
from paperbrief.write.offline import write_brief_offline, write_day_offline
from tests.support import EXAMPLE_PROFILE

ABSTRACT = (
    "Large language model agents are increasingly used to fix bugs, but little is known about"
    " which parts of their workflow matter. However, re-running agents is costly. We present"
    " TraceLens, a post-hoc analysis of 12,500 public agent trajectories from SWE-bench (e.g."
    " OpenHands and Aider logs). Results show that test execution adds only 1.25 percentage"
    " points, while structure injection improves resolution by 4.3% at 2.01x the cost."
)


def _paper(title: str = "TraceLens: what agent actions are worth", abstract: str = ABSTRACT):
    return Paper(
        id="2605.00001",
        title=title,
        authors=(
            "Ada Lovelace",
            "Alan Turing",
            "Grace Hopper",
            "Barbara Liskov",
            "Ken Thompson",
            "Extra Author",
        ),
        abstract=abstract,
        categories=("cs.SE", "cs.AI"),
        primary_category="cs.SE",
        listings={"cs.SE": "new"},
    )


def _scored(paper: Paper, stars: int = 3) -> ScoredPaper:
    return ScoredPaper(
        paper=paper,
        score=0.8,
        stars=stars,
        line="Agent 边际价值实证",
        matched_terms=("agent trajectories", "SWE-bench"),
        reason="与「Agent 边际价值实证」方向相关；命中：agent trajectories, SWE-bench",
        rank=1,
    )


def _digest(scored: ScoredPaper, profile, considered: int = 1):
    """A one-pick offline digest of 2026-05-23 (listing 2026-05-22)."""
    brief = write_brief_offline(scored, None, profile)
    return write_day_offline(
        [brief],
        profile,
        DayFacts(date(2026, 5, 23), date(2026, 5, 22), considered),
    )


def test_classify_abstract_sorts_sentences_by_role_and_uses_each_once():
    parts = classify_abstract(ABSTRACT)
    assert parts.tldr[0].startswith("We present TraceLens")
    assert "1.25 percentage points" in parts.tldr[1]  # the headline result
    assert any("costly" in s for s in parts.problem)
    shown = [*parts.tldr, *parts.problem, *parts.method, *parts.results, *parts.numbers]
    assert len(shown) == len(set(shown))


# Two abstracts of the real demo day (examples/listings/2026-05-22): an opening sentence
# with a weak result word, TeX math, and a converter's Õ between two O(…) terms.
ASTRAGALUS = (
    "Network configurations are prone to errors, which can lead to catastrophic service "
    "outages. A tool that can achieve automatic configuration repair (ACR) is highly desired "
    "by operators. Following this direction, we propose Astragalus, a syntax-driven method "
    "for ACR. Specifically, we show that Astragalus can repair every incident in multiple "
    "sizes of a synthesized network, and 97.5\\% of the incidents on a real network, both "
    "with 15 types of errors injected, within an average time of 7.36 seconds. It has also "
    "provided valid repair options in under 6 minutes for 4 recent network incidents or "
    "undesired changes, in a real production network with O(1,000)Õ(10,000) devices."
)
P2T = (
    "Most real issue includes a developer-authored reference patch, $p^\\star$, revealing the "
    "file paths presupposed by the correct fix. We propose Patches-to-Trajectories (P2T), which"
    " uses $p^\\star$ as privileged information during curation. On SWE-bench Verified, it "
    "raises Pass@1 by up to 10.8 points while reducing per-instance inference cost by ~15%."
)


def test_offline_brief_prints_each_sentence_once_results_only_under_results():
    profile = load_profile(EXAMPLE_PROFILE)
    brief = write_brief_offline(_scored(_paper(abstract=ASTRAGALUS)), None, profile)
    sections = [brief.tldr, brief.problem, brief.method, *brief.result_notes,
                *brief.reported_numbers]  # fmt: skip
    sentences = [s for text in sections for s in split_sentences(text)]
    assert len(sentences) == len(set(sentences))
    assert "highly desired by operators" in brief.problem
    assert not any("highly desired" in note for note in brief.result_notes)
    assert "97.5%" in brief.tldr  # the measured headline, not "It has also …"
    assert "O(1,000)~O(10,000)" in " ".join(sections)


def test_offline_digest_renders_tex_as_text():
    profile = load_profile(EXAMPLE_PROFILE)
    brief = write_brief_offline(_scored(_paper(abstract=P2T)), None, profile)
    markdown = render_markdown(
        write_day_offline([brief], profile, DayFacts(date(2026, 5, 23), date(2026, 5, 22), 3)),
        profile,
    )  # fmt: skip
    assert "p\\*" in markdown and "\\star" not in markdown and "$" not in markdown.split("---")[2]


def test_brief_uses_only_sentences_from_the_abstract_and_cites_each():
    profile = load_profile(EXAMPLE_PROFILE)
    brief = write_brief_offline(_scored(_paper()), None, profile)
    sentences = set(split_sentences(clean_tex(ABSTRACT)))
    for field in (brief.problem, brief.method, brief.tldr):
        for sentence in claim_sentences(field):
            assert sentence.plain in sentences
            assert len(sentence.refs) == 1 and sentence.refs[0].unit.startswith("E")
    assert brief.implications is None  # cannot be written honestly without an LLM
    assert brief.notes == ("离线模式：本次未读取全文，内容仅依据摘要，不含原图。",)


def test_markdown_has_the_digest_format_sections_in_order():
    profile = load_profile(EXAMPLE_PROFILE)
    briefs = [write_brief_offline(_scored(_paper()), None, profile)]
    digest = write_day_offline(
        briefs,
        profile,
        DayFacts(date(2026, 5, 23), date(2026, 5, 22), 480),
    )
    markdown = render_markdown(digest, profile)
    assert markdown.startswith('---\ntitle: "arXiv 每日速递 2026-05-23"\ndate: 2026-05-23\n')
    assert 'coverColor: "from-emerald-500 to-teal-600"' in markdown
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert headings[:3] == ["# arXiv 每日速递 2026-05-23", "## 今日总结", "## 今日全览"]
    assert "### TraceLens: what agent actions are worth" in headings
    assert "#### TL;DR" in headings  # (the one result is the TL;DR's: no results section)
    assert "#### 💡 对我们的启发" not in headings  # left out, never invented
    link = "[TraceLens: what agent actions are worth](https://arxiv.org/abs/2605.00001)"
    assert f"| {link} |" in markdown
    info = next(line for line in markdown.splitlines() if line.startswith("📌"))
    assert "Ken Thompson 等" in info and "Extra Author" not in info
    assert "[arXiv:2605.00001](https://arxiv.org/abs/2605.00001)" in info
    assert "离线模式" in markdown  # says it was written without an LLM


def test_untrusted_text_is_escaped_in_markdown_and_html():
    profile = load_profile(EXAMPLE_PROFILE)
    evil_title = "Agents <script>alert(1)</script> [click](javascript:alert(2)) | pipe"
    evil_abstract = ABSTRACT + ' We present <img src=x onerror="alert(3)"> as a demo.'
    digest = _digest(_scored(_paper(evil_title, evil_abstract)), profile, considered=1)
    markdown = render_markdown(digest, profile)
    assert "<script>" not in markdown and "<img" not in markdown
    body = markdown.split("\n---\n", 1)[1]  # front matter values are inert YAML strings
    assert not re.search(r"(?<!\\)\]\(javascript:", body)  # brackets escaped: no link
    assert "\\[click\\](javascript:" in body
    html = render_html(digest, profile)
    assert "<script>" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # table rows keep their column count: the pipe in the title is escaped
    row = next(line for line in markdown.splitlines() if line.startswith("| [Agents"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 5


def test_digest_round_trips_through_json():
    profile = load_profile(EXAMPLE_PROFILE)
    digest = _digest(_scored(_paper()), profile, considered=3)
    again = codec.decode(Digest, codec.encode(digest))
    assert render_markdown(again, profile) == render_markdown(digest, profile)


def test_english_digest_uses_english_labels():
    profile = load_profile(EXAMPLE_PROFILE).model_copy(update={"language": "en"})
    scored = replace(_scored(_paper()), reason="Fits “Agent marginal value”: matches SWE-bench")
    digest = _digest(scored, profile, considered=3)
    markdown = render_markdown(digest, profile)
    assert "## Summary" in markdown and "## Overview" in markdown
    assert "今日" not in markdown.split("---", 2)[2].split("# ", 1)[1].split("\n", 1)[1]
    # English punctuation throughout: no full-width colons, semicolons or brackets.
    for text in (markdown, render_html(digest, profile)):
        assert not {"：", "；", "（", "）"} & set(text), [c for c in "：；（）" if c in text]
    assert "**Why we picked it**: " in markdown


def test_tldr_sentences_stand_alone_without_dangling_connectives():
    from paperbrief.write.extract import standalone

    assert standalone("To address this gap, we present X.") == "We present X."
    assert standalone("Furthermore, applying X to Y works.") == "Applying X to Y works."
    assert standalone("We present X.") == "We present X."


def test_a_malformed_paper_id_cannot_inject_html_into_the_post():
    from dataclasses import replace

    profile = load_profile(EXAMPLE_PROFILE)
    evil = replace(_paper(), id="2605.1)<img src=x onerror=alert(1)>")
    digest = _digest(_scored(evil), profile, considered=1)
    assert "<img" not in render_markdown(digest, profile)
    assert "<img src=x" not in render_html(digest, profile)
