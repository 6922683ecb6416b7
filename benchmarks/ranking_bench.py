"""Ranking benchmark: the variants behind the choices in paperbrief.rank, with numbers.

Runs ``evaluate_ranking`` (the code path of ``paperbrief eval ranking``: every listing day
shuffled with opaque ids, walk-forward learning from shown papers) over a listings folder
and a picks file, and prints for each variant both views (within shown: R@5, R@10,
nDCG@10, MRR; whole listing: R@20, R@50, R@100) and the time per listing day. Then, for
the default learner: the first and last halves of the posts, the pick selection (how many
of the chosen picks the reader really picked, among the papers they saw, and how many
research lines the picks span) for several diversity settings, the stars the real picks
get, and the injection detector's flags over every listing of the folder.

    .venv/bin/python benchmarks/ranking_bench.py \\
        --listings ../shared/data/listings --picks ../shared/data/picks-dev.json \\
        --profile examples/profile.toml [--cache /tmp/paperbrief-bench.db] [--quick]

Embeddings are cached in ``--cache`` (a paperbrief store), so only the first run embeds.
Timings are wall-clock on this machine; when other jobs share its cores they are noisy.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from paperbrief.models import ScoredPaper
from paperbrief.profile import Profile, load_profile
from paperbrief.rank import Embedder, flags, select_picks
from paperbrief.rank.evaluate import (
    EvaluationReport,
    ShuffledDay,
    evaluate_ranking,
    load_listing_file,
)
from paperbrief.rank.imported import RecordedPost
from paperbrief.rank.injection import flagged_papers
from paperbrief.rank.metrics import point_metrics
from paperbrief.store import open_store, temporary_store

# (name, learn, [rank] settings)
VARIANTS: list[tuple[str, bool, dict[str, object]]] = [
    ("profile only (no feedback)", False, {}),
    ("--learn (default)", True, {}),
    ("--learn, taste weight 0.5", True, {"feedback_weight": 0.5}),
    ("--learn, taste weight 2", True, {"feedback_weight": 2.0}),
    ("--learn, no evidence ramp", True, {"feedback_ramp_positives": 1}),
    ("--learn, ramp 40 positives", True, {"feedback_ramp_positives": 40}),
    ("--learn, no recency decay", True, {"feedback_half_life_days": 0.0}),
    ("--learn, half-life 20 days", True, {"feedback_half_life_days": 20.0}),
]
DIVERSITY = (0.0, 0.3, 0.6, 1.0)


def with_rank(profile: Profile, **settings: object) -> Profile:
    return profile.model_copy(update={"rank": profile.rank.model_copy(update=settings)})


class PickLog:
    """Each day's ranking restricted to what the reader saw, for pick-selection figures."""

    def __init__(self) -> None:
        self.days: list[tuple[list[ScoredPaper], list[RecordedPost]]] = []

    def __call__(
        self, day: ShuffledDay, ranking: list[ScoredPaper], posts: list[RecordedPost]
    ) -> None:
        seen = {pid for post in posts for pid in post.shown or ()}
        shown = [s for s in ranking if not seen or s.paper.id in seen]
        self.days.append((shown, posts))

    def selection(self, profile: Profile) -> tuple[int, int, float]:
        """(real picks among the chosen, chosen, mean distinct lines among the chosen)."""
        hits = chosen = 0
        lines = []
        for shown, posts in self.days:
            picks = select_picks(shown, profile)
            ids = {p.paper.id for p in picks}
            lines.append(len({p.line for p in picks}))
            for post in posts:
                hits += len(ids & {pid for pid, _ in post.picks})
                chosen += len(ids)
        return hits, chosen, statistics.mean(lines) if lines else 0.0


def run(
    args: argparse.Namespace,
    profile: Profile,
    embedder: Embedder,
    learn: bool,
    observe: PickLog | None = None,
) -> tuple[EvaluationReport, float]:
    started = time.perf_counter()
    with temporary_store() as scratch:
        report = evaluate_ranking(
            args.listings,
            args.picks,
            profile,
            embedder,
            replay=scratch if learn else None,
            since=args.since,
            until=args.until,
            observe=observe,
        )
    return report, time.perf_counter() - started


HEADER = (
    f"{'variant':32s}{'R@5':>7s}{'R@10':>7s}{'nDCG':>7s}{'MRR':>7s}"
    f" |{'W@20':>7s}{'W@50':>7s}{'W@100':>7s} |{'s/day':>7s}{'total s':>8s}"
)


def line(name: str, shown: dict[str, object], whole: dict[str, object], per_day: float,
         total: float) -> str:  # fmt: skip
    def recall(metrics: dict[str, object], k: int) -> float:
        values = metrics["recall"]
        assert isinstance(values, dict)
        return float(values[str(k)])

    return (
        f"{name:32s}{recall(shown, 5):7.3f}{recall(shown, 10):7.3f}{shown['ndcg@10']:7.3f}"
        f"{shown['mrr']:7.3f} |{recall(whole, 20):7.3f}{recall(whole, 50):7.3f}"
        f"{recall(whole, 100):7.3f} |{per_day:7.2f}{total:8.1f}"
    )


def halves(report: EvaluationReport) -> str:
    shown, whole = report.primary.per_post, report.whole_listing.per_post
    middle = len(shown) // 2
    cells = []
    for name, part in (("first", slice(0, middle)), ("last", slice(middle, None))):
        inside, outside = point_metrics(shown[part]), point_metrics(whole[part])
        cells.append(
            f"{name} {len(shown[part])} posts: R@5 {inside['recall@5']:.3f}"
            f" nDCG@10 {inside['ndcg@10']:.3f} W@20 {outside['recall@20']:.3f}"
            f" W@50 {outside['recall@50']:.3f}"
        )
    return "; ".join(cells)


def injection_scan(listings: Path) -> str:
    seen: set[str] = set()
    flagged: dict[str, str] = {}
    started = time.perf_counter()
    for path in sorted(listings.glob("*.jsonl*")):
        papers = [p for p in load_listing_file(path) if p.id not in seen]
        seen.update(p.id for p in papers)
        flagged.update(flagged_papers(papers))
    elapsed = time.perf_counter() - started
    text = f"injection detector: {len(flagged)} of {len(seen)} distinct listed papers flagged"
    text += f" ({elapsed:.1f} s including reading the files)"
    return text + "".join(f"\n  {pid}: {sentence}" for pid, sentence in flagged.items())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=Path, required=True)
    parser.add_argument("--picks", type=Path, required=True)
    parser.add_argument("--profile", type=Path, default=Path("examples/profile.toml"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/paperbrief-bench.db"))
    parser.add_argument("--since", type=date.fromisoformat, default=None)
    parser.add_argument("--until", type=date.fromisoformat, default=None)
    parser.add_argument("--quick", action="store_true", help="Default variants only.")
    parser.add_argument("--model", default=None, help="Embedding model (default: profile's).")
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    if args.model:
        profile = with_rank(profile, embedding_model=args.model)
    variants = VARIANTS[:2] if args.quick else VARIANTS
    print(f"embedding model {profile.rank.embedding_model}")
    print(f"{'':32s}{'within shown':^28s} |{'whole listing, ids shuffled':^21s} |")
    print(HEADER)
    picks = PickLog()
    default: EvaluationReport | None = None
    with open_store(args.cache) as store:
        embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
        for name, learn, settings in variants:
            observe = picks if learn and not settings else None
            report, total = run(args, with_rank(profile, **settings), embedder, learn, observe)
            shown, whole = report.primary.system, report.whole_listing.system
            print(line(name, shown, whole, report.seconds_per_day, total), flush=True)
            if observe is not None:
                default = report
        assert default is not None
        for baseline in default.primary.baselines:
            shown = default.primary.baselines[baseline]
            whole = default.whole_listing.baselines[baseline]
            print(line(f"baseline: {baseline}", shown, whole, 0.0, 0.0))
    print(f"\n--learn by halves: {halves(default)}")
    print("\npick selection under --learn, among the papers the reader saw"
          f" ({profile.picks_per_day} picks, min_stars {profile.min_stars}):")  # fmt: skip
    for diversity in DIVERSITY:
        hits, chosen, lines = picks.selection(with_rank(profile, diversity=diversity))
        print(
            f"  diversity {diversity:.1f}: {hits}/{chosen} chosen were real picks"
            f" ({hits / max(chosen, 1):.3f}); {lines:.2f} research lines per day"
        )
    reader = [
        len({s.line for s in shown if s.paper.id in {pid for p in posts for pid, _ in p.picks}})
        for shown, posts in picks.days
    ]
    print(f"  the reader's own picks span {statistics.mean(reader):.2f} lines per day")
    stars = collections.Counter(s for r in default.per_post for s in r.pick_stars if s)
    print(f"\nstars of the real picks under --learn: {dict(sorted(stars.items()))}")
    flagged = sum(flags.has(s, flags.INSTRUCTIONS) for shown, _ in picks.days for s in shown)
    print(f"papers flagged for instructions among the shown papers: {flagged}")
    print(injection_scan(args.listings))


if __name__ == "__main__":
    main()
