"""From the reader's recorded signals to the learned scorer (``rank.taste``).

Signals (``store.feedback``) become weighted examples: picked / 👍 / saved / read are
positives; 👎 / not interested and ``shown`` (seen and passed over) are negatives. Only
papers the reader was shown become negatives: ``shown`` events come from imported history
(``feedback import`` with the picks file's ``shown`` lists) or the evaluation's replay,
never from the rest of a listing, because papers nobody showed the reader say nothing about
their taste. With no negatives at all the learner still ranks by nearness to what was
liked (``taste.kernel_taste``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Protocol

from paperbrief.models import Paper, Signal
from paperbrief.profile import RankSettings
from paperbrief.rank.embed import Embedder
from paperbrief.rank.taste import FeedbackExample, TasteModel
from paperbrief.records import FeedbackEvent

# Per signal: (label, weight). The strongest, most recent explicit signal decides a paper.
SIGNAL_WEIGHTS: dict[Signal, tuple[int, float]] = {
    Signal.PICKED: (1, 1.0),
    Signal.UP: (1, 1.0),
    Signal.SAVE: (1, 1.2),
    Signal.READ: (1, 0.5),
    Signal.DOWN: (0, 1.0),
    Signal.HIDE: (0, 1.5),
    Signal.SHOWN: (0, 1.0),
}

Event = tuple[str, Signal, str]  # (paper id, signal, ISO timestamp)


def latest_signals(events: Iterable[Event]) -> dict[str, tuple[Signal, str]]:
    """The reader's standing signal per paper: an explicit signal (anything but ``shown``)
    overrides ``shown``; among explicit ones the latest wins."""
    latest: dict[str, tuple[Signal, str]] = {}
    for paper_id, signal, created_at in events:
        previous = latest.get(paper_id)
        if previous is None or previous[0] == Signal.SHOWN or signal != Signal.SHOWN:
            latest[paper_id] = (signal, created_at)
    return latest


def examples_from_events(
    events: Iterable[Event], papers: dict[str, Paper]
) -> list[FeedbackExample]:
    """One example per known paper (see :func:`latest_signals`); papers not in ``papers``
    are skipped (their text is unknown)."""
    examples = []
    for paper_id, (signal, created_at) in latest_signals(events).items():
        paper = papers.get(paper_id)
        if paper is None:
            continue
        label, weight = SIGNAL_WEIGHTS[signal]
        examples.append(FeedbackExample(paper, label, weight, created_at[:10]))
    return examples


class FeedbackLog(Protocol):
    """The reader's recorded signals (the store's ``feedback`` part implements it)."""

    def events(self, before: str | None = None) -> Sequence[FeedbackEvent]: ...


class FeedbackRecorder(FeedbackLog, Protocol):
    """A feedback log that takes new signals (the store's ``feedback`` part)."""

    def add(
        self,
        paper_id: str,
        signal: Signal,
        note: str | None = None,
        source: str = "cli",
        created_at: str | None = None,
    ) -> bool | None: ...


class PaperArchive(Protocol):
    """Stored papers (the store's ``listings`` part implements it)."""

    def papers(self, paper_ids: Iterable[str]) -> dict[str, Paper]: ...


def taste_model(embedder: Embedder, settings: RankSettings) -> TasteModel:
    """An untrained learner with the profile's ``[rank]`` feedback settings."""
    return TasteModel(
        embedder,
        weight=settings.feedback_weight,
        ramp_positives=settings.feedback_ramp_positives,
        half_life_days=settings.feedback_half_life_days,
    )


def load_feedback(
    log: FeedbackLog,
    archive: PaperArchive,
    embedder: Embedder,
    settings: RankSettings | None = None,
    *,
    before: str | None = None,
    today: date | None = None,
) -> TasteModel:
    """Train the learned scorer on the stored feedback older than ``before``.

    ``before`` is an ISO timestamp (events at or after it are ignored: the ranked day and
    later must not leak in); ``today`` anchors recency (default: the date of ``before``,
    else no decay). This is the one path from stored signals to the learner, used by the
    daily run and by ``paperbrief eval ranking --learn``.
    """
    events: list[Event] = [(e.paper_id, e.signal, e.created_at) for e in log.events(before)]
    papers = archive.papers(dict.fromkeys(paper_id for paper_id, _, _ in events))
    examples = examples_from_events(events, papers)
    if today is None and before is not None:
        today = date.fromisoformat(before[:10])
    return taste_model(embedder, settings or RankSettings()).fit(examples, today)
