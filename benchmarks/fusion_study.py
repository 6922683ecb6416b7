"""What else the reader's earlier feedback can teach the fusion of judge and cheap score.

Within shown, with every shown paper read (the recorded verdicts of ``--judge-replay``),
each day is ordered by a fusion learned walk-forward from the posts of earlier listing days
only (picked = kept, shown and not picked = passed over), and compared with the product's
fusion (``rank.fusion.learn_weight``: ``J + beta * C``; the product now centres ``C`` on the
evidence's mean, which orders each tier of a day the same) by paired bootstrap over listing
days. Each variant asks one question of the feedback, learned the product's way (the
weights that rank each earlier day's kept papers above its passed-over ones most often,
shrunk by ``n / (n + PRIOR_PICKS)``):

* two weights: is the learned taste (``components["feedback"]``) worth more next to the
  judge than the profile's part of the cheap score (the judge reads the profile itself)?
* line offsets: does the reader keep papers of some research line (the judge's line, or the
  cheap ranking's) more often than the judge rates them?
* the judge's fine score below its ★2 band: is it signal or noise (relevance floored at 35)?
* another learner of the same weight (a logistic regression of kept on J and C): does the
  product's pairwise learner leave anything on the table?

The last row, the best single weight in hindsight, is no method (it reads the evaluated
days): it bounds what any weight on the cheap score could do.

    .venv/bin/python benchmarks/fusion_study.py --listings ../shared/data/listings \\
        --picks ../shared/data/picks-dev.json \\
        --judge-replay tests/fixtures/rank/judge-replay-dev.json [--cache DB]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from _args import add_judge_replay, add_ranking_inputs

from paperbrief.profile import load_profile
from paperbrief.rank import Embedder
from paperbrief.rank.evaluate import EvaluatedDay, evaluate_ranking, view_ranks
from paperbrief.rank.fusion import PRIOR_PICKS, WEIGHTS, learn_weight
from paperbrief.rank.imported import RecordedPost
from paperbrief.rank.judge import judge_relevance, load_replay
from paperbrief.rank.metrics import PostResult, point_metrics, summarize
from paperbrief.store import open_store, temporary_store

OFFSETS = (-20.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0)  # judge points


@dataclass(frozen=True)
class Row:
    day: str
    post: int
    paper_id: str
    kept: bool
    judge: float
    cheap: float
    profile: float
    feedback: float
    judge_line: str
    cheap_line: str


Scorer = Callable[[Row], float]
Learner = Callable[[Sequence[Row]], Scorer]


def _auc_by_day(rows: Sequence[Row], score: Scorer) -> float:
    by_day: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_day[f"{row.day}/{row.post}"].append(row)
    aucs = []
    for group in by_day.values():
        pos = np.array([score(r) for r in group if r.kept])[:, None]
        neg = np.array([score(r) for r in group if not r.kept])[None, :]
        if pos.size and neg.size:
            aucs.append(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))
    return float(np.mean(aucs)) if aucs else 0.5


def _shrink(value: float, kept: int) -> float:
    return value * kept / (kept + PRIOR_PICKS)


def current(rows: Sequence[Row]) -> Scorer:
    beta, _ = learn_weight((r.day, r.kept, r.judge, r.cheap) for r in rows)
    return lambda r: r.judge + beta * r.cheap


def judge_alone(rows: Sequence[Row]) -> Scorer:
    return lambda r: r.judge


def two_weights(rows: Sequence[Row]) -> Scorer:
    kept = sum(r.kept for r in rows)
    best, best_auc = (0.0, 0.0), -1.0
    for a in WEIGHTS:
        for b in WEIGHTS:
            auc = _auc_by_day(rows, lambda r, a=a, b=b: r.judge + a * r.profile + b * r.feedback)
            if auc > best_auc + 1e-9:
                best, best_auc = (a, b), auc
    a, b = (_shrink(w, kept) for w in best)
    return lambda r: r.judge + a * r.profile + b * r.feedback


def line_offsets(field: str) -> Learner:
    def learn(rows: Sequence[Row]) -> Scorer:
        base = current(rows)
        offsets: dict[str, float] = {}
        for line in sorted({getattr(r, field) for r in rows}):
            kept = sum(r.kept for r in rows if getattr(r, field) == line)
            best, best_auc = 0.0, -1.0
            for offset in OFFSETS:
                shift = {**offsets, line: offset}
                auc = _auc_by_day(rows, lambda r, s=shift: base(r) + s.get(getattr(r, field), 0))
                if auc > best_auc + 1e-9 or (abs(auc - best_auc) < 1e-9 and offset == 0.0):
                    best, best_auc = offset, auc
            offsets[line] = _shrink(best, kept)
        return lambda r: base(r) + offsets.get(getattr(r, field), 0.0)

    return learn


def logistic(rows: Sequence[Row], l2: float = 1.0) -> Scorer:
    """Another learner of the same two weights: a logistic regression of kept on the judge's
    relevance (per 20 points, a band) and the cheap score, L2-penalised, by Newton steps."""
    if not any(r.kept for r in rows):
        return judge_alone(rows)
    x = np.array([[1.0, r.judge / 20, r.cheap] for r in rows])
    y = np.array([float(r.kept) for r in rows])
    penalty = np.diag([0.0, l2, l2])
    w = np.zeros(3)
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + penalty @ w
        hessian = (x.T * (p * (1 - p))) @ x + penalty + 1e-9 * np.eye(3)
        w -= np.linalg.solve(hessian, gradient)
    return lambda r: w[1] * r.judge / 20 + w[2] * r.cheap


def floored(rows: Sequence[Row]) -> Scorer:
    beta, _ = learn_weight((r.day, r.kept, max(r.judge, 35.0), r.cheap) for r in rows)
    return lambda r: max(r.judge, 35.0) + beta * r.cheap


def hindsight(all_rows: Sequence[Row]) -> Learner:
    best = max(WEIGHTS, key=lambda w: _auc_by_day(all_rows, lambda r: r.judge + w * r.cheap))
    return lambda rows: lambda r: r.judge + best * r.cheap


def evaluate(rows: Sequence[Row], posts: dict[tuple[str, int], RecordedPost], learner: Learner
             ) -> list[PostResult]:  # fmt: skip
    results = []
    days = sorted({r.day for r in rows})
    for day in days:
        score = learner([r for r in rows if r.day < day])
        for (post_day, index), post in sorted(posts.items()):
            if post_day != day:
                continue
            mine = [r for r in rows if r.day == day and r.post == index]
            order = sorted(mine, key=lambda r: (-score(r), -r.cheap, r.paper_id))
            ranks = view_ranks([r.paper_id for r in order], post, post.shown)
            results.append(PostResult(post, ranks))
    return results


def paired(a: Sequence[PostResult], b: Sequence[PostResult], seed: int = 7) -> dict[str, list]:
    """95 % bootstrap intervals of b - a, resampling listing days."""
    by_day: dict[object, list[int]] = defaultdict(list)
    for i, result in enumerate(a):
        by_day[result.post.listing_day].append(i)
    days = list(by_day)
    generator = random.Random(seed)
    deltas: dict[str, list[float]] = {"recall@5": [], "ndcg@10": []}
    for _ in range(1000):
        drawn = [i for _ in days for i in by_day[days[generator.randrange(len(days))]]]
        pa, pb = point_metrics([a[i] for i in drawn]), point_metrics([b[i] for i in drawn])
        for key in deltas:
            deltas[key].append(pb[key] - pa[key])
    return {
        k: [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))] for k, v in deltas.items()
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ranking_inputs(parser)
    add_judge_replay(parser, required=True)
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    replay = load_replay(args.judge_replay)
    rows: list[Row] = []
    posts: dict[tuple[str, int], RecordedPost] = {}

    def observe(day: EvaluatedDay) -> None:
        key = day.day.day.isoformat()
        rename = day.day.opaque
        verdicts = {rename.get(k, k): v for k, v in replay.verdicts.get(key, {}).items()}
        cheap = {s.paper.id: s for s in day.cheap}
        for index, post in enumerate(day.posts):
            posts[(key, index)] = post
            picked = {pid for pid, _ in post.picks}
            for pid in post.shown or ():
                verdict, scored = verdicts.get(pid), cheap[pid]
                if verdict is None:
                    continue
                c = scored.components
                rows.append(
                    Row(
                        key,
                        index,
                        pid,
                        pid in picked,
                        judge_relevance(verdict),
                        c["cheap"],
                        c["profile"],
                        c.get("feedback", 0.0),
                        verdict.line or "",
                        scored.line or "",
                    )  # fmt: skip
                )

    with open_store(args.cache) as store, temporary_store() as scratch:
        embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
        evaluate_ranking(args.listings, args.picks, profile, embedder, replay=scratch,
                         observe=observe)  # fmt: skip
    learners: list[tuple[str, Learner]] = [
        ("judge alone", judge_alone),
        ("product: J + beta*C", current),
        ("two weights: profile, taste", two_weights),
        ("logistic regression on J, C", logistic),
        ("offsets by the judge's line", line_offsets("judge_line")),
        ("offsets by the cheap line", line_offsets("cheap_line")),
        ("judge floored at 35", floored),
        ("best beta in hindsight (bound)", hindsight(rows)),
    ]
    base = evaluate(rows, posts, current)
    print(f"within shown, every shown paper read ({len(base)} posts, walk-forward):")
    for name, learner in learners:
        results = evaluate(rows, posts, learner)
        m = summarize(results)
        ci = m["ci95"]
        assert isinstance(ci, dict) and isinstance(m["recall"], dict)
        delta = paired(base, results)
        point, ref = point_metrics(results), point_metrics(base)
        print(
            f"  {name:32s} R@5 {m['recall']['5']:.3f} [{ci['recall@5'][0]:.2f},"
            f"{ci['recall@5'][1]:.2f}] nDCG@10 {m['ndcg@10']:.3f} [{ci['ndcg@10'][0]:.2f},"
            f"{ci['ndcg@10'][1]:.2f}] | vs product: R@5"
            f" {point['recall@5'] - ref['recall@5']:+.3f} [{delta['recall@5'][0]:+.2f},"
            f"{delta['recall@5'][1]:+.2f}] nDCG {point['ndcg@10'] - ref['ndcg@10']:+.3f}"
            f" [{delta['ndcg@10'][0]:+.2f},{delta['ndcg@10'][1]:+.2f}]",
            flush=True,
        )


if __name__ == "__main__":
    main()
