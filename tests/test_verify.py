"""The number verifier and `paperbrief verify` on rendered digests and stored papers."""

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
from paperbrief.write.strict import cut_text, strict_brief
from paperbrief.write.verify import (
    Checker,
    Pool,
    claims_in,
    covered_papers,
    known_pool,
    paper_pool,
    verify_brief,
    verify_digest,
    verify_markdown,
)
from tests.support import EXAMPLE_PROFILE
from tests.support.llm_day import load_documents, load_profile, load_replies, picks


def numbers(text: str) -> list[str]:
    return [mention.text for mention in claims_in(text)]


def supported(claim: str, paper_text: str) -> bool:
    (mention,) = claims_in(claim)
    return paper_pool(Document("1", "t", (), paper_text)).supports(mention)


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
        ("效应 2.45%", "an effect of 0.0111 (0.0245)"),  # ×100 of a standard error
        ("提升 35%", "as earlier work showed [35]."),  # a citation marker
        ("24% 的时间", "The service is available 24/7."),
        ("共 31 million 用户", "We recruited 31 participants."),  # a scale the paper lacks
        ("耗时 7.36 分钟", "within an average time of 7.36 seconds."),  # the wrong unit
        ("比例 0.14%", "a rate of 0.14 on the test set."),  # ÷100 of a fraction
        ("提升 3.3%", "as Section 3.3 shows."),  # a section number
        ("2023 个样本", "as in (Smith et al., 2023)."),  # a year
        ("87 道题", "we ask “You get 87 with probability 0.32, choose A or B”."),  # an example
    ],
)
def test_different_values_are_not_supported(claim, paper):
    assert not supported(claim, paper)


@pytest.mark.parametrize(
    ("claim", "paper"),
    [
        ("成功率 74%", "a success rate of 0.74"),  # a fraction is the same quantity
        ("共 3100 万 用户", "31 million monthly users"),
        ("0.5 小时", "in 30 minutes"),
        ("误差 ± 0.01", "0.14 ± 0.01"),  # a spread claimed as a spread
        ("$4.6 million", "raised $4.6 million"),
        ("准确率 85.3%", "| Acc. | 85.3 |"),  # a bare number over 1 of unknown unit
    ],
)
def test_the_same_quantity_in_another_form_is_supported(claim, paper):
    assert supported(claim, paper)


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
    assert known_pool(KNOWN).supports(claims_in("1.25pp")[0])


def test_day_level_numbers_are_checked_against_the_papers_they_name():
    digest = make_digest()
    # 62.4% is the ArkTS paper's; said of StaticFirst it is wrong, said of no paper it is fine
    named = dataclasses.replace(digest, summary="StaticFirst 的编译通过率为 62.4%。")
    unnamed = dataclasses.replace(digest, summary="今天有一篇的编译通过率为 62.4%。")
    documents = all_documents()
    assert [c.text for c in verify_digest(named, documents, KNOWN).unverified] == ["62.4%"]
    assert verify_digest(unnamed, documents, KNOWN).ok
    # the day's own facts: papers considered and picked
    facts = dataclasses.replace(digest, summary="今日 480 篇中选出 3 篇。", papers_considered=480)
    assert verify_digest(facts, documents, KNOWN).ok


def test_every_section_is_checked():
    digest = make_digest()
    first = digest.briefs[0]
    planted = dataclasses.replace(
        first,
        reason=first.reason + "（提升 88.8%）",
        problem=first.problem + " 失败率 66.6%。",
        steps=(*first.steps, "在 777 个项目上运行。"),
        limitations=(*first.limitations, "只覆盖 12.3% 的依赖。"),
    )
    report = verify_digest(dataclasses.replace(digest, briefs=(planted, *digest.briefs[1:])),
                           all_documents(), KNOWN)  # fmt: skip
    flagged = {(c.section, c.text) for c in report.unverified}
    assert flagged == {
        ("reason", "88.8%"), ("problem", "66.6%"), ("steps", "777"), ("limitations", "12.3%")
    }  # fmt: skip


def test_strict_cuts_only_the_clause_or_cell_of_an_unsupported_number():
    scored, document = picks()[0]
    read = PaperRead.model_validate(load_replies()[scored.paper.id])
    read.tldr = "StaticFirst 定位调用点，pass@1 达到 41.3%，推理延迟降低 93%（比基线快 2.01x）。"
    read.result_notes.append("成本下降 93%。")
    read.results[0].theirs = "47.3%"
    brief = brief_from_read(read, scored, document, "zh")
    assert len(verify_brief(brief, document).unverified) == 3
    checker = Checker({scored.paper.id: paper_pool(document)}, Pool(), Pool())
    strict, removed = strict_brief(brief, checker)
    assert strict.tldr == "StaticFirst 定位调用点，pass@1 达到 41.3%。"  # the headline stays
    assert strict.result_notes == brief.result_notes[:-1]  # an item left empty goes
    assert strict.results.rows[0][3] == "—" and strict.results.rows[0][2] == "SWE-agent 35.0%"
    assert removed == 3
    assert verify_brief(strict, document).ok


def test_strict_cut_prefers_the_parenthesis_that_holds_the_number():
    text = "自报分 0.14，与实际比例 0.14 一致（安全版为 0.84 和 0.48），差异很小。"
    bad = [m for m in claims_in(text) if m.text == "0.48"]
    cut, removed = cut_text(text, bad)
    assert (cut, removed) == ("自报分 0.14，与实际比例 0.14 一致，差异很小。", 1)


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
            "line": report["unverified"][0]["line"],
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


def test_cli_checks_against_local_files_and_names_the_line(home, tmp_path):
    from tests.support import model_answers

    docs = model_answers.documents()
    with open_store(tmp_path / "llm.db") as store:
        from tests.support.openai_server import OpenAIServer

        with OpenAIServer(model_answers.route()) as server:
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
