"""File modes: published files readable as the umask says, the store and secrets private."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from paperbrief.files import current_umask, private_folder, write_atomic
from paperbrief.store import open_store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask() -> Iterator[None]:
    """Run the test under umask 027 (not the usual 022, so a hard-coded 0644 would fail)."""
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def test_the_umask_is_read_without_changing_it(umask):
    assert current_umask() == 0o027
    assert current_umask() == 0o027


def test_a_new_published_file_gets_the_umask_default(tmp_path, umask):
    target = tmp_path / "feed.xml"
    write_atomic(target, "<feed/>")
    assert mode(target) == 0o640


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    target = tmp_path / "post.md"
    target.write_text("old")
    target.chmod(0o664)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert mode(target) == 0o664


def test_a_private_file_is_0600_whatever_it_replaces(tmp_path):
    target = tmp_path / "token"
    target.write_text("old")
    target.chmod(0o644)
    write_atomic(target, "secret", private=True)
    assert mode(target) == 0o600


def test_a_private_folder_is_0700_when_made_and_kept_when_it_exists(tmp_path):
    made = private_folder(tmp_path / "a" / "home")
    assert mode(made) == 0o700
    shared = tmp_path / "volume"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    private_folder(shared)
    assert mode(shared) == 0o755


def test_the_store_is_0600_in_a_0700_home_with_its_journal_and_locks(tmp_path):
    home = tmp_path / "home"
    store = open_store(home / "paperbrief.db")
    with store.run_lock(date(2026, 5, 22), "me"):
        pass
    store.close()
    assert mode(home) == 0o700
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "paperbrief.db" for p in files)
    assert any(p.suffix == ".lock" for p in files)
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert mode(home / "locks") == 0o700


def test_a_store_an_older_version_left_0644_is_narrowed(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    open_store(home / "paperbrief.db").close()
    for part in home.glob("paperbrief.db*"):
        part.chmod(0o644)
    open_store(home / "paperbrief.db").close()
    assert {mode(p) for p in home.glob("paperbrief.db*")} == {0o600}
