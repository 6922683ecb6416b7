"""Absolute stars on the development days: a paper's stars in days of 5, 50, 500 and 5,000
papers, the five-paper day, and the stars of the reader's picks.

For every evaluated listing day (walk-forward, through ``evaluate_ranking``: the reader as
they stood before that day), each of the reader's picks is ranked again inside synthetic
days of 5, 50, 500 and 5,000 papers: itself plus papers drawn at random from listing days
*after* the last development day (``--pool-from``), with the day's reader. It prints how far
each pick's stars move across the four sizes. Then each day's picks (at most five) are ranked
alone, as a five-paper day, and published through ``select_picks``: how many of them reach
the picks. With ``--judge-replay`` the synthetic days are judged too (the judge reads what it
would read in a day of that size: the screen and the head within the budget, answered from
the replay; papers without a recorded answer get none).

    .venv/bin/python benchmarks/star_bench.py --listings ../shared/data/listings \\
        --picks ../shared/data/picks-dev.json [--judge-replay FILE] [--cache FILE]
"""

from __future__ import annotations

import argparse
import collections
import random
import time
from datetime import date
from pathlib import Path

from paperbrief.models import Paper
from paperbrief.profile import load_profile
from paperbrief.rank import Embedder, rank_for, select_picks
from paperbrief.rank.evaluate import EvaluatedDay, evaluate_ranking, load_listing_file
from paperbrief.rank.judge import Replay, ReplayAnswers, judge_ranking, load_replay
from paperbrief.store import open_store, temporary_store

SIZES = (5, 50, 500, 5000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=Path, required=True)
    parser.add_argument("--picks", type=Path, required=True)
    parser.add_argument("--profile", type=Path, default=Path("examples/profile.toml"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/paperbrief-bench.db"))
    parser.add_argument("--judge-replay", type=Path, default=None)
    parser.add_argument(
        "--pool-from",
        type=date.fromisoformat,
        default=date(2026, 5, 25),
        help="papers of the synthetic days come from listing days from this one on",
    )
    args = parser.parse_args()
    profile = load_profile(args.profile)
    replay: Replay | None = load_replay(args.judge_replay) if args.judge_replay else None
    pool: list[Paper] = []
    for path in sorted(args.listings.glob("*.jsonl*")):
        if date.fromisoformat(path.name[:10]) >= args.pool_from:
            pool += load_listing_file(path)
    print(f"synthetic days drawn from {len(pool)} papers listed from {args.pool_from} on")
    rng = random.Random(19)
    moves: collections.Counter[int] = collections.Counter()
    by_size: dict[int, collections.Counter[int]] = {n: collections.Counter() for n in SIZES}
    alone: collections.Counter[int] = collections.Counter()
    published = offered = empty = 0
    started = time.perf_counter()
    with open_store(args.cache) as cache, temporary_store() as scratch:
        embedder = Embedder(cache=cache.embeddings, model_name=profile.rank.embedding_model)

        def observe(day: EvaluatedDay) -> None:
            nonlocal published, offered, empty
            by_id = {s.paper.id: s for s in day.ranking}
            picks = list(
                dict.fromkeys(pid for post in day.posts for pid, _ in post.picks if pid in by_id)
            )
            if not picks:
                return
            true_of = {v: k for k, v in day.day.opaque.items()}
            answers = None
            if replay is not None:
                key = day.day.day.isoformat()
                answers = ReplayAnswers(replay.verdicts.get(key, {}), replay.screens.get(key, {}))
            reader = day.reader

            def rank(papers: list[Paper]) -> list:  # type: ignore[type-arg]
                cheap = rank_for(papers, profile, embedder, reader)
                if answers is None:
                    return cheap
                return judge_ranking(cheap, profile, answers, reader.reader).ranking

            def real(paper: Paper) -> Paper:
                # The replay names true arXiv ids: a pick travels under its own id here.
                return Paper(**{**vars(paper), "id": true_of.get(paper.id, paper.id)})

            for paper_id in picks:
                paper = real(by_id[paper_id].paper)
                stars = []
                for size in SIZES:
                    ranked = rank([paper, *rng.sample(pool, size - 1)])
                    mine = next(s.stars for s in ranked if s.paper.id == paper.id)
                    by_size[size][mine] += 1
                    stars.append(mine)
                moves[max(stars) - min(stars)] += 1
            five = [real(by_id[pid].paper) for pid in picks[:5]]
            ranked = rank(five)
            alone.update(s.stars for s in ranked)
            chosen = len(select_picks(ranked, profile))
            published += chosen
            empty += chosen == 0
            offered += 1

        evaluate_ranking(args.listings, args.picks, profile, embedder, replay=scratch,
                         judge_replay=replay, observe=observe)  # fmt: skip
    total = sum(moves.values())
    print(f"\n{total} picks, each ranked in days of {', '.join(map(str, SIZES))} papers"
          f" ({'with the judge replay' if replay else 'no LLM'}):")  # fmt: skip
    print(f"  largest star move per pick: {dict(sorted(moves.items()))}")
    print(f"  moved by at most one star: {sum(v for k, v in moves.items() if k <= 1) / total:.3f}")
    for size, counts in by_size.items():
        print(f"  stars in days of {size:>5}: {dict(sorted(counts.items()))}")
    print(f"\nthe picks of each day ranked alone ({offered} five-paper days):")
    per_day = published / max(offered, 1)
    print(f"  stars {dict(sorted(alone.items()))}; published {published} picks"
          f" ({per_day:.2f} a day); days publishing nothing: {empty}")  # fmt: skip
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
