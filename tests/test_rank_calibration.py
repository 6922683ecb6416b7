"""Absolute stars: the fixed reference, the calibration to the reader's own picks, and days
of any size."""

from __future__ import annotations

import random
from datetime import date

import pytest

from paperbrief.models import Listing
from paperbrief.rank import rank_papers, select_picks
from paperbrief.rank.calibrate import (
    BAND_EDGES,
    Calibration,
    anchored,
    cheap_default,
    judge_default,
    stars_of,
)
from paperbrief.rank.evaluate import load_listing_file
from paperbrief.rank.reference import MIN_PAPERS, SELF, reference_for, sample_papers
from paperbrief.store import open_store
from tests.support.rank import RANK_FIXTURES, rank_embedder, rank_profile  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def fixture_days() -> dict[date, list]:
    return {
        date.fromisoformat(path.name[:10]): load_listing_file(path)
        for path in sorted((RANK_FIXTURES / "listings").glob("*.jsonl.gz"))
    }


def test_stars_are_the_bands_of_the_relevance():
    assert [stars_of(r) for r in (0, 34.9, 35, 54.9, 55, 74.9, 75, 89.9, 90, 100)] == [
        1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
    ]  # fmt: skip
    judge = judge_default()
    assert [judge.relevance(edge) for edge in BAND_EDGES] == list(BAND_EDGES)
    cheap = cheap_default(picks_per_day=4, day_size=480)
    scores = [i / 100 for i in range(101)]
    assert [cheap.relevance(s) for s in scores] == sorted(cheap.relevance(s) for s in scores)
    # About ten times the day's picks reach two stars on a day of the reference's size.
    assert 480 * (1 - cheap.thresholds[0]) == pytest.approx(40)
    assert 480 * (1 - cheap.thresholds[3]) == pytest.approx(0.15)  # five: a few a month


def test_thresholds_lean_towards_where_the_readers_own_picks_stand():
    default = cheap_default(4, 480)
    kept = [0.60 + 0.004 * i for i in range(100)]  # the reader keeps papers from 0.60 up
    ratings = [2] * 30 + [3] * 70
    after = anchored(default, kept, ratings)
    assert after.thresholds[0] < default.thresholds[0]  # two stars start lower
    below_two = sum(stars_of(after.relevance(k)) == 1 for k in kept) / len(kept)
    four_up = sum(stars_of(after.relevance(k)) >= 4 for k in kept) / len(kept)
    assert below_two < 0.2 and four_up < 0.2  # "most picks 2-3 stars, 4-5 rare"
    # With a handful of picks the default still weighs most.
    few = anchored(default, kept[:3], ratings[:3])
    assert abs(few.thresholds[0] - default.thresholds[0]) < abs(
        after.thresholds[0] - default.thresholds[0]
    )
    assert anchored(default, [], []) == default
    assert all(a < b for a, b in zip(after.thresholds, after.thresholds[1:], strict=False))


def test_a_paper_keeps_its_stars_whatever_the_day_around_it(profile, embedder, fixture_days):
    days = sorted(fixture_days)
    reference_day = days[0]
    archive = open_store_with([reference_day], fixture_days)
    reference = reference_for(archive.listings, profile, days[-1] + (days[-1] - days[0]))
    assert reference.days and "sample" in reference.days  # too few stored papers alone
    day = fixture_days[days[-1]]
    others = [p for d in days[1:-1] for p in fixture_days[d]]
    rng = random.Random(3)
    for paper in day[:8]:
        stars, scores = set(), set()
        for size in (1, 5, 50, len(others)):
            mates = rng.sample(others, min(size, len(others)) - 1) if size > 1 else []
            ranked = rank_papers([paper, *mates], profile, embedder, reference=reference)
            mine = next(s for s in ranked if s.paper.id == paper.id)
            stars.add(mine.stars)
            scores.add(round(mine.components["cheap"], 6))
        assert len(stars) == 1 and len(scores) == 1, paper.title


def test_without_a_reference_stars_follow_the_day_as_before(profile, embedder, fixture_days):
    day = next(iter(fixture_days.values()))
    ranked = rank_papers(day, profile, embedder, reference=SELF)
    assert ranked[0].stars >= 2 and ranked[-1].stars == 1
    assert ranked[0].components["percentile"] == pytest.approx(1 - 0.5 / len(day), abs=1e-4)


def open_store_with(days, fixture_days):
    import tempfile
    from pathlib import Path

    store = open_store(Path(tempfile.mkdtemp(prefix="paperbrief-ref-")) / "db.sqlite")
    for day in days:
        store.listings.save(Listing(day, tuple(fixture_days[day]), source="test"))
    return store


def test_the_reference_is_stored_days_before_the_day_then_the_sample(profile, fixture_days):
    store = open_store_with(sorted(fixture_days), fixture_days)
    days = sorted(fixture_days)
    first = reference_for(store.listings, profile, days[0])
    assert "sample" in first.days and not [d for d in first.days if d != "sample"]
    later = reference_for(store.listings, profile, days[-1] + (days[1] - days[0]))
    assert [d for d in later.days if d != "sample"] == [d.isoformat() for d in days[-3:]]
    stored = sum(len(fixture_days[d]) for d in days[-3:])
    assert ("sample" in later.days) == (stored < MIN_PAPERS)
    assert len(sample_papers()) == 480


def test_a_five_paper_day_with_a_paper_on_a_line_publishes_it(profile, embedder):
    """Today every paper of a five-paper day is rated against the other four; against the
    reference a paper squarely on the reader's first line reaches the picks on its own."""
    sample = list(sample_papers())
    reference = reference_for(open_store_with([], {}).listings, profile, date(2026, 6, 1))
    ranked_sample = rank_papers(sample, profile, embedder, reference=reference)
    strongest = ranked_sample[0].paper
    weak = [s.paper for s in ranked_sample[-4:]]
    day = rank_papers([strongest, *weak], profile, embedder, reference=reference)
    picks = select_picks(day, profile)
    assert [p.paper.id for p in picks] == [strongest.id]
    assert picks.short and picks.missing == profile.picks_per_day - 1
    assert all(s.stars == 1 for s in day if s.paper.id != strongest.id)


def test_calibration_maps_scores_outside_its_range_to_the_ends():
    calibration = Calibration((0.2, 0.4, 0.6, 0.8), 0.0, 1.0)
    assert calibration.relevance(-5) == 0.0 and calibration.relevance(7) == 100.0
