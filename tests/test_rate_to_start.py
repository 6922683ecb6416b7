"""Rate to start: a short, diverse, informative selection, and ratings that count at once."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from paperbrief.models import Listing, Signal
from paperbrief.rank.evaluate import load_listing_file
from paperbrief.rank.rate_to_start import choose_to_rate, papers_to_rate, uncertainty
from paperbrief.rank.text import paper_text
from paperbrief.store import open_store
from tests.support.rank import RANK_FIXTURES, rank_embedder, rank_profile  # noqa: F401 (fixtures)

TODAY = date(2026, 4, 27)


@pytest.fixture()
def store(tmp_path):
    store = open_store(tmp_path / "db.sqlite")
    for path in sorted((RANK_FIXTURES / "listings").glob("*.jsonl.gz")):
        day = date.fromisoformat(path.name[:10])
        store.listings.save(Listing(day, tuple(load_listing_file(path)), source="test"))
    return store


def choose(store, embedder, profile, count=20):
    return papers_to_rate(store, embedder, profile, TODAY, count)


def test_the_selection_is_short_diverse_and_covers_every_line(store, embedder, profile):
    chosen = choose(store, embedder, profile)
    assert len(chosen) == 20 and len({s.paper.id for s in chosen}) == 20
    lines = {line.name for line in profile.research_lines}
    assert lines <= {s.line for s in chosen}
    vectors = np.asarray(embedder.embed([paper_text(s.paper) for s in chosen]))
    similarity = vectors @ vectors.T - np.eye(len(chosen)) * 2
    assert similarity.max() < 0.95  # no two near-duplicates asked about
    # Most come from where the ranking is unsure, a few from below the pool.
    assert sum(uncertainty(s.components["relevance"]) > 0.2 for s in chosen) >= 12


def test_rated_papers_are_not_asked_again(store, embedder, profile):
    first = choose(store, embedder, profile)
    for scored in first[:10]:
        store.feedback.add(scored.paper.id, Signal.UP, source="start")
    again = {s.paper.id for s in choose(store, embedder, profile)}
    assert not again & {s.paper.id for s in first[:10]}


def test_choose_to_rate_prefers_uncertain_then_distant_papers():
    class Item:
        def __init__(self, index, line):
            from paperbrief.models import Paper, ScoredPaper

            paper = Paper(id=f"p{index}", title=f"t{index}", authors=(), abstract="a",
                          categories=("cs.SE",), primary_category="cs.SE")  # fmt: skip
            self.scored = ScoredPaper(paper, 0.0, 1, line)

    items = [Item(i, "a").scored for i in range(8)]
    vectors = np.eye(8)
    vectors[1] = vectors[0]  # paper 1 repeats paper 0
    relevance = [55.0, 55.0, 54.0, 10.0, 90.0, 50.0, 5.0, 0.0]
    chosen = choose_to_rate(items, vectors, relevance=relevance, count=3)
    assert chosen[0] == 0 and 1 not in chosen[:2]
