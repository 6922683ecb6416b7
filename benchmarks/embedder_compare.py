"""Two embedding models on the same ranking evaluation, with paired bootstrap intervals.

Runs ``evaluate_ranking`` (the code path of ``paperbrief eval ranking``) once per model,
profile only and with ``--learn``, and prints each model's within-shown R@5, R@10,
nDCG@10 and whole-listing W@20, W@50, then the difference (second − first) with a 95 %
bootstrap interval over posts (the posts are paired: both models rank the same days).

    .venv/bin/python benchmarks/embedder_compare.py \\
        --listings /work/shared/data/listings --picks /work/shared/data/picks-dev.json \\
        all-MiniLM-L6-v2=/tmp/bench-torch.db all-MiniLM-L6-v2@onnx-int8-t128=/tmp/bench-onnx.db

Each MODEL=CACHE names a paperbrief store holding that model's vectors (fill it with
``benchmarks/ranking_bench.py --model MODEL --cache CACHE``); a model is loaded only for
texts missing there, so the torch model needs the ``[minilm]`` extra only then.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from _args import add_ranking_inputs

from paperbrief.profile import Profile, load_profile
from paperbrief.rank import Embedder
from paperbrief.rank.evaluate import PostResult, evaluate_ranking
from paperbrief.rank.metrics import point_metrics
from paperbrief.store import open_store, temporary_store

METRICS = (("R@5", "recall@5", False), ("R@10", "recall@10", False),
           ("nDCG@10", "ndcg@10", False), ("W@20", "recall@20", True),
           ("W@50", "recall@50", True))  # fmt: skip
ROUNDS = 2000


def evaluate(args: argparse.Namespace, profile: Profile, model: str, cache: Path, learn: bool
             ) -> tuple[list[PostResult], list[PostResult]]:  # fmt: skip
    """(within-shown, whole-listing) results per post for one model."""
    profile = profile.model_copy(
        update={"rank": profile.rank.model_copy(update={"embedding_model": model})}
    )
    with open_store(cache) as store, temporary_store() as scratch:
        embedder = Embedder(cache=store.embeddings, model_name=model)
        report = evaluate_ranking(
            args.listings, args.picks, profile, embedder, replay=scratch if learn else None
        )
    return report.primary.per_post, report.whole_listing.per_post


def interval(first: list[PostResult], second: list[PostResult], key: str) -> tuple[float, ...]:
    """The difference of ``key`` (second − first) and its 95 % paired bootstrap interval."""
    chance = random.Random(13)
    posts = range(len(first))
    draws = []
    for _ in range(ROUNDS):
        chosen = [chance.choice(posts) for _ in posts]
        a = point_metrics([first[i] for i in chosen])[key]
        b = point_metrics([second[i] for i in chosen])[key]
        draws.append(b - a)
    draws.sort()
    delta = point_metrics(second)[key] - point_metrics(first)[key]
    return delta, draws[int(0.025 * ROUNDS)], draws[int(0.975 * ROUNDS) - 1]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ranking_inputs(parser, cache=False)  # each MODEL=CACHE names its own store
    parser.add_argument("models", nargs=2, metavar="MODEL=CACHE")
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    pairs = [(m, Path(c)) for m, c in (spec.split("=", 1) for spec in args.models)]
    for learn in (False, True):
        print("--learn (default)" if learn else "profile only (no feedback)")
        runs = [evaluate(args, profile, model, cache, learn) for model, cache in pairs]
        for (model, _), (shown, whole) in zip(pairs, runs, strict=True):
            cells = [
                f"{name} {point_metrics(whole if outside else shown)[key]:.3f}"
                for name, key, outside in METRICS
            ]
            print(f"  {model:34s} " + "  ".join(cells))
        cells = []
        for name, key, outside in METRICS:
            view = 1 if outside else 0
            delta, low, high = interval(runs[0][view], runs[1][view], key)
            cells.append(f"{name} {delta:+.3f} [{low:+.3f}, {high:+.3f}]")
        print(f"  {'difference (2nd − 1st), 95 % CI':34s} " + "  ".join(cells))


if __name__ == "__main__":
    main()
