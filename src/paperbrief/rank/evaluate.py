"""Offline evaluation of the ranking against the reader's real picks.

``evaluate_ranking`` ranks the listing of every post in a picks file (in date order) and
reports recall@k, nDCG@10 (stars as graded gains, unrated = 2) and MRR with 95% bootstrap
intervals over days, for the system and for baselines in the same run. With a replay store, the
history before each post's listing day is replayed as feedback through the store (picked =
accepted, the rest of that listing = shown and not picked) and the learned scorer is fused in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from paperbrief.errors import PaperbriefError
from paperbrief.models import Listing, Paper, Signal
from paperbrief.profile import Profile
from paperbrief.rank.bm25 import BM25Index
from paperbrief.rank.core import rank_papers
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import (
    FeedbackLog,
    FeedbackModel,
    PaperArchive,
    learner_settings,
    load_feedback,
)
from paperbrief.rank.judge import Verdict, apply_verdicts
from paperbrief.rank.scorers import line_query_text
from paperbrief.rank.text import paper_text, tokenize
from paperbrief.sources import load_snapshot

CUTOFFS = (5, 10, 20, 50, 100)
UNRATED_STARS = 2
BOOTSTRAP_SAMPLES = 1000


class EvaluationError(PaperbriefError):
    """The listings or picks given to the evaluation are missing or malformed."""


@dataclass(frozen=True)
class RecordedPost:
    digest_date: date
    listing_day: date
    picks: tuple[tuple[str, int], ...]  # (arXiv id, stars; unrated counted as 2)


def load_posts(path: Path) -> list[RecordedPost]:
    """Posts of a picks file (format of ``picks-dev.json``), sorted by digest date."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        posts = [
            RecordedPost(
                date.fromisoformat(item["digest_date"]),
                date.fromisoformat(item["listing_day"]),
                tuple(
                    (str(p["id"]), int(p["stars"]) if p.get("stars") else UNRATED_STARS)
                    for p in item["picks"]
                ),
            )
            for item in data["posts"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EvaluationError(
            f"cannot read picks file {path}: {error}",
            'expected {"posts": [{"digest_date", "listing_day", "picks": [{"id", "stars"}]}]}',
        ) from error
    return sorted(posts, key=lambda p: (p.digest_date, p.listing_day))


def load_listing_file(path: Path) -> list[Paper]:
    """Papers of a listing snapshot (``.jsonl`` or ``.jsonl.gz``), via the sources stage."""
    return list(load_snapshot(path).papers)


def find_listing(directory: Path, day: date) -> Path:
    for name in (f"{day.isoformat()}.jsonl.gz", f"{day.isoformat()}.jsonl"):
        if (directory / name).exists():
            return directory / name
    raise EvaluationError(
        f"no listing for {day} in {directory}",
        f"add {day.isoformat()}.jsonl.gz there, or pass --since to skip earlier posts",
    )


# ------------------------------------------------------------------------- metrics
@dataclass
class PostResult:
    post: RecordedPost
    ranks: list[int | None]  # 1-based rank of each pick in the ranking (None = not listed)
    learned_from: int = 0  # feedback examples the learned scorer saw
    latest_feedback: str = ""  # latest feedback day it saw (must be < listing day)
    pick_stars: list[int | None] = field(default_factory=list)  # stars given to each pick


def _metrics(results: Sequence[PostResult]) -> dict[str, float]:
    picks = sum(len(r.ranks) for r in results)
    out: dict[str, float] = {}
    for k in CUTOFFS:
        hits = sum(1 for r in results for rank in r.ranks if rank is not None and rank <= k)
        out[f"recall@{k}"] = hits / picks if picks else 0.0
    ndcgs, mrrs = [], []
    for r in results:
        gains = {
            rank: stars for rank, (_, stars) in zip(r.ranks, r.post.picks, strict=True) if rank
        }
        dcg = sum(g / np.log2(rank + 1) for rank, g in gains.items() if rank <= 10)
        ideal = sorted((s for _, s in r.post.picks), reverse=True)[:10]
        idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
        ndcgs.append(dcg / idcg if idcg else 0.0)
        found = [rank for rank in r.ranks if rank]
        mrrs.append(1.0 / min(found) if found else 0.0)
    out["ndcg@10"] = float(np.mean(ndcgs)) if ndcgs else 0.0
    out["mrr"] = float(np.mean(mrrs)) if mrrs else 0.0
    return out


def summarize(results: Sequence[PostResult], seed: int = 7) -> dict[str, object]:
    """Point metrics plus 95% bootstrap intervals (resampling days, i.e. posts)."""
    point = _metrics(results)
    generator = random.Random(seed)
    samples: dict[str, list[float]] = {key: [] for key in point}
    for _ in range(BOOTSTRAP_SAMPLES if len(results) > 1 else 0):
        drawn = [results[generator.randrange(len(results))] for _ in results]
        for key, value in _metrics(drawn).items():
            samples[key].append(value)
    ci = {
        key: [round(float(np.percentile(v, 2.5)), 4), round(float(np.percentile(v, 97.5)), 4)]
        for key, v in samples.items()
        if v
    }
    return {
        "recall": {str(k): round(point[f"recall@{k}"], 4) for k in CUTOFFS},
        "ndcg@10": round(point["ndcg@10"], 4),
        "mrr": round(point["mrr"], 4),
        "ci95": ci,
    }


# ------------------------------------------------------------------------ rankers
Ranker = Callable[[Sequence[Paper], RecordedPost], list[str]]


def random_ranker(seed: int = 13) -> Ranker:
    def rank(papers: Sequence[Paper], post: RecordedPost) -> list[str]:
        ids = [p.id for p in papers]
        random.Random(f"{seed}:{post.listing_day}").shuffle(ids)
        return ids

    return rank


def profile_text(profile: Profile) -> str:
    return " ".join(line_query_text(line) for line in profile.research_lines)


def bm25_ranker(profile: Profile) -> Ranker:
    """Baseline: BM25 of each paper against the whole profile text as one query."""

    def rank(papers: Sequence[Paper], post: RecordedPost) -> list[str]:
        index = BM25Index([tokenize(paper_text(p)) for p in papers])
        query: dict[str, float] = {}
        for token in tokenize(profile_text(profile)):
            query[token] = query.get(token, 0.0) + 1.0
        scores = index.score(query)
        return [papers[i].id for i in np.argsort(-scores, kind="stable")]

    return rank


def embedding_ranker(profile: Profile, embedder: Embedder) -> Ranker:
    """Baseline: cosine similarity of each paper to the embedding of the whole profile."""

    def rank(papers: Sequence[Paper], post: RecordedPost) -> list[str]:
        query = embedder.embed([profile_text(profile)])[0]
        scores = embedder.embed([paper_text(p) for p in papers]) @ query
        return [papers[i].id for i in np.argsort(-scores, kind="stable")]

    return rank


def _ranks(order: Sequence[str], post: RecordedPost) -> list[int | None]:
    position = {paper_id: i + 1 for i, paper_id in enumerate(order)}
    return [position.get(paper_id) for paper_id, _ in post.picks]


# ----------------------------------------------------------------------- replay
FEEDBACK_TIME = "T12:00:00+00:00"  # replayed feedback is dated at noon of its listing day


class ReplayListings(PaperArchive, Protocol):
    def save(self, listing: Listing) -> None: ...


class ReplayFeedback(FeedbackLog, Protocol):
    def add(
        self,
        paper_id: str,
        signal: Signal,
        note: str | None = None,
        source: str = "cli",
        created_at: str | None = None,
    ) -> None: ...


class ReplayStore(Protocol):
    """Where ``--learn`` replays the history (a scratch ``Store``: the same path real
    feedback takes, so the learner reads it exactly as in a daily run)."""

    @property
    def listings(self) -> ReplayListings: ...

    @property
    def feedback(self) -> ReplayFeedback: ...


def replay_history(
    store: ReplayStore,
    posts: Sequence[RecordedPost],
    listings: Mapping[date, Sequence[Paper]],
) -> None:
    """Feed posts to the store as the reader's feedback (the same calls the CLI makes):
    the picked papers as ``picked``, the rest of that listing as ``shown``."""
    for post in posts:
        papers = listings[post.listing_day]
        store.listings.save(Listing(post.listing_day, tuple(papers), source="eval-replay"))
        when = post.listing_day.isoformat() + FEEDBACK_TIME
        picked = {paper_id for paper_id, _ in post.picks}
        for paper in papers:
            signal = Signal.PICKED if paper.id in picked else Signal.SHOWN
            store.feedback.add(paper.id, signal, source="eval-replay", created_at=when)


@dataclass
class EvaluationReport:
    posts: int
    picks: int
    system: dict[str, object]
    baselines: dict[str, dict[str, object]]
    per_post: list[PostResult] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "posts": self.posts,
            "picks": self.picks,
            **self.system,
            "baselines": self.baselines,
        }


def evaluate_ranking(
    listings_dir: Path,
    picks_path: Path,
    profile: Profile,
    embedder: Embedder,
    *,
    replay: ReplayStore | None = None,
    since: date | None = None,
    feedback_settings: Mapping[str, Any] | None = None,
    judge_replay: Mapping[str, Mapping[str, Verdict]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> EvaluationReport:
    """Rank every post's listing and compare with the real picks (see module docstring).

    With a ``replay`` store (``--learn``), before ranking a post, every post whose listing day
    is strictly earlier (including posts before ``since``) has been replayed into it, and the
    learned scorer is trained from it with ``before`` = the ranked listing day.
    ``judge_replay`` (recorded LLM judge verdicts by listing day, see ``rank.judge``) is
    applied to each day's ranking exactly as a live judge's verdicts would be.
    """
    all_posts = load_posts(picks_path)
    posts = [p for p in all_posts if since is None or p.digest_date >= since]
    if not posts:
        raise EvaluationError(f"no posts in {picks_path} on or after {since}", "check --since")
    needed = {p.listing_day for p in (all_posts if replay is not None else posts)}
    listings = {day: load_listing_file(find_listing(listings_dir, day)) for day in sorted(needed)}
    rankers: dict[str, Ranker] = {
        "random": random_ranker(),
        "bm25": bm25_ranker(profile),
        "embedding": embedding_ranker(profile, embedder),
    }
    system_results: list[PostResult] = []
    baseline_results: dict[str, list[PostResult]] = {name: [] for name in rankers}
    fed: set[int] = set()
    for post in posts:
        if progress:
            progress(f"{post.digest_date} (listing {post.listing_day})")
        papers = listings[post.listing_day]
        model: FeedbackModel | None = None
        if replay is not None:
            earlier = [
                (i, p)
                for i, p in enumerate(all_posts)
                if p.listing_day < post.listing_day and i not in fed
            ]
            replay_history(replay, [p for _, p in earlier], listings)
            fed.update(i for i, _ in earlier)
            model = load_feedback(
                replay.feedback,
                replay.listings,
                embedder,
                before=post.listing_day.isoformat() + "T00:00:00+00:00",
                **{**learner_settings(profile), **(feedback_settings or {})},
            )
        ranking = rank_papers(papers, profile, embedder, feedback=model)
        if judge_replay is not None:
            verdicts = judge_replay.get(post.listing_day.isoformat(), {})
            ranking = apply_verdicts(ranking, verdicts, profile)
        result = PostResult(post, _ranks([s.paper.id for s in ranking], post))
        stars = {s.paper.id: s.stars for s in ranking}
        result.pick_stars = [stars.get(paper_id) for paper_id, _ in post.picks]
        if model is not None:
            result.learned_from = model.positives + model.negatives
            result.latest_feedback = model.latest_example
        system_results.append(result)
        for name, ranker in rankers.items():
            baseline_results[name].append(PostResult(post, _ranks(ranker(papers, post), post)))
    return EvaluationReport(
        posts=len(posts),
        picks=sum(len(p.picks) for p in posts),
        system=summarize(system_results),
        baselines={name: summarize(results) for name, results in baseline_results.items()},
        per_post=system_results,
    )
