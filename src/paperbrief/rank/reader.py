"""What the ranking knows about the reader beyond the profile, as one value.

``Reader`` carries, for one ranked day: the taste block the judge reads (``rank.taste_block``),
the fusion weights learned from the reader's feedback (``rank.fusion``) and each tier's star
calibration (``rank.calibrate``: the cheap tier by the star rates on the reference
percentile, the judged and screened tiers linked to it over what the judge said about the
papers of earlier listing days, ``ReferenceJudgement``; never the reader's picks). ``reader_for``
builds it from plain values, so the daily run (from the store) and the evaluation (from its
walk-forward replay) build it the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank.calibrate import (
    Calibration,
    Tier,
    cheap_default,
    judge_default,
    judge_relevance,
    linked,
)
from paperbrief.rank.core import rank_papers
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import (
    SIGNAL_WEIGHTS,
    FeedbackLog,
    PaperArchive,
    latest_signals,
    load_feedback,
    taste_model,
)
from paperbrief.rank.fusion import Evidence, Fusion, learn_fusion
from paperbrief.rank.imported import rating_of
from paperbrief.rank.reference import ListingArchive, Reference, reference_for
from paperbrief.rank.taste import TasteModel
from paperbrief.rank.taste_block import NO_FEEDBACK, TasteExamples, render_taste, taste_examples
from paperbrief.records import FeedbackEvent, PaperJudgement, Verdict


@dataclass(frozen=True)
class Calibrations:
    judged: Tier = field(default_factory=judge_default)
    screened: Tier = field(default_factory=judge_default)
    cheap: Calibration = field(default_factory=lambda: cheap_default(4, 450.0))


@dataclass(frozen=True)
class ReferenceJudgement:
    """What the judge said about one paper of an earlier listing day, with its cheap score and
    percentile as they stood on that day (the link of its tiers, ``rank.calibrate``)."""

    cheap: float  # reference z units
    percentile: float
    judge: float | None = None  # per-paper judge relevance 0-100
    screen: float | None = None  # first-screen relevance 0-100


@dataclass(frozen=True)
class Reader:
    taste: str = NO_FEEDBACK
    fusion: Fusion = field(default_factory=Fusion)
    calibrations: Calibrations = field(default_factory=Calibrations)
    evidence: int = 0  # papers with feedback and scores behind the fusion and calibration


def reader_for(
    profile: Profile,
    reference: Reference,
    evidence: Sequence[Evidence] = (),
    examples: TasteExamples | None = None,
    judged_reference: Sequence[ReferenceJudgement] = (),
) -> Reader:
    """The reader of one day: ``evidence`` are earlier days' papers with feedback (their
    scores as they stood on their own day; they teach the fusion), ``examples`` the taste
    list for the judge, ``judged_reference`` what the judge said about earlier days'
    papers (it links the judged and screened tiers to the reference percentile; without
    enough of it they keep the judge's own bands)."""
    fusion = learn_fusion(evidence)
    size = reference.mean_day_size if reference.papers else 450.0
    cheap = cheap_default(profile.picks_per_day, size)
    judged = linked(
        [
            (fusion.judged(r.judge, r.cheap), r.percentile)
            for r in judged_reference
            if r.judge is not None
        ],
        cheap,
    )
    screened = linked(
        [
            (fusion.screened(r.screen, r.cheap), r.percentile)
            for r in judged_reference
            if r.screen is not None
        ],
        cheap,
    )
    calibrations = Calibrations(judged or judge_default(), screened or judge_default(), cheap)
    taste = render_taste(examples) if examples is not None else NO_FEEDBACK
    return Reader(taste, fusion, calibrations, len(evidence))


# ------------------------------------------------------------- from the stored history
class ScoreArchive(Protocol):
    """Stored rankings (the store's ``rankings`` part implements it)."""

    def components_of(
        self, paper_ids: Iterable[str]
    ) -> dict[str, tuple[str, dict[str, float]]]: ...


class JudgementArchive(Protocol):
    """Stored judge answers (the store's ``verdicts`` part implements it)."""

    def of_papers(self, paper_ids: Iterable[str]) -> dict[str, PaperJudgement]: ...

    def by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, Verdict]]: ...

    def screens_by_day(
        self, since: date | None = None, until: date | None = None, model: str | None = None
    ) -> dict[str, dict[str, int]]: ...


def gather_evidence(
    events: Sequence[FeedbackEvent],
    scores: ScoreArchive,
    judgements: JudgementArchive,
    listing_day: date,
) -> list[Evidence]:
    """The reader's evidence for ranking ``listing_day``: every paper with a standing signal
    that was ranked on an earlier listing day, with its cheap score and percentile as they
    stood on that day and what the judge said about it then (its verdict's and its screen's
    relevance), and the reader's own stars when a note carries them."""
    standing = latest_signals((e.paper_id, e.signal, e.created_at) for e in events)
    notes = {e.paper_id: e.note for e in events if e.note}
    ranked = scores.components_of(standing)
    judged = judgements.of_papers(standing)
    cutoff = listing_day.isoformat()
    evidence = []
    for paper_id, (signal, _) in standing.items():
        day, components = ranked.get(paper_id, ("", {}))
        if not day or day >= cutoff or "cheap" not in components:
            continue
        judgement = judged.get(paper_id)
        same_day = judgement is not None and judgement.day == day
        evidence.append(
            Evidence(
                day=day,
                kept=SIGNAL_WEIGHTS[signal][0] == 1,
                cheap=float(components["cheap"]),
                percentile=float(components.get("percentile", 0.0)),
                screen=judgement.screen if same_day and judgement else None,
                judge=judgement.judge if same_day and judgement else None,
                rating=rating_of(notes.get(paper_id)),
            )
        )
    return evidence


# Stored listing days whose judged papers link the judge's tiers: a month of listings. The
# cheap reference's three days hold too few papers for the rarest stars (4 stars are half a
# paper a day, 5 stars 0.15: under one paper in three days), and linking reads only stored
# scores, so it can reach further back at no cost.
LINK_DAYS = 20


def reference_judgements(
    judgements: JudgementArchive, scores: ScoreArchive, days: Sequence[str]
) -> list[ReferenceJudgement]:
    """What the judge said about the papers of the listing ``days`` (ISO; the bundled sample
    day has no judgements), each with the cheap score and percentile of its ranking on that
    day (against that day's reference); papers judged on a day but ranked last on another
    are left out."""
    listed = sorted(d for d in days if d != "sample")
    if not listed:
        return []
    since, until = date.fromisoformat(listed[0]), date.fromisoformat(listed[-1])
    verdicts = judgements.by_day(since, until)
    screens = judgements.screens_by_day(since, until)
    found: list[ReferenceJudgement] = []
    for day in listed:
        read, screened = verdicts.get(day, {}), screens.get(day, {})
        ranked = scores.components_of([*read, *screened])
        for paper_id in dict.fromkeys([*read, *screened]):
            ranked_day, components = ranked.get(paper_id, ("", {}))
            if ranked_day != day or "cheap" not in components or "percentile" not in components:
                continue
            verdict = read.get(paper_id)
            found.append(
                ReferenceJudgement(
                    cheap=float(components["cheap"]),
                    percentile=float(components["percentile"]),
                    judge=None if verdict is None else judge_relevance(verdict),
                    screen=None if paper_id not in screened else float(screened[paper_id]),
                )
            )
    return found


class DayArchive(ListingArchive, PaperArchive, Protocol):
    """Stored listings and papers (the store's ``listings`` part implements it)."""


@dataclass(frozen=True)
class DayReader:
    """Everything about the reader that ranks one listing day."""

    reference: Reference
    taste: TasteModel
    reader: Reader
    fingerprint: str  # changes whenever the feedback or the reference does


class ReaderArchive(Protocol):
    """What the store keeps about the reader and their days (a ``Store`` is one)."""

    @property
    def listings(self) -> DayArchive: ...

    @property
    def feedback(self) -> FeedbackLog: ...

    @property
    def rankings(self) -> ScoreArchive: ...

    @property
    def verdicts(self) -> JudgementArchive: ...


def reader_of_day(
    archive: ReaderArchive,
    embedder: Embedder,
    profile: Profile,
    listing_day: date,
    before: str | None = None,
    log: FeedbackLog | None = None,
) -> DayReader:
    """The reader as the store knows them for ranking ``listing_day``: the reference, the
    learned taste, the taste block and the fusion and calibration learned from their
    feedback (recorded before ``before``, an ISO timestamp; None: all of it, so a rating
    given a minute ago counts), from ``log`` (one reader's: ``store.feedback.of``; None: the
    archive's whole feedback). The one path from stored history to a day's ranking, for the
    daily run and the evaluation (which passes the ranked day, so nothing later leaks in)."""
    log = archive.feedback if log is None else log
    listings = archive.listings
    events = list(log.events(before))
    reference = reference_for(listings, profile, listing_day)
    taste = load_feedback(log, listings, embedder, profile.rank, before=before, today=listing_day)
    papers = listings.papers(dict.fromkeys(e.paper_id for e in events))
    examples = taste_examples(events, papers, embedder)
    evidence = gather_evidence(events, archive.rankings, archive.verdicts, listing_day)
    link_days = [d.isoformat() for d in sorted(listings.days()) if d < listing_day][-LINK_DAYS:]
    judged_reference = reference_judgements(archive.verdicts, archive.rankings, link_days)
    reader = reader_for(profile, reference, evidence, examples, judged_reference)
    digest = hashlib.sha256()
    for event in events:
        digest.update(f"{event.paper_id}|{event.signal}|{event.created_at}|{event.note}\n".encode())
    digest.update(("|".join(reference.days) + f"|{len(reference.papers)}").encode())
    # the judge's word on earlier days links the judged tiers (``reference_judgements``)
    digest.update(repr(reader.calibrations).encode())
    return DayReader(reference, taste, reader, f":reader:{digest.hexdigest()[:12]}")


def cold_reader(
    listings: ListingArchive, embedder: Embedder, profile: Profile, listing_day: date
) -> DayReader:
    """The reader of a day with no feedback counted: the reference and the profile's
    defaults alone (an evaluation without history, or a day ranked without the embedding
    model, where the learned taste cannot be read)."""
    reference = reference_for(listings, profile, listing_day)
    return DayReader(
        reference, taste_model(embedder, profile.rank), reader_for(profile, reference), ":cold"
    )


def rank_for(
    papers: Sequence[Paper], profile: Profile, embedder: Embedder, reader: DayReader
) -> list[ScoredPaper]:
    """The cheap ranking of ``papers`` as ``reader`` ranks a day: against its reference,
    with its learned taste and its cheap-tier star calibration."""
    return rank_papers(
        papers,
        profile,
        embedder,
        feedback=reader.taste,
        reference=reader.reference,
        calibration=reader.reader.calibrations.cheap,
    )
