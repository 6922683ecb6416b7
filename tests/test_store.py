"""The store: migrations on connect, idempotent listing saves, refusal of newer schemas."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from paperbrief.errors import StoreError
from paperbrief.models import Listing, Paper
from paperbrief.records import PaperJudgement, Verdict
from paperbrief.store import open_store
from paperbrief.store.schema import MIGRATIONS


def _columns(path: Path, *tables: str) -> dict[str, set[str]]:
    """Each table's column names in the database at ``path``."""
    connection = sqlite3.connect(path)
    try:
        return {
            table: {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
            for table in tables
        }
    finally:
        connection.close()


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
        store.listings.save(_listing())
        store.listings.save(_listing())
        loaded = store.listings.load(date(2026, 5, 22))
        assert loaded is not None
        assert [p.id for p in loaded.papers] == ["2605.1", "2605.2"]
        assert loaded.papers[1].listings == {"cs.SE": "cross", "cs.LG": "new"}
        assert store.listings.load(date(2026, 5, 21)) is None


def test_embeddings_are_cached_by_model_and_text_hash(tmp_path: Path):
    with open_store(tmp_path / "db.sqlite") as store:
        vector = np.arange(4, dtype=np.float32)
        store.embeddings.put("m", {"h1": vector})
        found = store.embeddings.get("m", ["h1", "h2"])
        assert list(found) == ["h1"] and np.array_equal(found["h1"], vector)
        assert store.embeddings.get("other-model", ["h1"]) == {}


def test_a_database_of_an_older_version_is_upgraded_in_place(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    connection = sqlite3.connect(path)
    MIGRATIONS[0](connection)  # what the first release created
    connection.execute("PRAGMA user_version=1")
    connection.commit()
    connection.close()
    with open_store(path) as store:
        store.listings.save(_listing())
        assert store.schema_version() == len(MIGRATIONS)
        assert [p.id for p in store.listings.load(date(2026, 5, 22)).papers] == ["2605.1", "2605.2"]


@pytest.mark.parametrize("branch", [False, True])
def test_a_store_at_version_7_migrates_forward_whichever_m007_it_has(tmp_path: Path, branch):
    """Main's m007 (runs know their process, feedback per profile), or issue 19's branch
    before its merge, which numbered the judge's migration 7: both end with every table."""
    from paperbrief.store.schema import (
        m007_runs_know_their_process,
        m008_judge_relevance_and_screens,
    )

    path = tmp_path / "db.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:6]:
        migration(connection)
    (m008_judge_relevance_and_screens if branch else m007_runs_know_their_process)(connection)
    connection.execute("PRAGMA user_version=7")
    connection.close()
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS) == 12
    columns = _columns(path, "runs", "feedback", "judge_verdicts", "judge_screens")
    assert {"pid", "host"} <= columns["runs"] and {"profile", "title"} <= columns["feedback"]
    assert "relevance" in columns["judge_verdicts"] and "relevance" in columns["judge_screens"]


def test_reads_return_values_with_their_listings(tmp_path: Path):
    with open_store(tmp_path / "db.sqlite") as store:
        store.listings.save(_listing())
        paper = store.listings.paper("2605.2")
        assert paper is not None and paper.listings == {"cs.SE": "cross", "cs.LG": "new"}
        assert paper.authors == ("Y",) and paper.categories == ("cs.LG", "cs.SE")
        assert set(store.listings.papers(["2605.1", "nope"])) == {"2605.1"}
        assert store.listings.days() == [date(2026, 5, 22)]


def test_a_damaged_database_file_is_an_error_with_a_hint(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as caught:
        open_store(path)
    assert "not a database" in caught.value.message and "backup" in caught.value.hint


def test_a_data_home_that_is_a_file_is_an_error_with_a_hint(tmp_path: Path):
    home = tmp_path / "home"
    home.write_text("oops")
    with pytest.raises(StoreError) as caught:
        open_store(home / "paperbrief.db")
    assert "is a file" in caught.value.message and "PAPERBRIEF_HOME" in caught.value.hint


def test_a_paper_saved_again_has_one_search_row_also_after_the_upgrade(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    connection = sqlite3.connect(path)
    for migration in MIGRATIONS[:6]:  # a home with the full-text index of m006
        migration(connection)
    connection.execute("PRAGMA user_version=6")
    connection.execute(
        "INSERT INTO papers (id, title, authors, abstract, categories, primary_category,"
        " first_seen, updated) VALUES ('2605.1', 'Old title', '[]', 'repair', '[]', 'cs.SE',"
        " 'x', 'x')"
    )
    connection.execute(  # indexed the old way: the index row's rowid is not the paper's
        "INSERT INTO papers_fts (rowid, paper_id, title, abstract)"
        " VALUES (99, '2605.1', 'Old title', 'repair')"
    )
    connection.commit()
    connection.close()
    with open_store(path) as store:
        store.listings.save(_listing())  # 2605.1 again, with a new title
        store.listings.save(_listing())
        assert [p.title for p in store.listings.search("A")] == ["A"]
        assert store.listings.search("Old") == []
        with store._db.read() as db:
            assert db.execute("SELECT COUNT(*) FROM papers_fts").fetchone()[0] == 2


def test_a_store_of_issue_22s_branch_at_version_8_gets_mains_m007_and_m008(tmp_path: Path):
    """Issue 22's branch before its merge numbered its migrations 7 (feedback.profile,
    llm_calls.profile, paper_readings) and 8 (search by rowid): such a store ends with
    main's m007 and m008 as well, and keeps its readings."""
    from paperbrief.store.schema import m009_readers_and_paper_readings, m010_paper_index_by_rowid

    path = tmp_path / "db.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:6]:
        migration(connection)
    connection.executescript(  # the branch's m007 also added feedback.profile
        "ALTER TABLE feedback ADD COLUMN profile TEXT NOT NULL DEFAULT '';"
        " CREATE INDEX feedback_profile ON feedback(profile);"
    )
    m009_readers_and_paper_readings(connection)
    m010_paper_index_by_rowid(connection)
    connection.execute(
        "INSERT INTO paper_readings VALUES ('2605.00001', 1, 'm', 'zh', 'b', 'body', 'alice', 't')"
    )
    connection.execute("PRAGMA user_version=8")
    connection.close()
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS) == 12
    columns = _columns(path, "runs", "feedback", "judge_verdicts", "judge_screens", "llm_calls")
    connection = sqlite3.connect(path)
    readings = connection.execute("SELECT count(*) FROM paper_readings").fetchone()[0]
    connection.close()
    assert {"pid", "host"} <= columns["runs"] and {"profile", "title"} <= columns["feedback"]
    assert "relevance" in columns["judge_verdicts"] and "relevance" in columns["judge_screens"]
    assert "profile" in columns["llm_calls"] and readings == 1


def _store_at_version_10(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:10]:
        migration(connection)
    connection.execute("PRAGMA user_version=10")
    return connection


def _run(connection: sqlite3.Connection, profile: str, started: str, finished: str) -> None:
    connection.execute(
        "INSERT INTO runs (command, listing_day, digest_date, started_at, finished_at, status,"
        " profile) VALUES ('run', '2026-05-22', '2026-05-23', ?, ?, 'published', ?)",
        (started, finished, profile),
    )


def _judged(connection: sqlite3.Connection, paper_id: str, stamp: str, stars: int) -> None:
    connection.execute(
        "INSERT INTO judge_verdicts (day, model, paper_id, stars, line, reason, relevance,"
        " created_at) VALUES ('2026-05-22', 'm', ?, ?, '', 'why', ?, ?)",
        (paper_id, stars, stars * 20, stamp),
    )
    connection.execute(
        "INSERT INTO judge_screens (day, model, paper_id, relevance, created_at)"
        " VALUES ('2026-05-22', 'm', ?, ?, ?)",
        (paper_id, stars * 10, stamp),
    )


def test_a_lab_store_before_m011_keeps_its_verdicts_each_with_the_reader_it_was_judged_for(
    tmp_path: Path,
):
    """Alice's run, then Bob's, then a `paperbrief rank` outside any run: each row goes to
    the reader whose run was under way when it was written, the last to no reader ('')."""
    path = tmp_path / "db.sqlite"
    connection = _store_at_version_10(path)
    _run(connection, "alice", "2026-05-23T01:00:00+00:00", "2026-05-23T01:05:00+00:00")
    _run(connection, "bob", "2026-05-23T01:05:00+00:00", "2026-05-23T01:09:00+00:00")
    _judged(connection, "2605.00001", "2026-05-23T01:02:00+00:00", 5)  # during alice's run
    _judged(connection, "2605.00002", "2026-05-23T01:07:00+00:00", 1)  # during bob's
    _judged(connection, "2605.00003", "2026-05-23T01:05:00+00:00", 3)  # both: unclear
    _judged(connection, "2605.00004", "2026-05-24T09:00:00+00:00", 2)  # no run
    connection.close()
    day = date(2026, 5, 22)
    with open_store(path) as store:
        assert store.schema_version() == len(MIGRATIONS) == 12
        alice, bob = store.for_reader("alice"), store.for_reader("bob")
        assert {p: v.stars for p, v in alice.verdicts.of_day(day).items()} == {"2605.00001": 5}
        assert {p: v.stars for p, v in bob.verdicts.of_day(day).items()} == {"2605.00002": 1}
        assert alice.verdicts.screens_by_day() == {"2026-05-22": {"2605.00001": 50}}
        assert set(store.verdicts.of("").of_day(day)) == {"2605.00003", "2605.00004"}
        assert len(store.verdicts.of_day(day)) == 4  # every row kept
        assert store.verdicts.readers() == ["", "alice", "bob"]
        assert alice.verdicts.of_papers(["2605.00002", "2605.00003"]) == {}
        alice.verdicts.save(day, "m", {"2605.00002": alice.verdicts.of_day(day)["2605.00001"]})
        assert bob.verdicts.of_day(day)["2605.00002"].stars == 1  # her verdict is hers


def test_a_single_readers_store_before_m011_gives_every_verdict_to_that_reader(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    connection = _store_at_version_10(path)
    _run(connection, "AI4SE PhD student", "2026-05-23T01:00:00+00:00", "2026-05-23T01:05:00+00:00")
    _judged(connection, "2605.00001", "2026-05-23T01:02:00+00:00", 4)
    _judged(connection, "2605.00002", "2026-05-29T01:02:00+00:00", 2)  # `rank`, no run
    connection.close()
    with open_store(path) as store:
        mine = store.for_reader("AI4SE PhD student").verdicts
        assert set(mine.of_day(date(2026, 5, 22))) == {"2605.00001", "2605.00002"}
        assert set(mine.screens_by_day()["2026-05-22"]) == {"2605.00001", "2605.00002"}
        assert store.verdicts.readers() == ["AI4SE PhD student"]


def test_verdicts_judged_for_no_named_reader_are_the_only_readers_until_a_second_is_judged(
    tmp_path,
):
    """m011 gives '' to rows it cannot place (a home from before readers were recorded): its
    one reader keeps learning from them; once another reader is judged in the home they may
    be that reader's, and are nobody's (``store.judging._scope``)."""

    day = date(2026, 5, 22)
    with open_store(tmp_path / "paperbrief.db") as home:
        home.verdicts.save(day, "judge", {"2605.00001": Verdict(4, "", "old", relevance=80)})
        home.verdicts.save_screens(day, "judge", {"2605.00002": 70})
        mine = home.history_of("me").verdicts
        assert mine.of_papers(["2605.00001", "2605.00002"]) == {
            "2605.00001": PaperJudgement(day.isoformat(), judge=80),
            "2605.00002": PaperJudgement(day.isoformat(), screen=70),
        }
        home.verdicts.of("me").save(day, "judge", {"2605.00004": Verdict(3, "", "mine")})
        assert set(home.for_reader("me").verdicts.of_day(day)) == {"2605.00001", "2605.00004"}
        home.verdicts.of("lab-mate").save(day, "judge", {"2605.00003": Verdict(1, "", "x")})
        assert set(home.history_of("me").verdicts.of_papers(["2605.00001", "2605.00002"])) == set()
        assert set(home.for_reader("me").verdicts.of_day(day)) == {"2605.00004"}
        assert set(home.verdicts.of("lab-mate").of_day(day)) == {"2605.00003"}
        assert len(home.verdicts.of_day(day)) == 3  # the home's store still sees every row
