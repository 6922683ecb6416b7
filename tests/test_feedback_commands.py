"""`feedback list / undo`, liked papers from a library export, exclusive signal flags."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

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
    assert set(rows[0]) == {"id", "paper_id", "signal", "note", "source", "created_at", "title"} | {
        "local_time",
        "profile",
        "repeats",
    }
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
    # The same papers liked again from other exports fold into one 👍 each (issue 20, 8).
    every = events(isolated_home)
    ids = [e.paper_id for e in every]
    assert len(ids) == len(set(ids)) and {e.signal for e in every} == {"up"}


def test_import_of_an_unknown_file_fails_with_a_hint(isolated_home, tmp_path):
    bad = tmp_path / "list.txt"
    bad.write_text("the paper about cats\n", encoding="utf-8")
    result = invoke("feedback", "import", str(bad))
    assert result.exit_code == 1 and "not an arXiv id" in result.output and "hint:" in result.output


# ---- issue 20 (8): feedback you can see and trust


def _profile(tmp_path, name: str, zone: str = "Asia/Shanghai"):
    text = (FIXTURES / "deliver" / "profile.toml").read_text(encoding="utf-8")
    path = tmp_path / f"{name}.toml"
    path.write_text(
        text.replace('name = "测试用户"', f'name = "{name}"\ntimezone = "{zone}"'), "utf-8"
    )
    return path


def test_list_shows_imported_likes_with_titles_in_the_readers_time_zone(isolated_home, tmp_path):
    """`feedback list` said "no feedback yet" right after importing 21 likes, and showed
    times in UTC for an Asia/Shanghai reader."""
    reader = _profile(tmp_path, "reader")
    imported = invoke("feedback", "import", str(LIBRARY / "zotero.bib"), "--profile", str(reader))
    assert imported.exit_code == 0 and "imported 15 liked papers" in imported.output
    result = invoke("feedback", "list", "--json", "--profile", str(reader))
    rows = json.loads(result.stdout)
    assert len(rows) == 15 and all(row["title"] for row in rows)  # titles from the export
    assert {row["source"] for row in rows} == {"import:zotero.bib"}
    first = rows[0]
    stored = datetime.fromisoformat(first["created_at"])
    local = stored.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M")
    assert first["local_time"] == local
    table = invoke("feedback", "list", "--profile", str(reader))
    assert "15 signals" in table.output and local[:10] in table.output
    assert "no feedback yet" not in table.output


def test_a_repeated_signal_is_kept_once(isolated_home):
    assert invoke("feedback", "2604.21917", "--up").exit_code == 0
    again = invoke("feedback", "2604.21917", "--up")
    assert again.exit_code == 0 and "already 👍: kept once" in again.output
    assert [e.signal for e in events(isolated_home)] == ["up"]
    assert invoke("feedback", "2604.21917", "--down").exit_code == 0  # a change is kept
    assert [e.signal for e in events(isolated_home)] == ["up", "down"]


def test_repeats_stored_before_folding_are_listed_once_with_their_count():
    from paperbrief.cli.feedback import fold_repeats
    from paperbrief.models import Signal
    from paperbrief.records import FeedbackEvent

    def event(number: int, signal: Signal) -> FeedbackEvent:
        return FeedbackEvent("2604.21917", signal, None, "web", f"2026-05-2{number}T08:00", number)

    newest_first = [event(4, Signal.UP), event(3, Signal.UP), event(2, Signal.DOWN)]
    assert [(e.id, n) for e, n in fold_repeats(newest_first)] == [(4, 2), (2, 1)]


def test_feedback_belongs_to_the_profile_it_was_given_for(isolated_home, tmp_path):
    alice, bob = _profile(tmp_path, "alice"), _profile(tmp_path, "bob")
    assert invoke("feedback", "2604.21917", "--hide", "--profile", str(alice)).exit_code == 0
    shared = invoke("feedback", "2604.18525", "--up")  # no profile file: every profile's
    assert shared.exit_code == 0
    with open_store(isolated_home / "paperbrief.db") as store:
        assert {e.paper_id for e in store.feedback.of("alice").events()} == {
            "2604.21917",
            "2604.18525",
        }
        assert {e.paper_id for e in store.feedback.of("bob").events()} == {"2604.18525"}
    listed = json.loads(invoke("feedback", "list", "--json", "--profile", str(bob)).stdout)
    assert [row["paper_id"] for row in listed] == ["2604.18525"]
    # Without a profile file the whole home is listed (the Actions recipe lists it so);
    # `--all`, from before every signal was listed, still runs.
    everything = json.loads(invoke("feedback", "list", "--all", "--json").stdout)
    assert {row["paper_id"] for row in everything} == {"2604.21917", "2604.18525"}
