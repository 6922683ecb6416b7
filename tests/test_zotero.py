"""A live Zotero library through its web API, against a loopback server speaking the
documented API (tests/support/zotero.py): paging, collections to include and exclude,
rate limits, a refused key, and the CLI's import kept in sync."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.library.formats import read_library
from paperbrief.library.zotero import ZoteroClient, ZoteroError, parse_source
from paperbrief.profile import load_profile
from paperbrief.retry import RetryPolicy
from tests.support import FIXTURES
from tests.support.zotero import ZoteroLibrary, ZoteroServer

REPAIR, VULNERABILITIES, TO_READ = "AAAA1111", "BBBB2222", "CCCC3333"
COLLECTIONS = {
    REPAIR: ("Program repair", None),
    VULNERABILITIES: ("Vulnerabilities", REPAIR),  # a subcollection
    TO_READ: ("To read", None),
}


def zotero_items() -> list[dict]:
    """The 24 real program-repair papers as Zotero stores arXiv preprints."""
    papers = read_library(FIXTURES / "library" / "repair.bib")
    items = []
    for n, paper in enumerate(papers):
        where = [REPAIR] if n < 14 else [VULNERABILITIES] if n < 18 else [TO_READ]
        if n == 5:
            where.append(TO_READ)  # in an excluded collection too: left out
        items.append(
            {
                "key": f"ITEM{n:04d}",
                "itemType": "preprint",
                "title": paper.title,
                "abstractNote": paper.abstract,
                "creators": [
                    {"creatorType": "author", "lastName": a.split(", ")[0], "firstName": "X"}
                    for a in paper.authors
                ],
                "date": "2026-05-01",
                "url": f"http://arxiv.org/abs/{paper.arxiv_id}",
                "archiveID": f"arXiv:{paper.arxiv_id}",
                "tags": [{"tag": "Computer Science - Software Engineering", "type": 1}],
                "collections": where,
            }
        )
    items.append({"key": "NOTE0001", "itemType": "note", "note": "<p>a note</p>"})
    return items


@pytest.fixture
def library() -> ZoteroLibrary:
    return ZoteroLibrary(zotero_items(), COLLECTIONS, page_size=10)


def test_pages_collections_and_subcollections_and_excludes(library):
    source = parse_source("zotero:users/12345?collection=Program repair&exclude=To read")
    with ZoteroServer(library) as server, ZoteroClient("k3y", server.url) as client:
        papers = client.papers(source)
    assert len(papers) == 17  # 14 + 4 from the subcollection, less the one also "To read"
    assert all(p.arxiv_id and p.categories == ("cs.SE",) for p in papers)
    paths = [path for path, _ in library.requests]
    assert sum("/items/top" in p for p in paths) == 3  # 25 items in pages of 10
    headers = library.requests[0][1]
    assert headers["Zotero-API-Version"] == "3" and headers["Zotero-API-Key"] == "k3y"


def test_a_rate_limit_is_waited_out_and_backoff_honoured(library):
    library.rate_limit_once, library.backoff = True, 2
    waits: list[float] = []
    source = parse_source("zotero:users/12345")
    with ZoteroServer(library) as server:
        client = ZoteroClient("k3y", server.url, sleep=waits.append, retry=RetryPolicy(2, 0.1))
        with client:
            assert len(client.papers(source)) == 24
    assert 1.0 in waits  # the 429's Retry-After
    assert any(w > 1.0 for w in waits)  # the Backoff: 2 before a later request


def test_a_refused_key_and_unknown_names_are_one_line_with_the_fix(library):
    with ZoteroServer(library) as server:
        with ZoteroClient("wrong", server.url) as client, pytest.raises(ZoteroError) as refused:
            client.papers(parse_source("zotero:users/12345"))
        assert "ZOTERO_API_KEY" in refused.value.hint
        named = parse_source("zotero:users/12345?collection=Nope")
        with ZoteroClient("k3y", server.url) as client, pytest.raises(ZoteroError) as unknown:
            client.papers(named)
        assert "Program repair" in unknown.value.hint
    with pytest.raises(ZoteroError):
        parse_source("zotero:users/abc?colection=x")


def test_the_cli_proposes_a_profile_and_keeps_feedback_in_sync(library, tmp_path, monkeypatch):
    monkeypatch.setenv("ZOTERO_API_KEY", "k3y")
    source = "zotero:users/12345?exclude=To read"
    with ZoteroServer(library) as server:
        monkeypatch.setenv("PAPERBRIEF_ZOTERO_API", server.url)
        out = tmp_path / "profile.toml"
        made = CliRunner().invoke(
            cli, ["profile", "init", "--from", source, "--name", "Dr. Z", str(out)]
        )
        assert made.exit_code == 0, made.output
        assert load_profile(out).categories[0] == "cs.SE"
        assert "automated program repair" in load_profile(out).research_lines[0].keywords
        first = CliRunner().invoke(cli, ["feedback", "import", source])
        assert "imported 17 liked papers" in first.output, first.output
        library.items[-2]["collections"] = [REPAIR]  # the reader files one more paper
        again = CliRunner().invoke(cli, ["feedback", "import", source])
        assert "imported 1 liked papers" in again.output and "(17 already there)" in again.output
    listed = CliRunner().invoke(cli, ["feedback", "list", "--all", "--json"])
    assert len(json.loads(listed.output)) == 18


def test_offline_reads_no_zotero_library(tmp_path):
    out = tmp_path / "profile.toml"
    result = CliRunner().invoke(
        cli, ["profile", "init", "--from", "zotero:users/12345", "--offline", str(out)]
    )
    assert result.exit_code == 1 and "--offline forbids the network" in result.output
