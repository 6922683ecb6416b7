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


def test_import_takes_picks_as_accepted_once(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "import", str(RANK_FIXTURES / "picks.json"))
    assert result.exit_code == 0, result.output
    first = events(tmp_path)
    assert len(first) == 14 and {e.signal for e in first} == {"picked"}
    assert {e.created_at[:10] for e in first} == {"2026-04-21", "2026-04-22", "2026-04-24"}
    assert run(tmp_path, monkeypatch, "import", str(RANK_FIXTURES / "picks.json")).exit_code == 0
    assert len(events(tmp_path)) == 14
