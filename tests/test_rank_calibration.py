"""Absolute stars: the fixed reference, the judge's tiers linked to its rarity (never to the
reader's picks), and days of any size."""

from __future__ import annotations

import random
from datetime import date

import pytest

from paperbrief.models import Listing
from paperbrief.rank import rank_papers, select_picks
from paperbrief.rank.calibrate import (
    BAND_EDGES,
    MIN_LINKED,
    Calibration,
    cheap_default,
    judge_default,
    linked,
    stars_of,
)
from paperbrief.rank.evaluate import load_listing_file
from paperbrief.rank.fusion import Evidence
from paperbrief.rank.reader import ReferenceJudgement, reader_for, reference_judgements
from paperbrief.rank.reference import MIN_PAPERS, SELF, reference_for, sample_papers
from paperbrief.records import Verdict
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


def reference_sample(count: int = 300, judge_scale: float = 1.0) -> list[tuple[float, float]]:
    """(judge relevance, cheap percentile) of a reference head: the judge agrees with the
    cheap order, on a scale of its own (``judge_scale`` makes it harsh or lenient)."""
    rng = random.Random(5)
    percentiles = sorted(rng.uniform(0.7, 1.0) for _ in range(count))
    return [(min(100.0, judge_scale * 100 * (p - 0.7) / 0.3), p) for p in percentiles]


def test_the_judges_tier_spends_the_stars_the_reference_rarity_gives():
    cheap = cheap_default(picks_per_day=4, day_size=480)
    lenient = linked(reference_sample(), cheap)
    harsh = linked([(j * 0.4, p) for j, p in reference_sample()], cheap)
    assert lenient is not None and harsh is not None
    # The k-th best judged paper of the reference stands where the k-th best percentile does,
    # whatever the judge's own scale: a harsh and a lenient judge give the same stars.
    for (j, p), (h, _) in zip(reference_sample(), [(j * 0.4, p) for j, p in reference_sample()],
                              strict=True):  # fmt: skip
        assert lenient.percentile(j) == pytest.approx(p)
        assert stars_of(lenient.relevance(j)) == stars_of(harsh.relevance(h))
        assert stars_of(lenient.relevance(j)) == min(stars_of(cheap.relevance(p)), lenient.ceiling)
    # The judge's own bands would rate the same paper by the judge's leniency instead.
    judge = judge_default()
    assert stars_of(judge.relevance(80.0)) != stars_of(judge.relevance(80.0 * 0.4))
    # Monotone, and the ends of the judge's scale are the ends of the rarity.
    scores = [i / 2 for i in range(201)]
    assert [lenient.percentile(s) for s in scores] == sorted(lenient.percentile(s) for s in scores)
    assert lenient.percentile(100.0) == pytest.approx(1.0)
    lowest, top = min(reference_sample()), max(reference_sample())
    assert harsh.percentile(100.0) == 1.0 and harsh.percentile(0.0) == 0.0
    assert lenient.percentile(lowest[0]) == pytest.approx(lowest[1])
    assert lenient.percentile(top[0]) == pytest.approx(top[1])


def test_a_linked_tier_gives_no_star_fewer_than_three_of_its_papers_reached():
    """The best of one judged day stands at the top of the scale: with two papers of the
    sample at the 5-star rate, 5 stars would start at one extreme paper."""
    cheap = cheap_default(4, 480)
    five = cheap.thresholds[3]
    bulk = [(50.0 * i / 100, 0.5 + 0.49 * i / 100) for i in range(100)]
    bulk += [(80.0 + i, 0.9992 + 0.0001 * i) for i in range(3)]  # three at 4 stars
    two = linked([*bulk, (95.0, five + 1e-5), (99.0, 1.0)], cheap)
    three = linked([*bulk, (93.0, five), (95.0, five + 1e-5), (99.0, 1.0)], cheap)
    assert two is not None and three is not None
    assert two.ceiling == 4 and three.ceiling == 5
    assert stars_of(two.relevance(99.0)) == 4 and stars_of(three.relevance(99.0)) == 5
    assert two.relevance(99.0) == pytest.approx(BAND_EDGES[3] - 0.01)
    # below the ceiling nothing changes
    assert two.relevance(25.0) == three.relevance(25.0) == cheap.relevance(two.percentile(25.0))


def test_too_few_judged_reference_papers_keep_the_judges_own_bands(profile):
    cheap = cheap_default(4, 480)
    assert linked(reference_sample(MIN_LINKED - 1), cheap) is None
    assert linked(reference_sample(MIN_LINKED), cheap) is not None
    reader = reader_for(profile, SELF)
    assert reader.calibrations.judged == judge_default()


def test_the_readers_picks_set_no_threshold(profile):
    """Stars are rates on the reference, never fitted to where the reader's picks stand:
    feedback teaches the fusion, the thresholds stay where the rates put them."""
    kept_low = [
        Evidence(f"2026-04-{d:02d}", kept, cheap=0.1 * i, percentile=0.6 + 0.01 * i, judge=20.0)
        for d in range(1, 21)
        for i, kept in enumerate([True, False, False])
    ]
    bare = reader_for(profile, SELF)
    taught = reader_for(profile, SELF, kept_low)
    assert taught.calibrations.cheap == bare.calibrations.cheap
    assert taught.calibrations.judged == bare.calibrations.judged
    judged = [ReferenceJudgement(cheap=p * 3, percentile=p, judge=j) for j, p in reference_sample()]
    one = reader_for(profile, SELF, (), None, judged)
    two = reader_for(profile, SELF, kept_low[:3], None, judged)
    assert one.calibrations.judged != judge_default()
    # the fusion moves the fused scores, the link follows them; the rates do not move
    assert one.calibrations.cheap == two.calibrations.cheap


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


def test_the_reference_judgements_are_the_judges_word_on_the_reference_days(
    profile, embedder, fixture_days
):
    days = sorted(fixture_days)
    store = open_store_with(days, fixture_days)
    first, second = days[0], days[1]
    ranked = rank_papers(fixture_days[first], profile, embedder)
    store.rankings.save(first, "fp", ranked)
    read, screened = ranked[0], ranked[1]
    store.verdicts.save(first, "m", {read.paper.id: Verdict(3, None, "", relevance=64)})
    store.verdicts.save_screens(first, "m", {read.paper.id: 70, screened.paper.id: 40})
    # a verdict on the second day about a paper whose ranking is the first day's: left out
    store.verdicts.save(second, "m", {screened.paper.id: Verdict(2, None, "", relevance=40)})
    found = reference_judgements(store.verdicts, store.rankings, [first.isoformat(), "sample"])
    assert sorted(found, key=lambda r: -r.percentile) == [
        ReferenceJudgement(read.components["cheap"], read.components["percentile"], 64.0, 70.0),
        ReferenceJudgement(screened.components["cheap"], screened.components["percentile"], None,
                           40.0),
    ]  # fmt: skip
    both = reference_judgements(
        store.verdicts, store.rankings, [first.isoformat(), second.isoformat()]
    )
    assert len(both) == 2  # the second day's verdict names a paper ranked on the first
    assert reference_judgements(store.verdicts, store.rankings, ["sample"]) == []
