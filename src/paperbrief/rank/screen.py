"""The judge's first screen and the head it reads in full, sized by the day's token budget.

A per-paper reading costs about 2.3k prompt tokens (the shared reader prefix, ~1.9k, plus the
paper; ``benchmarks/judge_requests.py sizes`` prints its parts); a day's budget
(``[rank] judge_prompt_tokens``) buys some 115 of them after the screen, while the reader's
picks are spread over the cheap ranking's top 200-300. So the cheap top ``screen_top_k`` are
first screened from title and gist, ``screen_batch_size`` to a request (about 55 tokens a
paper), and the per-paper judge reads the head, as many papers as the budget left by the
screen pays for at each paper's measured request (``judge_top_k`` only a ceiling):

* the cheap top ``judge_always``, whatever the screen said: text injected into one screened
  title cannot hide the day's strongest papers;
* then the screened papers by their screen relevance ``S``, ties in the cheap order, while
  the budget lasts (and up to ``judge_top_k`` papers in all, when it is set).

The head is there to catch what the reader would pick (recall at its cut), not to order the
day: the cheap score already chose what is screened and the top ``judge_always``. The
screen's weight on the cheap score learned for the day's order (``rank.fusion``'s
``gamma``, over the papers the reader was shown) is not the one for the cut: chosen
walk-forward for the head's own aim (the earlier days' picks inside their head) it was 0
on every development day, and with ``gamma`` the head held fewer picks at every budget
from 0.8 to 1.2 times the day's (``benchmarks/ranking_bench.py``, issue 19).

Batches are interleaved over the cheap order (batch b holds ranks b, b + B, b + 2B, ...), so
every batch holds strong and weak papers alike and their mean relevance should be alike. A
batch rated ``SUSPECT_POINTS`` or more below what the rest of the day's batches give papers
of the same cheap score is suspect (an injected paper may have talked it down): its papers
are screened again in small batches of ``RESCREEN_BATCH``, and a small batch still suspect
paper by paper; each paper keeps the highest of its screens (an attack can only lower its
batch-mates, and alone it lowers nothing but itself).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from paperbrief.models import ScoredPaper

SUSPECT_POINTS = 20.0  # one star band
RESCREEN_BATCH = 5


def screen_batches(papers: Sequence[ScoredPaper], size: int) -> list[list[ScoredPaper]]:
    """``papers`` (in cheap order) dealt into interleaved batches of at most ``size``."""
    if not papers:
        return []
    count = -(-len(papers) // max(size, 1))
    return [list(papers[b::count]) for b in range(count)]


def screen_keys(count: int) -> list[str]:
    return [f"S{i + 1:02d}" for i in range(count)]


def suspect_batches(
    batches: Sequence[Sequence[ScoredPaper]],
    screens: Mapping[str, float],
    population: Sequence[ScoredPaper],
) -> list[int]:
    """Indices of batches whose screens sit ``SUSPECT_POINTS`` below the day's fit of screen
    relevance on the cheap score (a least-squares line over the screened ``population``
    outside the batch)."""
    suspect = []
    for index, batch in enumerate(batches):
        inside = {s.paper.id for s in batch}
        others = [s for s in population if s.paper.id not in inside]
        x = np.array([s.components.get("cheap", 0.0) for s in others if s.paper.id in screens])
        y = np.array([screens[s.paper.id] for s in others if s.paper.id in screens])
        mine = [s for s in batch if s.paper.id in screens]
        if len(x) < 10 or not mine:
            continue
        slope, intercept = np.polyfit(x, y, 1) if np.ptp(x) > 0 else (0.0, float(y.mean()))
        residual = np.mean(
            [
                screens[s.paper.id] - (intercept + slope * s.components.get("cheap", 0.0))
                for s in mine
            ]  # fmt: skip
        )
        if residual <= -SUSPECT_POINTS:
            suspect.append(index)
    return suspect


@dataclass(frozen=True)
class Head:
    """The papers the judge reads in full, in the order they were chosen."""

    papers: tuple[ScoredPaper, ...]
    prompt_tokens: int  # of the per-paper requests
    budget_left: int
    cut_by_budget: bool  # papers that would have been read were not, for the budget


def choose_head(
    ranking: Sequence[ScoredPaper],
    screens: Mapping[str, float],
    *,
    always: int,
    most: int,
    budget: int,
    cost: Callable[[ScoredPaper], int],
) -> Head:
    """The head (see the module docstring). ``ranking`` is the cheap order of the papers
    that may be judged; ``cost(paper)`` the prompt tokens of its per-paper request;
    ``budget`` what is left of the day's tokens after the screen."""
    first = list(ranking[:always])
    # sorted() is stable: papers the screen rates alike stay in the cheap order
    rest = sorted(
        (s for s in ranking[always:] if s.paper.id in screens), key=lambda s: -screens[s.paper.id]
    )
    chosen: list[ScoredPaper] = []
    spent = 0
    cut = False
    for scored in [*first, *rest]:
        if len(chosen) >= most:
            break
        price = cost(scored)
        if spent + price > budget:
            cut = True
            break
        chosen.append(scored)
        spent += price
    return Head(tuple(chosen), spent, budget - spent, cut)
