"""Offline evaluation of the ranking against the reader's real picks, walk-forward.

``evaluate_ranking`` ranks the listing of every post in a picks file (in date order) and
reports recall@k, nDCG@10 and MRR (``rank.metrics``) in two views:

* **within shown** (the primary figure, when the picks file has ``shown``): the papers the
  reader saw that day, ordered by the day's ranking. Only these could have been picked;
* **whole listing** (secondary): every paper of the day.

Each listing day is put in a seeded random order and its papers get opaque ids before
anything ranks them, so only the papers' content and the reader's feedback can rank (the
true ids are kept only to find the picks). With a replay store (``--learn``), before a
listing day is ranked every post of a strictly earlier listing day is recorded into it as
feedback (``imported.record_posts``: picked, and shown-but-not-picked), the same path
``paperbrief feedback import`` takes, and the learner is trained from it. Posts of one
listing day share one ranking. Baselines run in the same pass.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Protocol

import numpy as np

from paperbrief.errors import PaperbriefError
from paperbrief.models import Listing, Paper, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank.bm25 import BM25Index
from paperbrief.rank.core import content_order, rank_papers
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import FeedbackRecorder
from paperbrief.rank.imported import RecordedPost, load_posts, record_posts
from paperbrief.rank.judge import JudgeResult, Replay, ReplayAnswers, judge_ranking
from paperbrief.rank.metrics import PostResult, summarize
from paperbrief.rank.reader import (
    DayArchive,
    DayReader,
    JudgementArchive,
    ScoreArchive,
    cold_reader,
    rank_for,
    reader_of_day,
)
from paperbrief.rank.scorers import line_query_text
from paperbrief.rank.text import paper_text, tokenize
from paperbrief.records import Verdict
from paperbrief.sources import load_snapshot

SHUFFLE_SEED = 12


class EvaluationError(PaperbriefError):
    """The listings or picks given to the evaluation are missing or malformed."""


def load_listing_file(path: Path) -> list[Paper]:
    """Papers of a listing snapshot (``.jsonl`` or ``.jsonl.gz``), via the sources stage."""
    return list(load_snapshot(path).papers)


def find_listing(directory: Path, day: date) -> Path:
    for name in (f"{day.isoformat()}.jsonl.gz", f"{day.isoformat()}.jsonl"):
        if (directory / name).exists():
            return directory / name
    raise EvaluationError(
        f"no listing for {day} in {directory}",
        f"add {day.isoformat()}.jsonl.gz there, or pass --since/--until to skip that post",
    )


@dataclass(frozen=True)
class ShuffledDay:
    """A listing day in a seeded random order with opaque ids (``20260522.00017``)."""

    day: date
    papers: tuple[Paper, ...]
    opaque: Mapping[str, str]  # true arXiv id -> opaque id

    def post(self, post: RecordedPost) -> RecordedPost:
        """``post`` with its ids in this day's opaque ids (unknown ids kept as they are)."""
        rename = self.opaque.get
        return replace(
            post,
            picks=tuple((rename(pid, pid), stars) for pid, stars in post.picks),
            shown=None if post.shown is None else tuple(rename(p, p) for p in post.shown),
        )


def shuffle_day(papers: Sequence[Paper], day: date, seed: int = SHUFFLE_SEED) -> ShuffledDay:
    order = list(papers)
    random.Random(f"{seed}:{day.isoformat()}").shuffle(order)
    stem = day.strftime("%Y%m%d")
    renamed = [replace(p, id=f"{stem}.{k:05d}", version=None) for k, p in enumerate(order)]
    return ShuffledDay(
        day, tuple(renamed), {p.id: r.id for p, r in zip(order, renamed, strict=True)}
    )


# ------------------------------------------------------------------------ baselines
Ranker = Callable[[Sequence[Paper], date], list[str]]


def random_ranker(seed: int = 13) -> Ranker:
    def rank(papers: Sequence[Paper], day: date) -> list[str]:
        ids = sorted(p.id for p in papers)
        random.Random(f"{seed}:{day}").shuffle(ids)
        return ids

    return rank


def profile_text(profile: Profile) -> str:
    return " ".join(line_query_text(line) for line in profile.research_lines)


def bm25_ranker(profile: Profile) -> Ranker:
    """Baseline: BM25 of each paper against the whole profile text as one query."""

    def rank(papers: Sequence[Paper], day: date) -> list[str]:
        index = BM25Index([tokenize(paper_text(p)) for p in papers])
        query: dict[str, float] = {}
        for token in tokenize(profile_text(profile)):
            query[token] = query.get(token, 0.0) + 1.0
        return [papers[i].id for i in content_order(papers, index.score(query))]

    return rank


def embedding_ranker(profile: Profile, embedder: Embedder) -> Ranker:
    """Baseline: cosine similarity of each paper to the embedding of the whole profile."""

    def rank(papers: Sequence[Paper], day: date) -> list[str]:
        query = embedder.embed([profile_text(profile)])[0]
        scores = embedder.embed([paper_text(p) for p in papers]) @ query
        return [papers[i].id for i in content_order(papers, np.asarray(scores))]

    return rank


def profile_ranker(profile: Profile, embedder: Embedder) -> Ranker:
    """Baseline under --learn: paperbrief's ranking without the learned taste."""

    def rank(papers: Sequence[Paper], day: date) -> list[str]:
        return [s.paper.id for s in rank_papers(papers, profile, embedder)]

    return rank


# ----------------------------------------------------------------------- the views
def view_ranks(
    order: Sequence[str], post: RecordedPost, within: Sequence[str] | None
) -> list[int | None]:
    """Each pick's 1-based rank in ``order`` restricted to ``within`` (all when None)."""
    if within is not None:
        allowed = set(within)
        order = [paper_id for paper_id in order if paper_id in allowed]
    position = {paper_id: i + 1 for i, paper_id in enumerate(order)}
    return [position.get(paper_id) for paper_id, _ in post.picks]


@dataclass
class ViewReport:
    system: dict[str, object]
    baselines: dict[str, dict[str, object]]
    per_post: list[PostResult]


@dataclass
class EvaluationReport:
    posts: int
    picks: int
    whole_listing: ViewReport
    within_shown: ViewReport | None = None  # when the picks file says what was shown
    seconds_per_day: float = 0.0  # ranking (and learning) time per listing day
    days: int = 0

    @property
    def primary(self) -> ViewReport:
        return self.within_shown or self.whole_listing

    @property
    def system(self) -> dict[str, object]:
        return self.primary.system

    @property
    def baselines(self) -> dict[str, dict[str, object]]:
        return self.primary.baselines

    @property
    def per_post(self) -> list[PostResult]:
        return self.primary.per_post

    def to_json(self) -> dict[str, object]:
        """The primary view's figures; ``whole_listing`` too when ``shown`` was given."""
        out: dict[str, object] = {
            "posts": self.posts,
            "picks": self.picks,
            **self.primary.system,
            "baselines": self.primary.baselines,
        }
        if self.within_shown is not None:
            out["whole_listing"] = {
                "posts": self.posts,
                "picks": self.picks,
                **self.whole_listing.system,
                "baselines": self.whole_listing.baselines,
            }
        return out


# ------------------------------------------------------------------------ the replay
class ReplayListings(DayArchive, Protocol):
    def save(self, listing: Listing) -> None: ...


class ReplayRankings(ScoreArchive, Protocol):
    def save(self, day: date, fingerprint: str, ranking: Iterable[ScoredPaper]) -> None: ...


class ReplayVerdicts(JudgementArchive, Protocol):
    def save(self, day: date, model: str, verdicts: Mapping[str, Verdict]) -> None: ...

    def save_screens(self, day: date, model: str, screens: Mapping[str, int]) -> None: ...


class ReplayStore(Protocol):
    """Where ``--learn`` replays the history (a scratch ``Store``: the same path real
    feedback, rankings and verdicts take, so the day's reader is built exactly as in a daily
    run, by ``rank.reader.reader_of_day``)."""

    @property
    def listings(self) -> ReplayListings: ...

    @property
    def feedback(self) -> FeedbackRecorder: ...

    @property
    def rankings(self) -> ReplayRankings: ...

    @property
    def verdicts(self) -> ReplayVerdicts: ...


class _NoListings:
    """No stored history (an evaluation without --learn): the reference is the sample day."""

    def days(self) -> list[date]:
        return []

    def load(self, day: date) -> Listing | None:
        return None


@dataclass(frozen=True)
class EvaluatedDay:
    """One ranked listing day of the evaluation, for benchmarks that measure more than the
    ranks (``observe``): opaque ids throughout."""

    day: ShuffledDay
    ranking: list[ScoredPaper]  # the final ranking (judged when a replay was given)
    cheap: list[ScoredPaper]  # the cheap ranking
    posts: list[RecordedPost]  # the day's posts (empty for a history day before --since)
    reader: DayReader
    judged: JudgeResult | None = None


REPLAY_MODEL = "replay"


def evaluate_ranking(
    listings_dir: Path,
    picks_path: Path,
    profile: Profile,
    embedder: Embedder,
    *,
    replay: ReplayStore | None = None,
    since: date | None = None,
    until: date | None = None,
    judge_replay: Replay | None = None,
    progress: Callable[[str], None] | None = None,
    observe: Callable[[EvaluatedDay], None] | None = None,
) -> EvaluationReport:
    """Rank every post's listing and compare with the real picks (see module docstring).

    ``since`` / ``until`` bound the evaluated posts by digest date (history before
    ``since`` is still replayed, and ranked, so its scores are evidence for later days).
    ``judge_replay`` (recorded LLM judge answers by listing day, ``rank.judge.Replay``)
    answers the judge of each day exactly as a live LLM would have been asked: the same
    screen, head and budget, the recorded answers of the papers it asks about.
    ``observe`` sees each ranked day (``EvaluatedDay``).
    """
    all_posts = load_posts(picks_path)
    posts = [
        p
        for p in all_posts
        if (since is None or p.digest_date >= since) and (until is None or p.digest_date <= until)
    ]
    if not posts:
        raise EvaluationError(
            f"no posts in {picks_path} between {since or 'the start'} and {until or 'the end'}",
            "check --since and --until",
        )
    evaluated_days = sorted({p.listing_day for p in posts})
    needed = set(evaluated_days)
    if replay is not None:
        needed |= {p.listing_day for p in all_posts if p.listing_day < evaluated_days[-1]}
    days = {
        day: shuffle_day(load_listing_file(find_listing(listings_dir, day)), day)
        for day in sorted(needed)
    }
    rankers: dict[str, Ranker] = {
        "random": random_ranker(),
        "bm25": bm25_ranker(profile),
        "embedding": embedding_ranker(profile, embedder),
    }
    if replay is not None:
        rankers["profile only"] = profile_ranker(profile, embedder)
    with_shown = any(p.shown is not None for p in posts)
    views: dict[str, dict[str, list[PostResult]]] = {
        view: {name: [] for name in ["paperbrief", *rankers]} for view in ("shown", "whole")
    }
    recorded: set[date] = set()
    elapsed: list[float] = []
    for day in sorted(days):
        evaluated = day in evaluated_days
        if progress:
            progress(f"listing {day}" + ("" if evaluated else " (history)"))
        shuffled = days[day]
        started = time.perf_counter()
        if replay is not None:
            for past in [d for d in sorted(days) if d < day and d not in recorded]:
                replay.listings.save(Listing(past, days[past].papers, source="eval-replay"))
                past_posts = [days[past].post(p) for p in all_posts if p.listing_day == past]
                record_posts(replay.feedback, past_posts, source="eval-replay")
                recorded.add(past)
            before = day.isoformat() + "T00:00:00+00:00"
            reader = reader_of_day(replay, embedder, profile, day, before=before)
        else:
            reader = cold_reader(_NoListings(), embedder, profile, day)
        cheap = rank_for(shuffled.papers, profile, embedder, reader)
        ranking, judged = cheap, None
        if judge_replay is not None:
            key = day.isoformat()
            rename = shuffled.opaque
            answers = ReplayAnswers(
                {rename.get(k, k): v for k, v in judge_replay.verdicts.get(key, {}).items()},
                {rename.get(k, k): v for k, v in judge_replay.screens.get(key, {}).items()},
            )
            judged = judge_ranking(cheap, profile, answers, reader.reader)
            ranking = judged.ranking
            if replay is not None:
                replay.verdicts.save(day, REPLAY_MODEL, judged.verdicts)
                replay.verdicts.save_screens(day, REPLAY_MODEL, judged.screens)
        if replay is not None:
            replay.rankings.save(day, "eval-replay", cheap)
        elapsed.append(time.perf_counter() - started)
        day_posts = [shuffled.post(p) for p in posts if p.listing_day == day] if evaluated else []
        if observe is not None:
            observe(EvaluatedDay(shuffled, ranking, cheap, day_posts, reader, judged))
        if not evaluated:
            continue
        orders = {"paperbrief": [s.paper.id for s in ranking]}
        orders |= {name: ranker(shuffled.papers, day) for name, ranker in rankers.items()}
        stars = {s.paper.id: s.stars for s in ranking}
        model = reader.taste
        for post in day_posts:
            for name, order in orders.items():
                for view, within in (("shown", post.shown), ("whole", None)):
                    result = PostResult(post, view_ranks(order, post, within))
                    if name == "paperbrief":
                        result.pick_stars = [stars.get(pid) for pid, _ in post.picks]
                        if replay is not None:
                            result.learned_from = model.positives + model.negatives
                            result.latest_feedback = model.latest_example
                    views[view][name].append(result)

    def report(view: str) -> ViewReport:
        results = views[view]
        return ViewReport(
            system=summarize(results["paperbrief"]),
            baselines={name: summarize(results[name]) for name in rankers},
            per_post=results["paperbrief"],
        )

    return EvaluationReport(
        posts=len(posts),
        picks=sum(len(p.picks) for p in posts),
        whole_listing=report("whole"),
        within_shown=report("shown") if with_shown else None,
        seconds_per_day=float(np.mean(elapsed)) if elapsed else 0.0,
        days=len(evaluated_days),
    )


__all__ = [
    "EvaluationError",
    "EvaluatedDay",
    "EvaluationReport",
    "PostResult",
    "RecordedPost",
    "ShuffledDay",
    "ViewReport",
    "evaluate_ranking",
    "find_listing",
    "load_listing_file",
    "load_posts",
    "shuffle_day",
    "summarize",
]
