"""Full-text search (FTS5) over papers and digests: stems, phrases, Chinese, the migration."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from datetime import date

import httpx
import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.models import Digest, Listing, Paper
from paperbrief.store import codec, open_store
from paperbrief.store.schema import MIGRATIONS
from paperbrief.store.search import match_query
from tests.support.web import DELIVER_FIXTURES, RunningServer, seed_store

DIGEST = DELIVER_FIXTURES / "digest-2026-05-22.json"


def paper(paper_id: str, title: str, abstract: str = "") -> Paper:
    return Paper(paper_id, title, ("A. Author",), abstract, ("cs.SE",), "cs.SE")


def listing(*papers: Paper) -> Listing:
    return Listing(date(2026, 5, 21), papers, "test")


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "paperbrief.db") as opened:
        opened.listings.save(
            listing(
                paper("2605.00001", "Automated Program Repair with LLMs", "We repair bugs."),
                paper("2605.00002", "Repairing flaky tests", "Flaky tests get repaired."),
                paper("2605.00003", "A program for repair shops", "Scheduling."),
                paper("2605.00004", "Benchmarks for code agents", "SWE-bench results."),
            )
        )
        digest = codec.decode(Digest, DIGEST.read_text(encoding="utf-8"))
        opened.digests.save(digest, "offline", "# 今天\n静态分析 + LLM 修复，修复率 71%", "<p/>")
        other = replace(digest, digest_date=date(2026, 5, 25), title="另一天")
        opened.digests.save(other, "offline", "修改了三个文件，恢复了旧版本。", "<p/>")
        yield opened


def ids(papers: list[Paper]) -> list[str]:
    return [p.id for p in papers]


def test_words_are_stemmed_and_anded_phrases_are_consecutive(store):
    assert set(ids(store.listings.search("repair"))) == {"2605.00001", "2605.00002", "2605.00003"}
    assert set(ids(store.listings.search("program repair"))) == {"2605.00001", "2605.00003"}
    assert ids(store.listings.search('"program repair"')) == ["2605.00001"]
    assert ids(store.listings.search("bench*")) == ["2605.00004"]
    assert ids(store.listings.search("2605.00004"))[0] == "2605.00004"  # an exact id


def test_chinese_matches_inside_words_and_only_in_a_row(store):
    hits = store.digests.search("修复")
    assert [h.digest_date for h in hits] == [date(2026, 5, 22)]  # not 修改…恢复 of the 25th
    assert "修复" in hits[0].snippet
    assert [h.digest_date for h in store.digests.search("恢复")] == [date(2026, 5, 25)]
    assert store.digests.search("LLM 修复率")  # mixed scripts, both required


def test_query_syntax_is_never_fts5_syntax(store):
    for query in ['"', "AND (", "NEAR(a b)", "*", "-repair", "title:repair", "'; DROP"]:
        store.listings.search(query)  # no OperationalError
        store.digests.search(query)
    assert match_query("   ") is None and store.listings.search("  ") == []


def test_saving_again_keeps_one_index_row_per_paper_and_digest(store):
    store.listings.save(listing(paper("2605.00001", "Automated Program Repair with LLMs")))
    assert ids(store.listings.search("repair")).count("2605.00001") == 1
    digest = codec.decode(Digest, DIGEST.read_text(encoding="utf-8"))
    store.digests.save(digest, "offline", "改写后：没有那个词", "<p/>")
    assert store.digests.search("修复") == []  # the new text replaced the old in the index


def test_the_migration_indexes_what_an_older_store_holds(tmp_path):
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    for number, migration in enumerate(MIGRATIONS[:3], start=1):
        migration(connection)
        connection.execute(f"PRAGMA user_version={number}")
    connection.execute(
        "INSERT INTO papers (id, title, authors, abstract, categories, primary_category,"
        " first_seen, updated) VALUES ('2605.00009', 'Fault localization at scale', '[]',"
        " '程序修复的前一步', '[]', 'cs.SE', 'now', 'now')"
    )
    connection.execute(  # a digest of a home from before profiles were kept (0.1.0)
        "INSERT INTO digests (digest_date, language, listing_day, writer, title, markdown,"
        " html, body, created_at) VALUES ('2026-05-22', 'zh', '2026-05-21', 'offline',"
        " '旧日报', '今日主题：程序修复', '<p/>', ?, 'now')",
        (DIGEST.read_text(encoding="utf-8"),),
    )
    connection.commit()
    connection.close()
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
        assert ids(store.listings.search("localization")) == ["2605.00009"]
        assert ids(store.listings.search("修复")) == ["2605.00009"]
        assert [hit.title for hit in store.digests.search("修复")] == ["旧日报"]
        assert store.digests.search("修复", profile="reader") == []
        store.adopt_unnamed("reader")  # the first profile that runs takes the old rows
        assert [hit.title for hit in store.digests.search("修复", profile="reader")] == ["旧日报"]
        assert store.digests.search("修复", profile="") == []


def test_search_command_prints_json(store, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(store.path.parent))
    result = CliRunner().invoke(cli, ["search", "修复", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["query"] == "修复" and data["papers"] == []
    assert data["digests"][0]["digest_date"] == "2026-05-22"
    words = json.loads(CliRunner().invoke(cli, ["search", "program", "repair", "--json"]).output)
    assert {p["id"] for p in words["papers"]} == {"2605.00001", "2605.00003"}
    assert set(words["papers"][0]) == {"id", "title", "announced", "primary_category", "url"}
    empty = CliRunner().invoke(cli, ["search", "nothingmatches"])
    assert empty.exit_code == 0 and "nothing found" in empty.output


def test_web_search_page_finds_chinese_and_escapes(tmp_path):
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server, httpx.Client() as client:
        page = client.get(server.url + "/search", params={"q": "修复"}).text
        assert "/digest/2026-05-22" in page
        hits = client.get(server.url + "/search", params={"q": "ArkTS <script>"}).text
        assert "/paper/2605.10002" in hits and "<script>alert" not in hits
        assert client.get(server.url + "/search", params={"q": '"('}).status_code == 200


def test_web_search_shows_highlighted_plain_text_not_markdown(tmp_path):
    """issue 20 (9): search snippets showed raw Markdown and front matter, unhighlighted."""
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server, httpx.Client() as client:
        page = client.get(server.url + "/search", params={"q": "arXiv"}).text
    snippets = re.findall(r'<p class="snippet">(.*?)</p>', page, re.S)
    assert snippets, page
    for snippet in snippets:
        assert "<mark>" in snippet
        plain = re.sub(r"</?mark>", "", snippet)
        assert "---" not in plain and "title:" not in plain and "series:" not in plain
        assert not re.search(r"\*\*|^#|\|", plain), plain


def test_a_paper_found_by_its_abstract_shows_the_passage_that_matched(tmp_path):
    """Re-tried as a new reader (issue 20, 9): a paper matched in its abstract showed only
    a title without the word, so nothing said why it was found."""
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server, httpx.Client() as client:
        page = client.get(server.url + "/search", params={"q": "ArkTS"}).text
    (item,) = re.findall(r'<li id="p-2605.10002">(.*?)</li>', page, re.S)
    (snippet,) = re.findall(r'<p class="snippet">(.*?)</p>', item, re.S)
    assert "<mark>ArkTS</mark>" in snippet and "<script>" not in snippet


def test_the_readable_text_of_a_digest_drops_front_matter_and_markup():
    from paperbrief.store.search import readable_text

    markdown = (
        '---\ntitle: "x"\ndate: 2026-05-22\n---\n\n# 今日主题\n\n| 论文 | 星 |\n|---|:-:|\n'
        "| **程序修复** | ⭐⭐ |\n\n> 引用 [链接](https://x.example)\n- `代码` 与 \\*星号\\*\n"
    )
    text = readable_text(markdown)
    assert text.startswith("今日主题") and "程序修复" in text and "链接" in text
    assert not re.search(r"---|\*\*|\||`|https://|title:", text), text
