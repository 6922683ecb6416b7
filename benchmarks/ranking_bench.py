"""Ranking benchmark: the variants behind the choices in paperbrief.rank, with numbers.

Runs ``evaluate_ranking`` (the code path of ``paperbrief eval ranking``: every listing day
shuffled with opaque ids, walk-forward learning from shown papers, each day ranked against
its reference of earlier listing days) over a listings folder and a picks file, and prints
for each variant both views (within shown: R@5, R@10, nDCG@10, MRR; whole listing: R@20,
R@50, R@100) and the time per listing day. Then, for the default learner: the first and last
halves of the posts, the pick selection for several diversity settings, the stars the real
picks get, and the injection detector's flags over every listing of the folder.

With ``--judge-replay FILE`` (recorded judge answers, `paperbrief judge export` format:
per-paper verdicts with relevance, and first-screen relevance), within shown for the cheap
ranking alone, the judge alone (every shown paper read), the fusion with every shown paper
read, and the fusion as the product judges (the screen, the head within the day's token
budget, the recorded answers of the papers it asks about); and on the whole listing, how
many of the reader's picks the judged head holds, with the day's judge tokens; with
``--head-sweep``, the same for each way of choosing the head (``HEAD_VARIANTS``).

    .venv/bin/python benchmarks/ranking_bench.py \\
        --listings ../shared/data/listings --picks ../shared/data/picks-dev.json \\
        --profile examples/profile.toml [--cache /tmp/paperbrief-bench.db] [--quick]
        [--judge-replay judge-replay.json [--head-sweep]]

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

from _args import add_judge_replay, add_ranking_inputs

from paperbrief.profile import Profile, load_profile
from paperbrief.rank import Embedder, flags, select_picks
from paperbrief.rank.evaluate import (
    EvaluatedDay,
    EvaluationReport,
    evaluate_ranking,
    load_listing_file,
    view_ranks,
)
from paperbrief.rank.injection import flagged_papers
from paperbrief.rank.judge import Replay, apply_verdicts, judge_relevance, load_replay
from paperbrief.rank.metrics import PostResult, point_metrics, summarize
from paperbrief.rank.screen import choose_head
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
# How the judged head is chosen and sized, within the day's token budget (--head-sweep).
HEAD_VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("default", {}),
    ("always read 10", {"judge_always": 10}),
    ("screen top 200", {"screen_top_k": 200}),
    ("screen top 200, always 10", {"screen_top_k": 200, "judge_always": 10}),
    ("screen batches of 50", {"screen_batch_size": 50}),
    ("screen batches of 50, top 200", {"screen_batch_size": 50, "screen_top_k": 200}),
]


def with_rank(profile: Profile, **settings: object) -> Profile:
    return profile.model_copy(update={"rank": profile.rank.model_copy(update=settings)})


class DayLog:
    """What each evaluated day looked like, for the figures beyond the ranks."""

    def __init__(self) -> None:
        self.days: list[EvaluatedDay] = []

    def __call__(self, day: EvaluatedDay) -> None:
        if day.posts:
            self.days.append(day)

    def selection(self, profile: Profile) -> tuple[int, int, float]:
        """(real picks among the chosen, chosen, mean distinct lines among the chosen),
        picking among the papers the reader saw."""
        hits = chosen = 0
        lines = []
        for day in self.days:
            seen = {pid for post in day.posts for pid in post.shown or ()}
            shown = [s for s in day.ranking if not seen or s.paper.id in seen]
            picks = select_picks(shown, profile)
            ids = {p.paper.id for p in picks}
            lines.append(len({p.line for p in picks}))
            for post in day.posts:
                hits += len(ids & {pid for pid, _ in post.picks})
                chosen += len(ids)
        return hits, chosen, statistics.mean(lines) if lines else 0.0


def run(
    args: argparse.Namespace,
    profile: Profile,
    embedder: Embedder,
    learn: bool,
    observe: DayLog | None = None,
    replay: Replay | None = None,
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
            judge_replay=replay,
        )
    return report, time.perf_counter() - started


HEADER = (
    f"{'variant':32s}{'R@5':>7s}{'R@10':>7s}{'nDCG':>7s}{'MRR':>7s}"
    f" |{'W@20':>7s}{'W@50':>7s}{'W@100':>7s} |{'s/day':>7s}{'total s':>8s}"
)


def recall(metrics: dict[str, object], k: int) -> float:
    values = metrics["recall"]
    assert isinstance(values, dict)
    return float(values[str(k)])


def line(name: str, shown: dict[str, object], whole: dict[str, object], per_day: float,
         total: float) -> str:  # fmt: skip
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


def star_counts(days: Sequence[EvaluatedDay], final: bool = True) -> str:
    stars = collections.Counter(
        s.stars
        for day in days
        for s in (day.ranking if final else day.cheap)
        for post in day.posts
        for pid, _ in post.picks
        if s.paper.id == pid
    )
    total = sum(stars.values()) or 1
    return (
        f"{dict(sorted(stars.items()))}: 2-3 stars {(stars[2] + stars[3]) / total:.3f},"
        f" 4-5 stars {(stars[4] + stars[5]) / total:.3f}"
    )


def star_room(days: Sequence[EvaluatedDay], profile: Profile) -> str:
    """What the stars leave room for. The recorded picks are a few of the 50 papers the
    reader was shown, a tenth of the day, so however well the day is ordered, no more of
    them can reach 2 stars than the shown papers at 2 stars or more (per post, at most the
    post's picks): that share bounds the picks' 2+ share. And the stars of the picks the
    product itself publishes from the whole listing (``select_picks``), the reader's own
    sense of "most picks 2-3 stars, 4-5 rare"."""
    room = picks = 0
    strong: list[int] = []
    own: collections.Counter[int] = collections.Counter()
    for day in days:
        stars = {s.paper.id: s.stars for s in day.ranking}
        for post in day.posts:
            shown = [stars[pid] for pid in post.shown or () if pid in stars]
            above = sum(1 for star in shown if star >= 2)
            strong.append(above)
            room += min(above, len(post.picks))
            picks += len(post.picks)
        own.update(s.stars for s in select_picks(day.ranking, profile))
    total = sum(own.values()) or 1
    return (
        f"shown papers at 2+ stars per post: mean {statistics.mean(strong):.1f}"
        f" ({min(strong)}-{max(strong)}): at most {room / max(picks, 1):.3f} of the picks can"
        f" reach 2 stars; the product's own picks over the whole listing"
        f" {dict(sorted(own.items()))}: 2-3 stars {(own[2] + own[3]) / total:.3f},"
        f" 4-5 stars {(own[4] + own[5]) / total:.3f}"
    )


def head_order(day: EvaluatedDay, profile: Profile) -> list[str]:
    """The order ``rank.screen.choose_head`` takes the day's papers in, with no budget."""
    assert day.judged is not None
    usable = [s for s in day.cheap if not flags.has(s, flags.INSTRUCTIONS)]
    head = choose_head(
        usable[: profile.rank.screen_top_k],
        day.judged.screens,
        always=profile.rank.judge_always,
        most=len(usable),
        budget=len(usable),
        cost=lambda scored: 1,
    )
    return [s.paper.id for s in head.papers]


# Head sizes, as shares of each day's, at which the head's hold on the picks is shown too:
# a share that holds only at the day's exact budget hinges on the papers at its edge.
HEAD_SCALES = (0.8, 0.9, 1.1, 1.2)


def head_share(days: Sequence[EvaluatedDay], profile: Profile) -> str:
    """The whole listing: how many of the reader's picks the judged head holds (of all
    picks, and of those the day's listing holds at all: a pick missing from it no head can
    hold), and the day's judge tokens; where the picks it misses stand in the order the head
    is taken in; and the share the head would hold at other sizes (``HEAD_SCALES``)."""
    picks = held = screened = listed = 0
    at_scale = dict.fromkeys(HEAD_SCALES, 0)
    sizes, tokens, screen_tokens, prefix, requests = [], [], [], [], []
    missed: list[str] = []
    for day in days:
        assert day.judged is not None
        head = set(day.judged.head)
        in_listing = {s.paper.id for s in day.cheap}
        taken = head_order(day, profile)
        order = {pid: n + 1 for n, pid in enumerate(taken)}
        for post in day.posts:
            for pid, _ in post.picks:
                picks += 1
                listed += pid in in_listing
                held += pid in head
                screened += pid in day.judged.screens or pid in head
                for scale in HEAD_SCALES:
                    at_scale[scale] += order.get(pid, len(order) + 1) <= round(scale * len(head))
                if pid not in head:
                    missed.append(
                        str(order.get(pid, "unscreened" if pid in in_listing else "not listed"))
                    )
        sizes.append(len(head))
        tokens.append(day.judged.tokens.prompt)
        screen_tokens.append(day.judged.tokens.screen_prompt)
        prefix.append(day.judged.tokens.prefix_share)
        requests.append(day.judged.tokens.screen_requests)
    scaled = ", ".join(f"x{k:.1f} {v / max(listed, 1):.3f}" for k, v in at_scale.items())
    return (
        f"the judged head holds {held}/{picks} = {held / max(picks, 1):.3f}"
        f" of the reader's picks, {held}/{listed} = {held / max(listed, 1):.3f} of those listed"
        f" (screened or read: {screened / max(picks, 1):.3f});"
        f" of those listed at other head sizes (x the day's): {scaled};"
        f" head {min(sizes)}-{max(sizes)} papers (mean {statistics.mean(sizes):.0f});"
        f" judge prompt tokens per day max {max(tokens):,}, mean {statistics.mean(tokens):,.0f}"
        f" (screen mean {statistics.mean(screen_tokens):,.0f},"
        f" {min(requests)}-{max(requests)} screen requests a day, re-screens included);"
        f" shared prefix {min(prefix):.3f}-{max(prefix):.3f};"
        f" the picks it misses would enter the head at {', '.join(missed) or 'none'}"
    )


def stars_by_tier(days: Sequence[EvaluatedDay]) -> str:
    """The real picks' stars in the final ranking, by their best evidence (``rank.calibrate``
    tiers: read in full, only screened, only the cheap score)."""
    tiers: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for day in days:
        by_id = {s.paper.id: s for s in day.ranking}
        for post in day.posts:
            for pid, _ in post.picks:
                if (s := by_id.get(pid)) is None:
                    continue
                tier = (
                    "judged"
                    if "judge_relevance" in s.components
                    else "screened"
                    if "screen" in s.components
                    else "cheap"
                )
                tiers[tier][s.stars] += 1
    return "; ".join(f"{tier} {dict(sorted(c.items()))}" for tier, c in sorted(tiers.items()))


def judged_views(days: Sequence[EvaluatedDay], replay: Replay, profile: Profile) -> None:
    """Within shown: cheap alone, judge alone, fused (all shown read), fused as judged."""
    orders: dict[str, list[tuple[EvaluatedDay, list[str]]]] = collections.defaultdict(list)
    for day in days:
        rename = day.day.opaque
        verdicts = {
            rename.get(k, k): v for k, v in replay.verdicts.get(day.day.day.isoformat(), {}).items()
        }
        screens = {
            rename.get(k, k): v for k, v in replay.screens.get(day.day.day.isoformat(), {}).items()
        }
        cheap = [s.paper.id for s in day.cheap]
        position = {pid: i for i, pid in enumerate(cheap)}
        judge_alone = sorted(
            cheap,
            key=lambda pid: (
                -judge_relevance(verdicts[pid]) if pid in verdicts else 1,
                position[pid],
            ),
        )
        fused_all = apply_verdicts(day.cheap, verdicts, screens, day.reader.reader, profile)
        orders["cheap ranking alone"].append((day, cheap))
        orders["judge alone (all shown read)"].append((day, judge_alone))
        orders["fused, all shown read"].append((day, [s.paper.id for s in fused_all]))
        orders["fused, as the product judges"].append((day, [s.paper.id for s in day.ranking]))
    print(f"\nwithin shown, with the judge replay ({sum(len(d.posts) for d in days)} posts):")
    print(f"{'':34s}{'R@5':>16s}{'R@10':>8s}{'nDCG@10':>18s}{'MRR':>8s}")
    for name, runs in orders.items():
        results = [
            PostResult(post, view_ranks(order, post, post.shown))
            for day, order in runs
            for post in day.posts
        ]
        m = summarize(results)
        ci = m["ci95"]
        assert isinstance(ci, dict)
        # one listing day has no bootstrap interval (nothing to resample)
        r5, ndcg = ci.get("recall@5"), ci.get("ndcg@10")
        r5_ci = f" [{r5[0]:.2f},{r5[1]:.2f}]" if r5 else " [  -  ,  - ]"
        ndcg_ci = f" [{ndcg[0]:.2f},{ndcg[1]:.2f}]" if ndcg else " [  -  ,  - ]"
        print(
            f"{name:34s}{recall(m, 5):7.3f}{r5_ci}{recall(m, 10):8.3f}"
            f"{m['ndcg@10']:8.3f}{ndcg_ci}{m['mrr']:8.3f}"
        )
    print(f"\nwhole listing: {head_share(days, profile)}")
    fusion = [d.reader.reader.fusion for d in days]
    print(
        "fusion weights learned walk-forward (judge points per reference z):"
        f" beta {', '.join(f'{f.beta:.1f}' for f in fusion)};"
        f" gamma (screen) {', '.join(f'{f.gamma:.1f}' for f in fusion)}"
    )
    print(f"stars of the real picks, as judged: {star_counts(days)}")
    print(f"  room: {star_room(days, profile)}")
    print(f"  by the evidence behind them: {stars_by_tier(days)}")
    print(f"stars of the real picks, cheap ranking: {star_counts(days, final=False)}")


def head_sweep(
    args: argparse.Namespace, profile: Profile, embedder: Embedder, replay: Replay
) -> None:
    """Each way of choosing the head: its share of the picks on the whole listing, its
    tokens, and the fused ranking within shown as the product judges."""
    print("\nthe judged head, by how it is chosen (same replay, same budget):")
    for name, settings in HEAD_VARIANTS:
        log = DayLog()
        variant = with_rank(profile, **settings)
        report, _ = run(args, variant, embedder, True, log, replay)
        shown = report.primary.system
        print(
            f"  {name}: R@5 {recall(shown, 5):.3f} nDCG@10 {shown['ndcg@10']:.3f};"
            f" {head_share(log.days, variant)}; picks' stars {star_counts(log.days)}",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ranking_inputs(parser)
    parser.add_argument("--since", type=date.fromisoformat, default=None)
    parser.add_argument("--until", type=date.fromisoformat, default=None)
    parser.add_argument("--quick", action="store_true", help="Default variants only.")
    parser.add_argument("--model", default=None, help="Embedding model (default: profile's).")
    add_judge_replay(parser)
    parser.add_argument(
        "--head-sweep", action="store_true", help="With --judge-replay: head sizing variants."
    )
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    if args.model:
        profile = with_rank(profile, embedding_model=args.model)
    variants = VARIANTS[:2] if args.quick else VARIANTS
    print(f"embedding model {profile.rank.embedding_model}")
    print(f"{'':32s}{'within shown':^28s} |{'whole listing, ids shuffled':^21s} |")
    print(HEADER)
    log = DayLog()
    default: EvaluationReport | None = None
    with open_store(args.cache) as store:
        embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
        for name, learn, settings in variants:
            observe = log if learn and not settings else None
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
        if args.judge_replay is not None:
            replay = load_replay(args.judge_replay)
            judged_log = DayLog()
            run(args, profile, embedder, True, judged_log, replay)
            judged_views(judged_log.days, replay, profile)
            if args.head_sweep:
                head_sweep(args, profile, embedder, replay)
    print(f"\n--learn by halves: {halves(default)}")
    print("\npick selection under --learn, among the papers the reader saw"
          f" ({profile.picks_per_day} picks, min_stars {profile.min_stars}):")  # fmt: skip
    for diversity in DIVERSITY:
        hits, chosen, lines = log.selection(with_rank(profile, diversity=diversity))
        print(
            f"  diversity {diversity:.1f}: {hits}/{chosen} chosen were real picks"
            f" ({hits / max(chosen, 1):.3f}); {lines:.2f} research lines per day"
        )
    reader_lines = [
        len(
            {
                s.line
                for s in day.ranking
                if s.paper.id in {pid for p in day.posts for pid, _ in p.picks}
            }
        )
        for day in log.days
    ]
    print(f"  the reader's own picks span {statistics.mean(reader_lines):.2f} lines per day")
    print(f"\nstars of the real picks under --learn: {star_counts(log.days)}")
    flagged = sum(flags.has(s, flags.INSTRUCTIONS) for day in log.days for s in day.ranking)
    print(f"papers flagged for instructions in the evaluated listings: {flagged}")
    print(injection_scan(args.listings))


if __name__ == "__main__":
    main()
