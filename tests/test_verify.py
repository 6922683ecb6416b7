"""The claim verifier and `paperbrief verify` on rendered digests and stored papers."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_UNVERIFIED
from paperbrief.models import Digest, Document, Listing
from paperbrief.prompts import describe_profile
from paperbrief.render.markdown import render_markdown
from paperbrief.store import open_store
from paperbrief.write.llm_writer import PaperRead, brief_from_read
from paperbrief.write.trace import check_claim
from paperbrief.write.verify import covered_papers, digest_sources, verify_digest, verify_markdown
from tests.support import EXAMPLE_PROFILE
from tests.support.llm_day import load_documents, load_profile, load_replies, picks


def supported(claim: str, paper_text: str) -> bool:
    """Whether one sentence of a paper supports ``claim`` when the claim cites it."""
    sources = digest_sources([("1", "t")], {"1": Document("1", "t", (), paper_text)})
    check = check_claim(f"{claim} [E1]", parse_one(claim), sources, paper="1", section="tldr")
    assert check is not None
    return not [f for f in check.findings if f.check in ("quantity", "direction")]


def parse_one(claim: str):
    from paperbrief.text.citations import parse_refs

    return parse_refs(f"{claim} [E1]")


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
        ("提升 6.3 个百分点", "from 35.0% to 41.3%"),  # a difference of two stated values
        ("成功率 74%", "a success rate of 0.74"),  # a fraction is the same quantity
        ("共 3100 万 用户", "31 million monthly users"),
        ("0.5 小时", "in 30 minutes"),
        ("误差 ± 0.01", "0.14 ± 0.01"),  # a spread claimed as a spread
        ("$4.6 million", "raised $4.6 million"),
        ("三个数据集", "on three datasets"),
        ("约两倍", "a 1.96x speedup"),
        ("近一半的任务", "48% of the tasks"),
        ("二十倍", "a twentyfold reduction"),
    ],
)
def test_the_same_quantity_in_another_form_is_supported(claim, paper):
    assert supported(claim, paper)


@pytest.mark.parametrize(
    ("claim", "paper"),
    [
        ("提升到 29.53%", "29.5% of cases"),  # the digest may not invent precision
        ("47.3%", "41.3% and 35.0%"),
        ("效应 2.45%", "an effect of 0.0111 (0.0245)"),  # ×100 of a standard error
        ("提升 35%", "as earlier work showed [35]."),  # a citation marker
        ("24% 的时间", "The service is available 24/7."),
        ("共 31 million 用户", "We recruited 31 participants."),  # a scale the paper lacks
        ("耗时 7.36 分钟", "within an average time of 7.36 seconds."),  # the wrong unit
        ("比例 0.14%", "a rate of 0.14 on the test set."),  # ÷100 of a fraction
        ("提升 3.3%", "as Section 3.3 shows."),  # a section number
        ("2023 个样本", "as in (Smith et al., 2023)."),  # a year
        ("87 道题", "we ask “You get 87 with probability 0.32, choose A or B”."),  # an example
        ("提升 6.3%", "from 35.0% to 41.3%"),  # points written as percent
        ("两倍", "a 1.6x speedup"),
        ("五成用户", "30% of users"),
        ("2 万条", "2 million records"),
        ("三千人", "300 people"),
        ("+4.5%", "sales drop by 4.5%"),
    ],
)
def test_different_values_are_not_supported(claim, paper):
    assert not supported(claim, paper)


# -------------------------------------------------------------- digests
def test_rendered_llm_digest_traces_every_claim():
    markdown = render_markdown(make_digest(), load_profile())
    report = verify_markdown(markdown, all_documents(), known=KNOWN)
    assert covered_papers(markdown) == ["2605.10001", "2605.10002", "2605.10003"]
    assert report.ok, report.untraced
    assert report.claims >= 10


def test_flags_a_planted_wrong_number_with_paper_section_and_line():
    markdown = render_markdown(make_digest(), load_profile())
    planted = markdown.replace("pass@1 从 35.0% 提升到 41.3%", "pass@1 从 35.0% 提升到 47.3%")
    assert planted != markdown
    report = verify_markdown(planted, all_documents(), known=KNOWN)
    (check,) = report.untraced
    assert (check.paper, check.section) == ("2605.10001", "tldr")
    assert "47.3%" in check.findings[0].detail
    line = next(n for n, text in enumerate(planted.splitlines(), 1) if "47.3%" in text)
    assert check.line == line


def test_numbers_of_another_paper_do_not_support_a_pick():
    markdown = render_markdown(make_digest(), load_profile())
    # 62.4% belongs to the ArkTS paper; in the trace study's results it is unsupported.
    planted = markdown.replace("| 48.2% | 50.1% |", "| 48.2% | 62.4% |")
    assert planted != markdown
    (check,) = verify_markdown(planted, all_documents(), known=KNOWN).untraced
    assert (check.paper, check.section) == ("2605.10002", "results")


def test_the_readers_own_numbers_need_the_profile():
    markdown = render_markdown(make_digest(), load_profile())
    (check,) = verify_markdown(markdown, all_documents()).untraced
    assert "1.25pp" in check.text
    assert verify_markdown(markdown, all_documents(), KNOWN).ok


def test_day_level_claims_are_checked_against_the_paper_they_cite():
    digest = make_digest()
    documents = all_documents()
    wrong_pick = dataclasses.replace(digest, summary="StaticFirst 的编译通过率为 62.4% [1:E1]。")
    right_pick = dataclasses.replace(digest, summary="ArkTS 上的 LoRA 编译通过率为 62.4% [3:E1]。")
    uncited = dataclasses.replace(digest, summary="今天有一篇的编译通过率为 62.4%。")
    assert not verify_digest(wrong_pick, documents, KNOWN).ok
    assert verify_digest(right_pick, documents, KNOWN).ok
    (check,) = verify_digest(uncited, documents, KNOWN).untraced
    assert check.findings[0].detail == "no citation"  # nothing is pooled across papers
    facts = dataclasses.replace(digest, summary="今日 480 篇中选出 3 篇。", papers_considered=480)
    assert verify_digest(facts, documents, KNOWN).ok  # the day's own facts


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


def test_cli_exits_0_when_every_claim_is_traced(home):
    markdown = render_markdown(make_digest(), load_profile()).replace("1.25pp", "很小")
    (home / "digest.md").write_text(markdown, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["claims"] == report["traced"] >= 10 and report["untraced"] == []


def test_cli_exits_3_and_says_what_each_untraced_claim_cites_and_why(home):
    markdown = render_markdown(make_digest(), load_profile())
    planted = markdown.replace("提升到 41.3%", "提升到 47.3%").replace("1.25pp", "很小")
    (home / "digest.md").write_text(planted, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "digest.md"), "--json"])
    assert result.exit_code == EXIT_UNVERIFIED
    (claim,) = json.loads(result.stdout)["untraced"]
    assert (claim["paper"], claim["section"]) == ("2605.10001", "tldr")
    assert claim["cites"] == ["2605.10001:E3"]
    assert claim["findings"] == [{"check": "quantity", "detail": "47.3% is not in E3"}]
    human = CliRunner().invoke(cli, ["verify", str(home / "digest.md")])
    assert human.exit_code == EXIT_UNVERIFIED
    assert "47.3% is not in E3" in human.output and "2605.10001" in human.output


def test_cli_refuses_a_file_that_covers_no_paper(home):
    (home / "notes.md").write_text("# just notes\n\n41.3%\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(home / "notes.md")])
    assert result.exit_code == 1 and "covers no papers" in result.output


def test_cli_checks_against_local_files_and_names_the_line(home, tmp_path):
    from tests.support import model_answers
    from tests.support.openai_server import OpenAIServer

    docs = model_answers.documents()
    route = model_answers.route(*model_answers.cited_answers())
    with open_store(tmp_path / "llm.db") as store, OpenAIServer(route) as server:
        digest, _ = model_answers.write_llm_day(server, store, docs=docs)
    markdown = render_markdown(digest, model_answers.profile())
    planted = markdown.replace("安全版分别为 0.84 和 0.88", "安全版分别为 0.84 和 0.77")
    assert planted != markdown
    path = home / "llm.md"
    path.write_text(planted, encoding="utf-8")
    papers = [f"--paper={pid}={file}" for pid, file in model_answers.PAPERS.items()]
    args = ["verify", str(path), *papers, "--profile", str(EXAMPLE_PROFILE)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == EXIT_UNVERIFIED
    line = planted.splitlines().index(next(x for x in planted.splitlines() if "0.77" in x)) + 1
    assert f"day · summary (line {line}):" in result.output and "0.77" in result.output
    path.write_text(markdown, encoding="utf-8")
    assert CliRunner().invoke(cli, args).exit_code == 0
    bad = CliRunner().invoke(cli, ["verify", str(path), "--paper", "2501.11120"])
    assert bad.exit_code == 1 and "ID=FILE" in bad.output


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
