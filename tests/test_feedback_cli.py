"""`paperbrief feedback`: signals and imported picks land in the store."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.store import open_store
from tests.support.rank import RANK_FIXTURES


def run(tmp_path: Path, monkeypatch, *args: str):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    return CliRunner().invoke(cli, ["feedback", *args])


def events(tmp_path: Path):
    with open_store(tmp_path / "paperbrief.db") as store:
        return store.feedback.events()


def test_records_signal_with_note(tmp_path, monkeypatch):
    result = run(
        tmp_path, monkeypatch, "https://arxiv.org/abs/2604.21917v2", "--down", "--note", "meh"
    )
    assert result.exit_code == 0, result.output
    (event,) = events(tmp_path)
    assert (event.paper_id, event.signal, event.note, event.source) == (
        "2604.21917",
        "down",
        "meh",
        "cli",
    )


def test_each_signal_flag_is_stored(tmp_path, monkeypatch):
    for flag in ("--up", "--down", "--save", "--hide", "--read"):
        assert run(tmp_path, monkeypatch, "2604.21917", flag).exit_code == 0
    assert [e.signal for e in events(tmp_path)] == ["up", "down", "save", "hide", "read"]


def test_missing_signal_or_bad_id_fails_with_a_hint(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "2604.21917")
    assert result.exit_code == 1 and "--up" in result.output
    result = run(tmp_path, monkeypatch, "not-an-id", "--up")
    assert result.exit_code == 1 and "not an arXiv id" in result.output


def test_import_takes_picks_as_accepted_and_the_rest_of_shown_as_passed_over_once(
    tmp_path, monkeypatch
):
    result = run(tmp_path, monkeypatch, "import", str(RANK_FIXTURES / "picks.json"))
    assert result.exit_code == 0, result.output
    first = events(tmp_path)
    picked = [e for e in first if e.signal == "picked"]
    passed = [e for e in first if e.signal == "shown"]
    assert len(picked) == 14 and {e.created_at[:10] for e in picked} == {
        "2026-04-21",
        "2026-04-22",
        "2026-04-24",
    }
    # shown lists: 6 + 9 + 14 (both 04-24 posts saw the same 14), minus the 14 picks.
    assert len(passed) == 6 + 9 + 14 - 14 and len(first) == len(picked) + len(passed)
    assert not {e.paper_id for e in passed} & {e.paper_id for e in picked}
    assert "imported 14 picks and 15 shown-but-not-picked" in result.output
    assert "29 of these 29 papers are not in the store yet" in result.output
    again = run(tmp_path, monkeypatch, "import", str(RANK_FIXTURES / "picks.json"))
    assert again.exit_code == 0 and "(29 already there)" in again.output
    assert len(events(tmp_path)) == 29


def test_import_of_a_malformed_file_names_the_format(tmp_path, monkeypatch):
    bad = tmp_path / "picks.json"
    bad.write_text('{"posts": [{"digest_date": "2026-04-22"}]}', encoding="utf-8")
    result = run(tmp_path, monkeypatch, "import", str(bad))
    assert result.exit_code == 1 and "shown" in result.output
    assert not events(tmp_path)


def test_rate_to_start_asks_and_records_in_the_terminal(tmp_path, monkeypatch):
    """`feedback start` picks papers from the stored days, asks about each and records the
    answers as the reader's own signals (y = 👍, n = 👎, s = skip, q = stop)."""
    import json

    from paperbrief.models import Listing
    from paperbrief.rank.evaluate import load_listing_file
    from tests.support.rank import seeded_store

    monkeypatch.setenv("PAPERBRIEF_HOME", str(tmp_path))
    store = seeded_store(tmp_path / "paperbrief.db")
    from datetime import date

    for path in sorted((RANK_FIXTURES / "listings").glob("*.jsonl.gz")):
        day = date.fromisoformat(path.name[:10])
        store.listings.save(Listing(day, tuple(load_listing_file(path)), source="test"))
    store.close()
    profile = ["--profile", str(RANK_FIXTURES / "profile.toml")]
    listed = CliRunner().invoke(cli, ["feedback", "start", *profile, "--list", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    assert len(rows) == 20 and {"id", "title", "line", "stars", "relevance"} <= set(rows[0])
    asked = CliRunner().invoke(
        cli, ["feedback", "start", *profile, "--count", "5"], input="y\nn\ns\ny\nq\n"
    )
    assert asked.exit_code == 0, asked.output
    assert "recorded 3 ratings (2 👍, 1 👎)" in asked.output
    signals = [(e.signal, e.source) for e in events(tmp_path)]
    assert signals == [("up", "cli"), ("down", "cli"), ("up", "cli")]
