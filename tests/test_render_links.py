"""Every traced claim links to its place in the paper; untraced ones carry ⚠; no mark leaks.

The digest is the real LLM path with a strong model's answers (the shared deep reads with the
citations the prompt asks for, and a day synthesis in the same style).
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from markdown_it import MarkdownIt

from paperbrief.prompts import describe_profile
from paperbrief.render.html import render_html
from paperbrief.render.markdown import render_markdown
from paperbrief.store import open_store
from paperbrief.write.verify import verify_markdown
from tests.support import model_answers
from tests.support.openai_server import OpenAIServer


def cited_answers() -> tuple[dict[str, dict], dict]:
    return model_answers.cited_answers()


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    briefs, day = cited_answers()
    folder = tmp_path_factory.mktemp("linked")
    with (
        open_store(folder / "s.db") as store,
        OpenAIServer(model_answers.route(briefs, day)) as server,
    ):
        digest, documents = model_answers.write_llm_day(server, store)
    return digest, documents


def test_every_claim_of_the_honest_digest_is_traced_and_linked(written):
    digest, documents = written
    trace = digest.provenance.trace
    assert trace.claims >= 40 and trace.traced == trace.claims
    markdown = render_markdown(digest, model_answers.profile())
    links = re.findall(r"\[↗\]\((https://arxiv\.org/[^ )]+) \"([^\"]+)\"\)", markdown)
    assert len(links) >= 30
    assert any(url.startswith("https://arxiv.org/html/2501.11120v1#S3.T2") for url, _ in links)
    assert any(url.startswith("https://arxiv.org/pdf/2304.02623v1#page=") for url, _ in links)
    assert not re.search(r"\[(?:\d:)?(?:E\d+|T\d)", markdown.replace("\\[", "["))  # no raw marker
    footer = "42 条论断可追溯到原文的句子或表格单元格；0 条未能追溯，已标 ⚠。"
    assert footer.replace("42", str(trace.traced)) in markdown


def test_the_markdown_keeps_the_seed_format_and_its_links_parse(written):
    digest, _ = written
    markdown = render_markdown(digest, model_answers.profile())
    for heading in ("## 今日总结", "## 今日全览", "## 今日主题", "#### TL;DR", "#### 关键结果",
                    "#### 局限性与开放问题", "#### 💡 对我们的启发", "## 方法对比"):  # fmt: skip
        assert heading in markdown
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert html.count('title="E') + html.count('title="T') >= 30
    assert "[↗]" not in html  # every link parsed as a link, tables included


def test_verify_reads_the_citations_back_from_the_file(written):
    digest, documents = written
    markdown = render_markdown(digest, model_answers.profile())
    known = [describe_profile(model_answers.profile())]
    report = verify_markdown(markdown, documents, known)
    assert report.claims == digest.provenance.trace.claims and report.ok


def _with_points_for_percent(tmp_path, strict: bool = False):
    """The day with one claim turned wrong: the paper's "approximately 30%" as points."""
    briefs, day = cited_answers()
    wrong = briefs["2501.11120"]["tldr"].replace("约 30% 的成功率", "约 30 个百分点的成功率")
    briefs["2501.11120"] = {**briefs["2501.11120"], "tldr": wrong}
    with (
        open_store(tmp_path / "s.db") as store,
        OpenAIServer(model_answers.route(briefs, day)) as server,
    ):
        digest, _ = model_answers.write_llm_day(server, store, strict=strict)
    return digest


def test_an_untraced_claim_is_flagged_in_the_markdown_and_the_html(tmp_path):
    digest = _with_points_for_percent(tmp_path)
    (note,) = digest.provenance.trace.untraced
    assert note.section == "tldr" and "30 个百分点" in note.reason
    profile = model_answers.profile()
    markdown = render_markdown(digest, profile)
    assert "约 30 个百分点的成功率[↗](https://arxiv.org/html/2501.11120v1#S4.SS3.p4" in markdown
    assert markdown.count(" ⚠") == 1 + 1  # the claim, and the footer that explains the mark
    html = render_html(digest, profile)
    assert html.count('<span class="untraced">⚠</span>') == 1


def test_strict_mode_lists_what_it_cut(tmp_path):
    digest = _with_points_for_percent(tmp_path, strict=True)
    trace = digest.provenance.trace
    assert not trace.untraced and len(trace.cut) == 1
    assert "30 个百分点" not in dataclasses.asdict(digest)["briefs"][0]["tldr"]
    markdown = render_markdown(digest, model_answers.profile())
    assert "严格模式删去了 1 条" in markdown and "删去：2501.11120 · TL;DR" in markdown
