"""Rate to start: do twenty ratings lift a cold profile's ranking of the development days?

For each development listing day D: a cold profile (no feedback at all) ranks D's listing;
then rate-to-start chooses 20 papers (``rank.rate_to_start.choose_to_rate``, as `paperbrief
feedback start` and the web's /start do) from a pool of papers the reader saw on the OTHER
development days, a principled oracle answers for the reader — their recorded verdict on that
paper (picked that day: 👍; shown and not picked: 👎) — and D is ranked again with only those
twenty ratings. The evaluated day's own picks never answer. Within shown, R@5 / R@10 /
nDCG@10 of the cold profile, after the twenty chosen ratings, and after twenty random
ratings from the same pool (three draws), with 95 % bootstrap intervals of the paired
difference over listing days.

    .venv/bin/python benchmarks/start_bench.py --listings ../shared/data/listings \\
        --picks ../shared/data/picks-dev.json [--cache FILE] [--count 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
from datetime import timedelta

import numpy as np
from _args import add_ranking_inputs

from paperbrief.models import Listing, Signal
from paperbrief.profile import Profile, load_profile
from paperbrief.rank import Embedder, rank_papers
from paperbrief.rank.evaluate import (
    ShuffledDay,
    find_listing,
    load_listing_file,
    shuffle_day,
    view_ranks,
)
from paperbrief.rank.feedback import load_feedback
from paperbrief.rank.imported import RecordedPost, load_posts
from paperbrief.rank.metrics import PostResult, point_metrics
from paperbrief.rank.rate_to_start import choose_to_rate
from paperbrief.rank.reference import Reference, sample_papers
from paperbrief.rank.taste import TasteModel
from paperbrief.rank.text import paper_text
from paperbrief.store import open_store, temporary_store


def paired(a: list[PostResult], b: list[PostResult], key: str) -> tuple[float, float, float]:
    """Mean difference b - a of ``key`` and its 95 % bootstrap interval over listing days."""
    days = sorted({r.post.listing_day for r in a})
    rng = random.Random(7)
    by_day = {
        d: ([r for r in a if r.post.listing_day == d], [r for r in b if r.post.listing_day == d])
        for d in days
    }
    point = point_metrics(b)[key] - point_metrics(a)[key]
    samples = []
    for _ in range(1000):
        drawn = [days[rng.randrange(len(days))] for _ in days]
        left = [r for d in drawn for r in by_day[d][0]]
        right = [r for d in drawn for r in by_day[d][1]]
        samples.append(point_metrics(right)[key] - point_metrics(left)[key])
    return point, float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def evaluate(
    profile: Profile,
    embedder: Embedder,
    reference: Reference,
    shuffled: ShuffledDay,
    posts: list[RecordedPost],
    model: TasteModel | None,
) -> list[PostResult]:
    """Each post's pick ranks within shown, in the day's ranking with ``model``'s taste."""
    ranked = rank_papers(shuffled.papers, profile, embedder, feedback=model, reference=reference)
    order = [s.paper.id for s in ranked]
    return [PostResult(p, view_ranks(order, p, p.shown)) for p in posts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ranking_inputs(parser)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument(
        "--oracle",
        choices=("verdict", "up-only"),
        default="verdict",
        help="verdict: picked 👍, shown and not picked 👎; up-only: picked 👍, the rest"
        " skipped (a reader who picked four of fifty did not reject the other 46)",
    )
    args = parser.parse_args()
    profile = load_profile(args.profile)
    posts = load_posts(args.picks)
    days = sorted({p.listing_day for p in posts})
    listing = {d: load_listing_file(find_listing(args.listings, d)) for d in days}
    picked = {d: {pid for p in posts if p.listing_day == d for pid, _ in p.picks} for d in days}
    shown = {
        d: list(dict.fromkeys(x for p in posts if p.listing_day == d for x in p.shown or ()))
        for d in days
    }
    # A new reader has no stored listing yet: the reference is the bundled sample day.
    reference = Reference(sample_papers(), ("sample",))
    results: dict[str, list[PostResult]] = {"cold": [], "rate to start": []}
    random_runs: list[list[PostResult]] = [[], [], []]
    positives: dict[str, list[int]] = {"rate to start": [], "random": []}
    with open_store(args.cache) as cache:
        embedder = Embedder(cache=cache.embeddings, model_name=profile.rank.embedding_model)
        for day in days:
            by_id = {p.id: p for d in days if d != day for p in listing[d]}
            pool_ids = [pid for d in days if d != day for pid in shown[d] if pid in by_id]
            pool_ids = list(dict.fromkeys(pool_ids))
            liked = {pid for d in days if d != day for pid in picked[d]}
            pool = rank_papers([by_id[i] for i in pool_ids], profile, embedder, reference=reference)
            vectors = np.asarray(embedder.embed([paper_text(s.paper) for s in pool]))
            relevance = [s.components["relevance"] for s in pool]
            chosen = choose_to_rate(
                pool,
                vectors,
                relevance=relevance,
                count=args.count,
                lines=[line.name for line in profile.research_lines],
            )
            draws = random.Random(f"start:{day}")
            selections = [[pool[i].paper.id for i in chosen]]
            selections += [draws.sample(pool_ids, args.count) for _ in range(3)]
            shuffled = shuffle_day(listing[day], day)
            day_posts = [shuffled.post(p) for p in posts if p.listing_day == day]

            results["cold"] += evaluate(profile, embedder, reference, shuffled, day_posts, None)
            for n, ids in enumerate(selections):
                positives["rate to start" if n == 0 else "random"].append(
                    sum(i in liked for i in ids)
                )
                with temporary_store() as scratch:
                    scratch.listings.save(
                        Listing(
                            day - timedelta(days=1), tuple(by_id[i] for i in ids), source="bench"
                        )
                    )
                    when = (day - timedelta(days=1)).isoformat() + "T12:00:00+00:00"
                    for paper_id in ids:
                        if args.oracle == "up-only" and paper_id not in liked:
                            continue
                        signal = Signal.UP if paper_id in liked else Signal.DOWN
                        scratch.feedback.add(paper_id, signal, source="web", created_at=when)
                    model = load_feedback(
                        scratch.feedback, scratch.listings, embedder, profile.rank, today=day
                    )
                    ranked = evaluate(profile, embedder, reference, shuffled, day_posts, model)
                (results["rate to start"] if n == 0 else random_runs[n - 1]).extend(ranked)
    print(
        f"{len(days)} listing days, {sum(len(v) for v in shown.values())} shown papers;"
        f" {args.count} ratings each, answered by the reader's recorded verdicts on other days"
    )
    print(f"{'':24s}{'R@5':>7s}{'R@10':>7s}{'nDCG@10':>9s}")
    for name, rows in [
        *results.items(),
        *((f"random {k + 1}", r) for k, r in enumerate(random_runs)),
    ]:
        m = point_metrics(rows)
        print(f"{name:24s}{m['recall@5']:7.3f}{m['recall@10']:7.3f}{m['ndcg@10']:9.3f}")
    for key in ("recall@5", "recall@10", "ndcg@10"):
        d, low, high = paired(results["cold"], results["rate to start"], key)
        print(f"rate to start - cold, {key}: {d:+.3f} [{low:+.3f}, {high:+.3f}]")
    print(
        f"positives among the {args.count}: rate to start"
        f" {statistics.mean(positives['rate to start']):.1f},"
        f" random {statistics.mean(positives['random']):.1f}"
    )


if __name__ == "__main__":
    main()
