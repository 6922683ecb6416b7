"""`feedback list / undo`, liked papers from a library export, exclusive signal flags."""

from __future__ import annotations

import json

from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.store import open_store
from tests.support import FIXTURES
from tests.support.rank import RANK_FIXTURES

LIBRARY = FIXTURES / "library"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def events(home):
    with open_store(home / "paperbrief.db") as store:
        return store.feedback.events()


def test_two_signal_flags_are_a_usage_error(isolated_home):
    result = invoke("feedback", "2604.21917", "--up", "--down")
    assert result.exit_code == 2 and "--up and --down exclude each other" in result.output
    assert not (isolated_home / "paperbrief.db").exists() or events(isolated_home) == []


def test_list_shows_signals_newest_first_as_json(isolated_home):
    assert invoke("feedback", "2604.21917", "--up").exit_code == 0
    assert invoke("feedback", "2604.18525", "--hide", "--note", "not for me").exit_code == 0
    result = invoke("feedback", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [(r["paper_id"], r["signal"], r["note"]) for r in rows] == [
        ("2604.18525", "hide", "not for me"),
        ("2604.21917", "up", None),
    ]
    assert set(rows[0]) == {"id", "paper_id", "signal", "note", "source", "created_at", "title"}
    table = invoke("feedback", "list")
    assert "2604.18525" in table.output and "not for me" in table.output


def test_undo_removes_the_last_signal_or_the_one_named(isolated_home):
    invoke("feedback", "2604.21917", "--up")
    invoke("feedback", "2604.18525", "--down")
    invoke("feedback", "2604.16314", "--save")
    result = invoke("feedback", "undo")
    assert result.exit_code == 0 and "2604.16314" in result.output
    first = next(e for e in events(isolated_home) if e.paper_id == "2604.21917")
    assert invoke("feedback", "undo", str(first.id)).exit_code == 0
    assert [e.paper_id for e in events(isolated_home)] == ["2604.18525"]
    missing = invoke("feedback", "undo", "999")
    assert missing.exit_code == 1 and "no signal has id 999" in missing.output


def test_undo_leaves_imported_history_alone(isolated_home):
    assert invoke("feedback", "import", str(RANK_FIXTURES / "picks.json")).exit_code == 0
    before = len(events(isolated_home))
    result = invoke("feedback", "undo")
    assert result.exit_code == 1 and "no signal to undo" in result.output
    assert len(events(isolated_home)) == before


def test_import_takes_a_zotero_export_as_liked_papers_once(isolated_home):
    result = invoke("feedback", "import", str(LIBRARY / "zotero.bib"))
    assert result.exit_code == 0, result.output
    assert "imported 15 liked papers" in result.output
    liked = events(isolated_home)
    assert len(liked) == 15 and {e.signal for e in liked} == {"up"}
    assert {e.source for e in liked} == {"import:zotero.bib"}
    again = invoke("feedback", "import", str(LIBRARY / "zotero.bib"))
    assert "imported 0 liked papers" in again.output and len(events(isolated_home)) == 15
    for name in ("zotero-csl.json", "zotero.ris", "liked-ids.txt"):
        assert invoke("feedback", "import", str(LIBRARY / name)).exit_code == 0
    sources = {e.source for e in events(isolated_home)}
    assert {"import:zotero-csl.json", "import:zotero.ris", "import:liked-ids.txt"} <= sources


def test_import_of_an_unknown_file_fails_with_a_hint(isolated_home, tmp_path):
    bad = tmp_path / "list.txt"
    bad.write_text("the paper about cats\n", encoding="utf-8")
    result = invoke("feedback", "import", str(bad))
    assert result.exit_code == 1 and "not an arXiv id" in result.output and "hint:" in result.output
