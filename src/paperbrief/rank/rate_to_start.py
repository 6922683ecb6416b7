"""Rate to start: a short selection of papers whose ratings teach the ranking the most.

For a new reader (or one whose interests moved), ``choose_to_rate`` picks ``count`` papers
from a ranking of recent papers (ranked against the reference, so percentiles of different
days compare):

* informative: the pool is the ranking's upper part, where the reader's taste decides
  (``POOL_SHARE`` of it), each paper weighted by how unsure the ranking is about it — highest
  at the boundary where 3 stars start ("the kind of paper this reader usually keeps") and
  falling off towards the very top and the bottom of the pool (``uncertainty``);
* diverse: greedily, each next paper maximises ``uncertainty x (1 - nearness)``, nearness
  being the highest cosine to a paper already chosen or already rated; every research line
  gets ``per_line`` papers first while the pool has them;
* a few (``EXPLORE``) come from below the pool, the most distant from everything chosen, so
  an interest the profile does not describe can still show up.

The result is a plain ordered list; recording the reader's 👍 / 👎 goes through the feedback
log like any other rating, and the next ranking learns from it at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import numpy as np

from paperbrief.models import Paper, ScoredPaper, Signal
from paperbrief.profile import Profile
from paperbrief.rank import flags
from paperbrief.rank.candidates import candidates
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import FeedbackLog
from paperbrief.rank.reader import ReaderArchive, rank_for, reader_of_day
from paperbrief.rank.reference import sample_papers
from paperbrief.rank.text import paper_text

POOL_SHARE = 0.25
EXPLORE = 2
BOUNDARY = 55.0  # relevance where 3 stars start: "the kind of paper this reader usually keeps"
SPREAD = 40.0  # relevance distance from the boundary at which uncertainty reaches zero


def uncertainty(relevance: float) -> float:
    """How unsure the ranking is whether the reader wants this paper (0..1)."""
    return float(max(0.0, 1.0 - abs(relevance - BOUNDARY) / SPREAD)) + 1e-3


def choose_to_rate(
    ranking: Sequence[ScoredPaper],
    vectors: np.ndarray,
    *,
    relevance: Sequence[float],
    rated: np.ndarray | None = None,
    count: int = 20,
    lines: Sequence[str] = (),
    per_line: int = 2,
) -> list[int]:
    """Indices into ``ranking`` (best first) of the papers to ask about, in asking order.

    ``vectors`` are the papers' unit embeddings (rows as in ``ranking``), ``relevance`` their
    0-100 relevance, ``rated`` the embeddings of papers the reader already rated.
    """
    usable = [i for i, s in enumerate(ranking) if flags.pickable(s)]
    if not usable:
        return []
    pool_size = max(count, int(round(len(usable) * POOL_SHARE)))
    pool = usable[:pool_size]
    below = usable[pool_size:]
    weight = {i: uncertainty(relevance[i]) for i in usable}
    chosen: list[int] = []
    nearest = np.full(len(ranking), -1.0)
    if rated is not None and len(rated):
        nearest = np.maximum(nearest, (vectors @ np.asarray(rated).T).max(axis=1))

    def take(candidates: Sequence[int], by_weight: bool = True) -> None:
        def value(i: int) -> tuple[float, int]:
            novelty = 1.0 - max(float(nearest[i]), 0.0)
            return ((weight[i] if by_weight else 1.0) * novelty, -i)

        best = max(candidates, key=value)
        chosen.append(best)
        np.maximum(nearest, vectors @ vectors[best], out=nearest)

    explore = min(EXPLORE, len(below), max(count - 1, 0))
    main = count - explore
    for line in lines:
        for _ in range(per_line):
            options = [i for i in pool if ranking[i].line == line and i not in chosen]
            if options and len(chosen) < main:
                take(options)
    while len(chosen) < main:
        options = [i for i in pool if i not in chosen]
        if not options:
            break
        take(options)
    for _ in range(explore):
        options = [i for i in below if i not in chosen]
        if options:
            take(options, by_weight=False)
    return chosen


POOL_DAYS = 3  # the most recent stored listing days the selection draws from


def papers_to_rate(
    archive: ReaderArchive,
    embedder: Embedder,
    profile: Profile,
    today: date,
    count: int = 20,
    log: FeedbackLog | None = None,
) -> list[ScoredPaper]:
    """The papers to ask the reader about now: from the ``POOL_DAYS`` most recent stored
    listing days (else the bundled sample day), ranked as the reader stands now, minus the
    papers they already rated; ``choose_to_rate`` picks ``count`` of them."""
    listings = archive.listings
    days = listings.days()[-POOL_DAYS:]
    pool: dict[str, Paper] = {}
    for day in days:
        listing = listings.load(day)
        if listing is not None:
            pool.update((p.id, p) for p in candidates(listing, profile))
    if not pool:
        pool = {p.id: p for p in sample_papers() if set(p.categories) & set(profile.all_categories)}
    log = archive.feedback if log is None else log
    events = log.events()
    rated = {e.paper_id for e in events if e.signal != Signal.SHOWN}
    papers = [p for p in pool.values() if p.id not in rated]
    if not papers:
        return []
    reader = reader_of_day(archive, embedder, profile, today, log=log)
    ranking = rank_for(papers, profile, embedder, reader)
    vectors = np.asarray(embedder.embed([paper_text(s.paper) for s in ranking]))
    known = listings.papers(rated)
    rated_vectors = (
        np.asarray(embedder.embed([paper_text(p) for p in known.values()])) if known else None
    )
    chosen = choose_to_rate(
        ranking,
        vectors,
        relevance=[s.components.get("relevance", s.score) for s in ranking],
        rated=rated_vectors,
        count=count,
        lines=[line.name for line in profile.research_lines],
    )
    return [ranking[i] for i in chosen]
