"""A strong model's real answers through the real pipeline: the LLM writer on a loopback
endpoint, the renderers (checked through a CommonMark renderer), e-mail, `paperbrief
verify`, strict mode and the day synthesis's input."""

from __future__ import annotations

import copy
import dataclasses
import re
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from paperbrief.cli import cli
from paperbrief.deliver.mail import build_email
from paperbrief.models import Listing
from paperbrief.render import render_html, render_markdown
from paperbrief.store import open_store
from paperbrief.write.verify import verify_digest, verify_markdown
from tests.support import EXAMPLE_PROFILE, model_answers
from tests.support.openai_server import OpenAIServer

COMMONMARK = MarkdownIt("commonmark").enable("table")


def _day(tmp_path: Path, briefs=None, *, strict: bool = False):
    route = model_answers.route(briefs)
    with open_store(tmp_path / "llm.db") as store, OpenAIServer(route) as server:
        digest, docs = model_answers.write_llm_day(server, store, strict=strict)
        requests = list(server.requests)
    return digest, docs, requests


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    digest, docs, requests = _day(tmp_path_factory.mktemp("day"))
    profile = model_answers.profile()
    return digest, docs, requests, render_markdown(digest, profile), render_html(digest, profile)


def _body(markdown: str) -> str:
    return markdown.split("\n---\n", 1)[1]


def test_markdown_renders_bold_paragraphs_and_bullets_through_commonmark(day):
    _, _, _, markdown, _ = day
    html = COMMONMARK.render(_body(markdown))
    assert "<strong>HomeCheck</strong>" in html and "<strong>基准与评测方法学</strong>" in html
    assert "**" not in re.sub(r"<[^>]+>", "", html) and "\\*" not in markdown
    # the problem's two paragraphs stay two paragraphs
    assert re.search(r"<p>此前的工作主要研究模型从训练数据中推断事实", html)
    # the theme's "• " lines become a list
    assert re.search(r"<ul>\s*<li>行为自我觉察：", html)
    # numbered steps and the 💡 items are ordered lists, a multi-block item stays in its item
    assert re.search(r"<ol>\s*<li>构造只演示行为的数据", html)
    assert re.search(
        r"<li><strong>具体实验想法</strong>：数据与工具：<strong>HomeCheck</strong>", html
    )
    table = re.search(r"<table>.*?</table>", html.split("关键结果", 1)[1], re.S).group(0)
    assert "<td>FT 漏洞代码 0.14 ± 0.01；FT 安全代码 0.88 ± 0.01</td>" in table


def test_markdown_html_and_mail_keep_code_dollars_and_escaping(tmp_path):
    """The shared answers use no `code` and no $ amounts; real models do, so one answer
    gets a sentence with both (and an injection attempt) the way a model writes them."""
    briefs = {paper: model_answers.answer(paper) for paper in model_answers.PAPERS}
    briefs = copy.deepcopy(briefs)
    briefs["2501.11120"]["technique"] += (
        " 用 `git bisect` 定位回归，按 $4.6–$5 的单次调用成本估算。<script>alert(1)</script>"
    )
    digest, _, _ = _day(tmp_path, briefs)
    profile = model_answers.profile()
    markdown = render_markdown(digest, profile)
    assert "\\$4.6–\\$5" in markdown and re.search(r"(?<!\\)\$", _body(markdown)) is None
    rendered = COMMONMARK.render(_body(markdown))
    assert "<code>git bisect</code>" in rendered and "$4.6–$5" in rendered
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered
    html = render_html(digest, profile)
    assert "<code>git bisect</code>" in html and "$4.6–$5" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    message = build_email("s", "a@example.org", ["b@example.org"], markdown, html)
    parsed = message_from_bytes(message.as_bytes(), policy=policy.default)
    mail_html = parsed.get_body(("html",)).get_content()
    assert re.search(r"<code style=\"[^\"]*monospace[^\"]*\">git bisect</code>", mail_html)
    assert re.search(r"<strong[^>]*>HomeCheck</strong>", mail_html)
    assert re.search(r"<ul style=\"[^\"]*\"><li style=", mail_html)
    assert "<script>alert" not in mail_html


def test_html_shows_paragraphs_lists_and_bold(day):
    _, _, _, _, html = day
    assert "<strong>HomeCheck</strong>" in html
    assert "<p>此前的工作主要研究模型从训练数据中推断事实" in html
    assert re.search(r"<ul><li>行为自我觉察：", html)
    assert "\\*\\*" not in html and "**" not in html


def test_a_chinese_digest_has_no_raw_values_or_english_fragments(day):
    _, _, _, markdown, html = day
    for raw in ("local-html", "local-pdf", "arxiv-html", "not-fetched", "tldr ·"):
        assert raw not in markdown and raw not in html, raw
    assert "本地 HTML 全文" in markdown and "James Chua 等 |" in markdown


def test_the_description_ends_on_a_word_boundary(tmp_path):
    docs = model_answers.documents()
    first = docs["2501.11120"]
    docs["2501.11120"] = dataclasses.replace(first, title=first.title + " in Finetuning Data")
    with open_store(tmp_path / "llm.db") as store, OpenAIServer(model_answers.route()) as server:
        digest, _ = model_answers.write_llm_day(server, store, docs=docs)
    joined = "；".join(b.paper.title for b in digest.briefs)
    assert len(joined) > 150 and digest.description.endswith(" …")
    kept = digest.description[: -len(" …")]
    assert joined.startswith(kept) and joined[len(kept)] == " "


def test_the_llm_digest_verifies_and_paperbrief_verify_exits_0(day, tmp_path, monkeypatch):
    digest, docs, _, markdown, _ = day
    assert verify_digest(digest, docs, model_answers.known()).ok
    report = verify_markdown(markdown, docs, model_answers.known())
    assert report.ok and report.claims == digest.provenance.numbers_checked >= 40
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path / "home"))
    with open_store(tmp_path / "home" / "paperbrief.db") as store:
        for document in docs.values():
            store.documents.save(document, 1)
        papers = tuple(b.paper for b in digest.briefs)
        store.listings.save(Listing(model_answers.LISTING_DAY, papers, "test"))
    path = tmp_path / "digest.md"
    path.write_text(markdown, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(path), "--profile", str(EXAMPLE_PROFILE)])
    assert result.exit_code == 0, result.output
    assert f"{report.claims}/{report.claims} claims traced" in result.output


def test_strict_cuts_the_wrong_claims_whole_and_lists_them_in_chinese(tmp_path):
    briefs = copy.deepcopy({paper: model_answers.answer(paper) for paper in model_answers.PAPERS})
    read = briefs["2501.11120"]
    read["tldr"] = read["tldr"].replace(
        "（安全版分别为 0.88 和 0.84）", "（安全版分别为 0.88 和 0.48）"
    )
    read["results"][1]["theirs"] = "FT 漏洞代码 0.47 ± 0.08；FT 安全代码 0.84 ± 0.04"
    digest, docs, _ = _day(tmp_path, briefs, strict=True)
    brief = digest.briefs[0]
    assert "0.48" not in brief.tldr and "安全版分别为" not in brief.tldr
    assert brief.tldr.startswith("作者在只演示") and "4 out of 5" in brief.tldr  # neighbours stay
    assert len(brief.results.rows) == 5 and all(
        "0.47" not in c for r in brief.results.rows for c in r
    )
    assert verify_digest(digest, docs, model_answers.known()).ok
    notes = digest.provenance.notes
    assert notes[1].startswith("严格模式删去了 2 条") and not any("strict" in n for n in notes)
    assert [n.section for n in digest.provenance.trace.cut] == ["tldr", "results"]
    markdown = render_markdown(digest, model_answers.profile())
    assert notes[1] in markdown and "删去：2501.11120 · TL;DR：" in markdown


def test_the_day_synthesis_sees_each_briefs_problem_experiment_and_result_notes(day):
    _, _, requests, _, _ = day
    prompt = next(r for r in requests if "<picks>" in r["messages"][1]["content"])
    text = prompt["messages"][1]["content"]
    assert "**HomeCheck** 作为行为测量器" in text  # the experiment
    assert "Table 2 对我们最有用" in text  # a result note
    assert "LLM 在微调中会学到训练数据里隐含的行为" in text  # the problem


def test_the_web_paper_page_shows_the_brief_as_written(day, tmp_path):
    import httpx

    from tests.support.web import RunningServer

    digest, _, _, markdown, html = day
    profile_path = tmp_path / "profile.toml"
    profile_path.write_text(EXAMPLE_PROFILE.read_text(encoding="utf-8"), encoding="utf-8")
    store_path = tmp_path / "web.db"
    with open_store(store_path) as store:
        papers = tuple(b.paper for b in digest.briefs)
        store.listings.save(Listing(model_answers.LISTING_DAY, papers, "test"))
        store.picks.save(digest.digest_date, digest.listing_day, [b.scored for b in digest.briefs])
        store.digests.save(digest, "strong-model", markdown, html)
    with RunningServer(store_path, profile_path) as server:
        page = httpx.get(server.url + "/paper/2501.11120").text
    assert "<strong>HomeCheck</strong>" in page and "**" not in page
    assert "<p>此前的工作主要研究模型从训练数据中推断事实" in page
    # every citation is a click-through to the paragraph or table
    assert '<a class="src" href="https://arxiv.org/html/2501.11120v1#S3.T2"' in page
    assert "[E" not in page and "[T2." not in page


def test_chat_messages_carry_no_markdown_marks_of_the_model(day):
    from paperbrief.deliver.message import PLAIN, announcement_from_digest, compose_message

    digest = day[0]
    text = compose_message(announcement_from_digest(digest), PLAIN, 4000)
    assert "Tell me about yourself 发现" in text and "**" not in text
