"""The number verifier and `paperbrief verify` on rendered digests and stored papers."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_UNVERIFIED
from paperbrief.fulltext.document import Document
from paperbrief.models import Digest, Listing
from paperbrief.prompts import describe_profile
from paperbrief.render.markdown import render_markdown
from paperbrief.store import open_store
from paperbrief.write.llm_writer import PaperRead, brief_from_read
from paperbrief.write.verify import (
    claims_in,
    covered_papers,
    drop_unsupported,
    verify_brief,
    verify_markdown,
)
from tests.support.llm_day import load_documents, load_profile, load_replies, picks


def numbers(text: str) -> list[str]:
    return [written for written, _ in claims_in(text)]


def supported(claim: str, paper_text: str) -> bool:
    document = Document("1", "t", (), paper_text)
    from paperbrief.write.verify import _supported, document_numbers

    return _supported(claims_in(claim)[0][1], document_numbers(document))


def make_digest() -> Digest:
    replies = load_replies()
    briefs = tuple(
        brief_from_read(PaperRead.model_validate(replies[s.paper.id]), s, d, "zh")
        for s, d in picks()
    )
    day = replies["day"]
    return Digest(
        digest_date=date(2026, 5, 24),
        listing_day=date(2026, 5, 22),
        language="zh",
        title="arXiv 每日速递 2026-05-24",
        description="",
        briefs=briefs,
        summary=day["summary"],
        theme_title=day["theme_title"],
        theme=day["theme"],
        closing=day["closing"],
    )


def all_documents() -> dict[str, Document]:
    documents = load_documents()
    scored, _ = picks()[2]
    paper = scored.paper
    documents[paper.id] = Document(paper.id, paper.title, paper.authors, paper.abstract)
    return documents


KNOWN = [describe_profile(load_profile())]


# ------------------------------------------------------------- normalising
@pytest.mark.parametrize(
    ("claim", "paper"),
    [
        ("提升到 29.5%", "accuracy of 0.295"),
        ("gain of 29.5pp", "rises by 29.5 points"),
        ("0.295 accuracy", "reaches 29.5% accuracy"),
        ("2.01× fewer tokens", "uses 2.01x fewer tokens"),
        ("1,204 bugs", "a set of 1204 bugs"),
        ("1204 个 bug", "on 1,204 bugs"),
        ("约 29.5%", "29.53% of cases"),
        ("下降 -3.2", "a drop of 3.2"),
        ("7B 模型", "Qwen2.5-Coder-7B"),
    ],
)
def test_equivalent_forms_are_supported(claim, paper):
    assert supported(claim, paper)


@pytest.mark.parametrize(
    ("claim", "paper"),
    [
        ("提升到 29.53%", "29.5% of cases"),  # the digest may not invent precision
        ("47.3%", "41.3% and 35.0%"),
        ("+6.3", "41.3% and 35.0%"),  # a computed delta the paper never states
    ],
)
def test_different_values_are_not_supported(claim, paper):
    assert not supported(claim, paper)


def test_references_years_identifiers_and_small_counts_are_not_claims():
    text = (
        "见 Table 2 与 Figure 3、表 4，Section 4.1；GPT-4 与 Qwen2.5 在 2025 年；"
        "3 篇论文；F1 提升；arXiv:2605.10001；日期 2026-05-24。"
    )
    assert numbers(text) == []
    assert numbers("pass@1 达到 41.3%，k=16，共 1,204 个，2.01× 更省，+6.3 pp") == [
        "41.3%",
        "16",
        "1,204",
        "2.01×",
        "+6.3 pp",
    ]


# -------------------------------------------------------------- digests
def test_rendered_llm_digest_verifies_clean():
    markdown = render_markdown(make_digest(), load_profile())
    report = verify_markdown(markdown, all_documents(), known=KNOWN)
    assert covered_papers(markdown) == ["2605.10001", "2605.10002", "2605.10003"]
    assert report.ok, report.unverified
    assert report.numbers >= 15


def test_flags_a_planted_wrong_number_with_paper_and_section():
    markdown = render_markdown(make_digest(), load_profile())
    planted = markdown.replace("pass@1 从 35.0% 提升到 41.3%", "pass@1 从 35.0% 提升到 47.3%")
    assert planted != markdown
    report = verify_markdown(planted, all_documents(), known=KNOWN)
    assert report.numbers == verify_markdown(markdown, all_documents(), KNOWN).numbers
    assert [(c.paper, c.section, c.text) for c in report.unverified] == [
        ("2605.10001", "tldr", "47.3%")
    ]


def test_numbers_of_another_paper_do_not_support_a_pick():
    markdown = render_markdown(make_digest(), load_profile())
    # 62.4% belongs to the ArkTS paper; in the trace study's results it is unsupported.
    planted = markdown.replace("| 48.2% | 50.1% |", "| 48.2% | 62.4% |")
    assert planted != markdown
    (claim,) = verify_markdown(planted, all_documents(), known=KNOWN).unverified
    assert (claim.paper, claim.section, claim.text) == ("2605.10002", "results", "62.4%")


def test_the_readers_own_numbers_need_the_profile():
    markdown = render_markdown(make_digest(), load_profile())
    report = verify_markdown(markdown, all_documents())
    assert [c.text for c in report.unverified] == ["1.25pp"]


def test_strict_drops_unsupported_claims_only():
    scored, document = picks()[0]
    read = PaperRead.model_validate(load_replies()[scored.paper.id])
    read.tldr = "StaticFirst 定位调用点。pass@1 达到 47.3%。"
    read.result_notes.append("成本下降 93%。")
    brief = brief_from_read(read, scored, document, "zh")
    assert len(verify_brief(brief, document).unverified) == 2
    strict = drop_unsupported(brief, document)
    assert strict.tldr == "StaticFirst 定位调用点。"
    assert strict.result_notes == brief.result_notes[:-1]
    assert strict.results == brief.results
    assert verify_brief(strict, document).ok
    assert any("strict" in note for note in strict.notes)


# ------------------------------------------------------------------- CLI
@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERBRIEF_PROFILE", str(tmp_path / "none.toml"))
    with open_store(tmp_path / "home" / "paperbrief.db") as store:
        for document in load_documents().values():
            store.documents.save(document, 1)
        scored, _ = picks()[2]  # abstract-only: known to the store as a listed paper
        store.listings.save(Listing(date(2026, 5, 22), (scored.paper,), "test"))
    return tmp_path


def test_cli_exits_0_when_every_number_is_verified(home):
    markdown = render_markdown(make_digest(), load_profile()).replace("1.25pp", "很小")
    (home / "digest.md").write_text(markdown, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["numbers"] == report["verified"] >= 15 and report["unverified"] == []


def test_cli_exits_3_and_names_each_unsupported_number(home):
    markdown = render_markdown(make_digest(), load_profile())
    planted = markdown.replace("提升到 41.3%", "提升到 47.3%").replace("1.25pp", "很小")
    (home / "digest.md").write_text(planted, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--json"])
    assert result.exit_code == EXIT_UNVERIFIED
    report = json.loads(result.stdout)
    assert report["unverified"] == [
        {
            "paper": "2605.10001",
            "section": "tldr",
            "text": "47.3%",
            "context": report["unverified"][0]["context"],
        }
    ]
    assert report["verified"] == report["numbers"] - 1
    human = CliRunner().invoke(cli, ["verify", str(home / "digest.md")])
    assert human.exit_code == EXIT_UNVERIFIED
    assert "47.3%" in human.output and "2605.10001" in human.output


def test_cli_refuses_a_file_that_covers_no_paper(home):
    (home / "notes.md").write_text("# just notes\n\n41.3%\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "notes.md")])
    assert result.exit_code == 1 and "covers no papers" in result.output


def test_cli_accepts_the_readers_own_numbers_from_the_profile(home):
    from tests.support.llm_day import LLM_FIXTURES

    markdown = render_markdown(make_digest(), load_profile())
    assert "1.25pp" in markdown
    (home / "digest.md").write_text(markdown, encoding="utf-8")
    without = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--json"])
    assert without.exit_code == EXIT_UNVERIFIED
    profile = str(LLM_FIXTURES / "profile.toml")
    result = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--profile", profile])
    assert result.exit_code == 0, result.output
