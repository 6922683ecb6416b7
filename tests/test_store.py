"""The store: migrations on connect, idempotent listing saves, refusal of newer schemas."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from paperbrief.errors import StoreError
from paperbrief.models import Listing, Paper
from paperbrief.store import MIGRATIONS, open_store


def _listing() -> Listing:
    papers = (
        Paper("2605.1", "A", ("X",), "abs", ("cs.SE",), "cs.SE", listings={"cs.SE": "new"}),
        Paper(
            "2605.2",
            "B",
            ("Y",),
            "abs",
            ("cs.LG", "cs.SE"),
            "cs.LG",
            listings={"cs.SE": "cross", "cs.LG": "new"},
        ),
    )
    return Listing(day=date(2026, 5, 22), papers=papers, source="test")


def test_migrations_apply_once_and_reopen(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS)
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS)


def test_newer_schema_is_refused_with_a_hint(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    open_store(path).close()
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version={len(MIGRATIONS) + 5}")
    connection.close()
    with pytest.raises(StoreError) as caught:
        open_store(path)
    assert "newer" in caught.value.message and "PAPERBRIEF_HOME" in caught.value.hint


def test_listing_round_trip_is_idempotent(tmp_path: Path):
    with open_store(tmp_path / "db.sqlite") as store:
        store.save_listing(_listing())
        store.save_listing(_listing())
        loaded = store.load_listing(date(2026, 5, 22))
        assert loaded is not None
        assert [p.id for p in loaded.papers] == ["2605.1", "2605.2"]
        assert loaded.papers[1].listings == {"cs.SE": "cross", "cs.LG": "new"}
        assert store.load_listing(date(2026, 5, 21)) is None


def test_embeddings_are_cached_by_model_and_text_hash(tmp_path: Path):
    with open_store(tmp_path / "db.sqlite") as store:
        vector = np.arange(4, dtype=np.float32)
        store.put_embeddings("m", {"h1": vector})
        found = store.get_embeddings("m", ["h1", "h2"])
        assert list(found) == ["h1"] and np.array_equal(found["h1"], vector)
        assert store.get_embeddings("other-model", ["h1"]) == {}
