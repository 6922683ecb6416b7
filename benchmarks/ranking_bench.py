"""Ranking benchmark: the variants behind the choices in paperbrief.rank, with numbers.

Runs ``evaluate_ranking`` (the code path of ``paperbrief eval ranking``) over a listings
folder and a picks file for several variants and prints recall@k / nDCG@10 / MRR and wall
time for each, plus the star distribution of the real picks.

    .venv/bin/python benchmarks/ranking_bench.py \\
        --listings ../shared/data/listings --picks ../shared/data/picks-dev.json \\
        --profile examples/profile.toml [--cache /tmp/paperbrief-bench.db]

Embeddings are cached in ``--cache`` (a paperbrief store), so only the first run embeds.
"""

from __future__ import annotations

import argparse
import collections
import time
from datetime import date
from pathlib import Path

from paperbrief.profile import load_profile
from paperbrief.rank import Embedder
from paperbrief.rank.evaluate import CUTOFFS, evaluate_ranking
from paperbrief.store import open_store, temporary_store

VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("profile only (no feedback)", {"learn": False}),
    ("--learn (default)", {"learn": True}),
    ("--learn, no submission order", {"learn": True, "settings": {"use_submission_order": False}}),
    ("--learn, feedback weight 3", {"learn": True, "settings": {"weight": 3.0}}),
    ("--learn, no evidence ramp", {"learn": True, "settings": {"full_weight_positives": 1}}),
    ("--learn, half-life 10 days", {"learn": True, "settings": {"half_life_days": 10.0}}),
    ("--learn, half-life 90 days", {"learn": True, "settings": {"half_life_days": 90.0}}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=Path, required=True)
    parser.add_argument("--picks", type=Path, required=True)
    parser.add_argument("--profile", type=Path, default=Path("examples/profile.toml"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/paperbrief-bench.db"))
    parser.add_argument("--since", type=date.fromisoformat, default=None)
    args = parser.parse_args()
    profile = load_profile(args.profile)
    header = f"{'variant':34s}" + "".join(f"{'R@' + str(k):>7s}" for k in CUTOFFS)
    print(header + f"{'nDCG@10':>9s}{'MRR':>7s}{'time s':>8s}")
    with open_store(args.cache) as store:
        embedder = Embedder(cache=store.embeddings)
        baselines = None
        default_stars: dict[int, int] = {}
        for name, variant in VARIANTS:
            started = time.perf_counter()
            with temporary_store() as scratch:
                report = evaluate_ranking(
                    args.listings,
                    args.picks,
                    profile,
                    embedder,
                    replay=scratch if variant["learn"] else None,
                    since=args.since,
                    feedback_settings=variant.get("settings"),  # type: ignore[arg-type]
                )
            elapsed = time.perf_counter() - started
            print(_line(name, report.system, elapsed), flush=True)
            baselines = report.baselines
            if variant["learn"] and "settings" not in variant:
                stars = collections.Counter(s for r in report.per_post for s in r.pick_stars if s)
                default_stars = dict(sorted(stars.items()))
        assert baselines is not None
        for name, metrics in baselines.items():
            print(_line(f"baseline: {name}", metrics, 0.0))
    print(f"stars of the real picks under --learn: {default_stars}")


def _line(name: str, metrics: dict[str, object], elapsed: float) -> str:
    recall = metrics["recall"]
    assert isinstance(recall, dict)
    cells = "".join(f"{recall[str(k)]:7.3f}" for k in CUTOFFS)
    return f"{name:34s}{cells}{metrics['ndcg@10']:9.3f}{metrics['mrr']:7.3f}{elapsed:8.1f}"


if __name__ == "__main__":
    main()
