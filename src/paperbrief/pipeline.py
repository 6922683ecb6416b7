"""The daily pipeline: fetch listing → rank → read full text → write → verify → render →
publish → deliver.

This module only chains the stages (``run_day`` reads as the stage calls). Every stage
result is stored as soon as it exists, so a crash loses nothing already done and a rerun
resumes: the listing, the ranking, each paper's full text and each written brief are
reused; the digest is published once per date unless ``force`` is set
(``publish.previous_publication``). Which day a run is about has one answer,
``resolve_day`` (the CLI scopes the LLM's daily budget to the same digest date).

Who fetches, reads, judges and writes was chosen once, by ``services.Services``; this
module never asks which services exist. A day always ends with a digest when there is one
to write: each strategy that fails falls back (judge → cheap ranking, full text →
abstract, deep read → offline brief, day synthesis → offline assembly) and returns the
``Fallback`` that says so; the digest says which and why (``write.say_fallbacks``). The
clients stop starting network work at the run's deadline (``[run] deadline_minutes``), so
what is not done by then falls back too. One run per profile and digest day holds the run
lock (``store.run_lock``); a second one exits with ``RunInProgress``. After the day's own
channels, the failed channels of the past week are retried and unknown ones reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Protocol, TypeVar

from paperbrief import deliver, publish, rank, sources
from paperbrief.deliver import DeliveryResult
from paperbrief.deliver.pending import given_up, retry_earlier_days
from paperbrief.errors import EmptyDay, NothingPassed, PaperbriefError, SourceError
from paperbrief.fulltext.readers import fetch_fallback
from paperbrief.labels import labels_for
from paperbrief.models import DayFacts, Document, Fallback, Listing, Paper, PaperBrief, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank import flags
from paperbrief.rank.injection import flagged_papers
from paperbrief.records import Run, StoredDigest
from paperbrief.render import render_html, render_markdown
from paperbrief.services import Services
from paperbrief.store import Store
from paperbrief.text import shorten
from paperbrief.write import Briefs, say_fallbacks
from paperbrief.write.writers import Job

T = TypeVar("T")


class Reporter(Protocol):
    """How the pipeline reports progress (the CLI shows rich progress bars)."""

    def stage(self, message: str) -> None: ...

    def track(self, items: Sequence[T], description: str) -> Iterable[T]: ...


class QuietReporter:
    def stage(self, message: str) -> None:
        pass

    def track(self, items: Sequence[T], description: str) -> Iterable[T]:
        return items


@dataclass(frozen=True)
class RunOptions:
    """What one `paperbrief run` should do (which services exist is ``Services``' business)."""

    digest_date: date | None = None  # default: the day after the listing day
    listing_day: date | None = None  # default: derived from digest_date / today
    listing_file: Path | None = None  # a local snapshot instead of live arXiv
    out_dir: Path | None = None  # default: profile.output.dir
    force: bool = False  # regenerate the ranking, briefs and the digest
    deliver: bool = True
    strict: bool = False  # drop claims whose numbers the papers do not support (LLM writer)


@dataclass(frozen=True)
class RunResult:
    digest_date: date
    listing_day: date
    picks: tuple[ScoredPaper, ...] = ()
    files: dict[str, Path] = field(default_factory=dict)
    reused: bool = False  # the digest was already published; nothing regenerated
    writer: str = "offline"
    papers_considered: int = 0
    notes: tuple[str, ...] = ()
    deliveries: tuple[DeliveryResult, ...] = ()
    picks_wanted: int = 0  # the profile's picks_per_day; more than len(picks) on a thin day
    fallbacks: tuple[Fallback, ...] = ()  # parts written the fallback way (the digest says)

    @property
    def failed_channels(self) -> list[str]:
        """Channels not done that make the run exit 7: today's failed or unknown ones, and an
        earlier day's that failed again. An earlier day's unknown is only reported again (it
        waits for `send --retry-unknown`; it must not fail every run of the week)."""
        return [
            result.channel
            for result in self.deliveries
            if not result.ok
            and (result.status == "failed" or result.digest_date in (None, self.digest_date))
        ]


@dataclass(frozen=True)
class RankedDay:
    ranking: list[ScoredPaper]
    notes: tuple[str, ...] = ()  # e.g. judge batches that failed (their cheap order stands)
    fallbacks: tuple[Fallback, ...] = ()


def resolve_day(options: RunOptions, today: date) -> DayFacts:
    """Which day a run is about: the listing day it covers and its digest's date.

    The one answer for the run, the LLM's daily budget (the CLI builds the services with
    this digest date) and the run lock: ``--date`` names the digest date, a snapshot file
    its listing day (``sources.snapshot_day``), otherwise today's digest covers the latest
    listing day before today.
    """
    if options.listing_day:
        listing_day = options.listing_day
        digest_date = options.digest_date or sources.digest_date_for(listing_day)
    elif options.digest_date:
        listing_day, digest_date = sources.listing_day_for(options.digest_date), options.digest_date
    elif options.listing_file:
        listing_day = sources.snapshot_day(options.listing_file)
        digest_date = sources.digest_date_for(listing_day)
    else:
        listing_day, digest_date = sources.listing_day_for(today), today
    return DayFacts(digest_date, listing_day)


# ----------------------------------------------------------------------- the stages
def acquire_listing(
    store: Store, profile: Profile, options: RunOptions, listing_day: date, services: Services
) -> Listing:
    """The day's listing: from the snapshot file, the store, or the services' listing
    source (then stored).

    A stored listing is reused when it was fetched for each of the profile's categories (or,
    for a day stored before that was recorded, lists a paper in each); else (a lab's new
    reader, a profile given a category: the listing was stored for fewer)
    the day is fetched again for all of them, and if that fails the stored one is used
    with a note naming the categories it lacks."""
    if options.listing_file is not None:
        listing = sources.load_snapshot(options.listing_file, listing_day)
    else:
        stored = None if options.force else store.listings.load(listing_day)
        if stored is not None and not stored.papers:
            stored = None
        listed = {c for paper in stored.papers for c in paper.listings} if stored else set()
        covered = listed | set(stored.categories if stored else ())
        unlisted = [c for c in profile.all_categories if c not in covered]
        if stored is not None and not unlisted:
            return stored
        previous = store.listings.load(sources.previous_listing_day(listing_day))
        try:
            listing = services.listings.fetch(
                listing_day,
                profile.all_categories,
                previous_ids=frozenset(p.id for p in previous.papers) if previous else frozenset(),
                include_replacements=profile.include_replacements,
            )
        except (EmptyDay, SourceError) as error:
            if stored is None:
                raise
            note = (
                f"the stored listing of {listing_day} lists no paper in {', '.join(unlisted)}"
                f" and fetching the day again failed ({error.message}): ranked without them"
            )
            return replace(stored, notes=(*stored.notes, note))
    store.listings.save(listing)
    return listing


def rank_day(
    store: Store,
    profile: Profile,
    papers: Sequence[Paper],
    listing_day: date,
    services: Services,
    force: bool,
    history: rank.History | None = None,
    until: str | None = None,
) -> RankedDay:
    """The day's full ranking, reused from the store while what ranks it is unchanged,
    with the reader's history applied as it stands now (``rank.apply_history``: hidden and
    already-picked papers flagged, follow-ups marked), so feedback counts at once.

    What the store knows of the reader (``rank.reader_of_day``: the reference of earlier
    listing days, the learned taste, the taste block the judge reads, the fusion weights and
    star calibration learned from the reader's feedback, ``store.feedback.of``, only that
    given before ``until`` when it is set: a replay of a past day) ranks the day; any new
    rating changes its fingerprint, so the next ranking uses it at once. The services'
    judge then screens and reads the head of the cheap ranking and every verdict and screen
    is stored as the reader's (``store.verdicts.of``). A ranking made without the embedding
    model, or by a judge that failed (in part), is not stored as the day's ranking, so the
    next run ranks again (answers that did arrive are cached): it is kept apart, for the web
    UI only, and its fallback says why.
    """
    log = store.feedback.of(profile.key)
    if history is None:
        history = rank.load_history(store.picks, log, listing_day, until)
    # the reader's own history: feedback and the judge's records of them (a home may hold
    # several readers, each run on their own or by `run --all`)
    own = store.history_of(profile.key)
    reader = services.ranking.reader(own, profile, listing_day, log, until)
    fingerprint = profile.ranking_fingerprint() + services.judge.fingerprint + reader.fingerprint
    if not force:
        stored = store.rankings.load(listing_day, fingerprint)
        if len(stored) == len(papers):
            ranking = rank.apply_history(stored, history, profile.language)
            return RankedDay(ranking, flag_notes(ranking))
    cheap = services.ranking.rank(papers, profile, reader)
    judged = services.judge.judge(cheap.ranking, profile, reader.reader)
    verdicts = store.verdicts.of(profile.key)  # the judge read this reader's profile
    if judged.verdicts:
        verdicts.save(listing_day, judged.model, judged.verdicts)
    if judged.screens:
        verdicts.save_screens(listing_day, judged.model, judged.screens)
    fallbacks = tuple(f for f in (cheap.fallback, judged.fallback) if f is not None)
    incomplete = ":incomplete" if fallbacks else ""
    store.rankings.save(listing_day, fingerprint + incomplete, judged.ranking)
    ranking = rank.apply_history(judged.ranking, history, profile.language)
    return RankedDay(ranking, flag_notes(ranking), fallbacks)


def flag_notes(ranking: Sequence[ScoredPaper]) -> tuple[str, ...]:
    """What the run says about the papers flagged for instructing the model: which, and
    the sentence the screen caught, or else the reason the judge's verdict records (the
    judge said so, or the rating fell without a sentence addressed to its reader), so a
    reader sees why a paper that may rank high on its words is never picked."""
    flagged = [s for s in ranking if flags.has(s, flags.INSTRUCTIONS)]
    sentences = flagged_papers(s.paper for s in flagged)
    return tuple(
        f"{s.paper.id} is flagged and never picked: its text instructs the model that reads it"
        + (f" (“{shorten(sentences[s.paper.id], 160)}”)" if s.paper.id in sentences else
           f" (judge: {shorten(s.reason, 240)})")
        for s in flagged
    )  # fmt: skip


def write_briefs(
    store: Store,
    profile: Profile,
    picks: Sequence[ScoredPaper],
    digest_date: date,
    services: Services,
    force: bool,
    reporter: Reporter,
) -> tuple[Briefs, tuple[Fallback, ...]]:
    """Write (or resume) one brief per pick with the services' writer; each is stored as
    soon as it is written. The picks' full texts are read as the writer asks for them; the
    fallbacks say which full texts and deep reads fell back."""
    writer = services.writer
    key = profile.key
    written: dict[str, PaperBrief] = {}
    documents: dict[str, Document] = {}
    fallbacks: list[Fallback] = []

    def unwritten() -> Iterator[Job]:
        for scored in reporter.track(picks, "reading the picks"):
            document = services.fulltext.read(store.documents, scored.paper)
            if document is not None:
                documents[scored.paper.id] = document
            failure = fetch_fallback(document)
            if failure is not None:
                fallbacks.append(failure)
            stored = store.briefs.load(
                digest_date, scored.paper.id, profile.language, writer.name, key
            )
            if stored is not None and not force:
                written[scored.paper.id] = stored
            else:
                yield scored, document

    for done in writer.write_briefs(unwritten(), profile, reporter.stage):
        store.briefs.save(digest_date, profile.language, done.writer, done.brief, key)
        written[done.brief.paper.id] = done.brief
        if done.fallback is not None:
            fallbacks.append(done.fallback)
    fell_back = frozenset(f.paper_id for f in fallbacks if f.part == "brief")
    briefs = Briefs([written[p.paper.id] for p in picks], documents, fell_back)
    return briefs, tuple(fallbacks)


def publish_files(store: Store, stored: StoredDigest, paths: dict[str, Path]) -> dict[str, Path]:
    """The digest's files in the output folder, recorded with their hashes."""
    files = {}
    for output in publish.write_outputs(paths, stored):
        store.outputs.record(stored.digest_date, output.kind, str(output.path.resolve()),
                             output.sha256, stored.profile)  # fmt: skip
        files[output.kind] = output.path
    return files


def deliver_published(
    store: Store, profile: Profile, stored: StoredDigest, options: RunOptions, reporter: Reporter
) -> tuple[DeliveryResult, ...]:
    """Every configured channel, each once; then the past week's failed channels again
    (and their unknown ones reported, never re-sent unasked)."""
    if not options.deliver or not deliver.configured_channels(profile.delivery):
        return ()
    reporter.stage("delivering")
    results = deliver.deliver_digest(stored, profile, store.deliveries, store.digests)
    earlier = retry_earlier_days(
        profile,
        store.deliveries,
        store.digests,
        stored.digest_date,
        lambda day: store.run_lock(day, profile.key, "delivery retry"),
    )
    return (*results, *earlier, *given_up(profile, store.deliveries, stored.digest_date))


# ---------------------------------------------------------------------- the chain
def run_day(
    store: Store,
    profile: Profile,
    options: RunOptions,
    services: Services,
    *,
    today: date,
    reporter: Reporter | None = None,
    listing: Listing | None = None,
) -> RunResult:
    """Run the whole pipeline for one day. Raises ``EmptyDay`` when there is nothing to
    publish (``NoAnnouncement``, ``FetchFailed``, ``NothingPassed``) and ``RunInProgress``
    when another run of the same profile and day holds the lock. ``listing`` is the day's
    listing already at hand (``lab.run_lab`` fetches it once for every reader)."""
    reporter = reporter or QuietReporter()
    day = resolve_day(options, today)
    store.adopt_unnamed(profile.key)
    dead = [run for run in store.settle_dead_runs() if run.profile == profile.key]
    run_id = store.runs.start(
        "run", day.listing_day, day.digest_date, profile.ranking_fingerprint(), profile.key
    )
    try:
        # Locked before fetching: a second run fetches nothing.
        with store.run_lock(day.digest_date, profile.key):
            result = _run(store, profile, options, services, day, reporter, today, listing)
            result = replace(result, notes=(*_dead_notes(dead), *result.notes))
    except PaperbriefError as error:
        store.runs.finish(run_id, "failed", error.message)
        raise
    except KeyboardInterrupt as error:  # SIGINT, or SIGTERM (cli.common.stopping)
        store.runs.finish(run_id, "interrupted", str(error) or "SIGINT")
        raise
    except BaseException as error:
        store.runs.finish(run_id, "crashed", repr(error))
        raise
    detail = json.dumps({"notes": result.notes, "fallbacks": [f.line() for f in result.fallbacks]})
    store.runs.finish(run_id, "reused" if result.reused else "ok", detail)
    return result


def _run(
    store: Store,
    profile: Profile,
    options: RunOptions,
    services: Services,
    day: DayFacts,
    reporter: Reporter,
    today: date,
    shared: Listing | None = None,
) -> RunResult:
    reporter.stage("loading the listing")
    listing = shared or acquire_listing(store, profile, options, day.listing_day, services)
    digest_date = day.digest_date
    paths = publish.output_paths(profile, options.out_dir, digest_date)

    previous = publish.previous_publication(
        store.digests.load(digest_date, profile.language, profile.key),
        store.digests.dates_for_listing(listing.day, profile.language, profile.key),
        digest_date,
        listing.day,
        services.writer.name,
        options.force,
    )
    if previous is not None:
        stored = previous.stored
        return RunResult(
            previous.digest_date,
            listing.day,
            files=publish_files(store, stored, paths) if stored else {},
            reused=True,
            writer=stored.writer if stored else services.writer.name,
            notes=(previous.note,),
            deliveries=deliver_published(store, profile, stored, options, reporter)
            if stored
            else (),
        )

    until = feedback_until(digest_date, today)
    history = rank.load_history(store.picks, store.feedback.of(profile.key), listing.day, until)
    # A new version of a liked paper is a candidate even when replacements are not.
    papers = rank.candidates(listing, profile, keep=history.liked)
    if not papers:
        raise _nothing_in_categories(listing, profile)
    reporter.stage(f"ranking {len(papers)} papers")
    ranked = rank_day(store, profile, papers, listing.day, services, options.force, history, until)
    history_notes = _history_notes(
        store.picks.ids(digest_date, profile.key), history, digest_date, until
    )
    # Never a paper picked on another day, hidden, 👎'd or instructing the model; a thin
    # day publishes fewer picks (picks.missing says how many fewer) instead of weak ones.
    # Chosen and saved under the profile's picks lock, so a run of another day going on at
    # the same time sees these picks (and this one sees its).
    with store.picks_lock(profile.key):
        taken = store.picks.ids_of_other_days(listing.day, profile.key)
        seen = replace(history, picked_before=history.picked_before | taken)
        picks = rank.select_picks(
            rank.apply_history(ranked.ranking, seen, profile.language), profile
        )
        if picks:
            store.picks.save(digest_date, listing.day, picks, profile.key)
    if not picks:
        # Said with the reason: a rerun after a 👎 on the only pick is not a weak day.
        why = list(history_notes)
        if why and store.digests.load(digest_date, profile.language, profile.key) is not None:
            why.append(f"the digest published for {digest_date} stays as it was")
        raise NothingPassed(
            labels_for(profile.language).empty_reason_nothing_passed.format(
                day=listing.day, total=len(papers)
            )
            + "".join(f" ({note})" for note in why),
            f"lower min_stars (now {profile.min_stars}) in the profile to see weaker matches",
        )

    briefs, brief_fallbacks = write_briefs(
        store, profile, picks, digest_date, services, options.force, reporter
    )
    reporter.stage("composing the digest")
    facts = DayFacts(digest_date, listing.day, papers_considered=len(papers))
    composed = services.writer.write_day(briefs, profile, facts, strict=options.strict)
    day_fallbacks = (composed.fallback,) if composed.fallback is not None else ()
    fallbacks = (*ranked.fallbacks, *brief_fallbacks, *day_fallbacks)
    digest = say_fallbacks(composed.digest, fallbacks)
    thin = rank.thin_day_note(picks, len(papers), profile)
    if thin is not None and digest.provenance is not None:
        notes = (thin, *digest.provenance.notes)
        digest = replace(digest, provenance=replace(digest.provenance, notes=notes))
    markdown, html = render_markdown(digest, profile), render_html(digest, profile)
    stored = store.digests.save(digest, composed.writer, markdown, html, profile.key)
    reporter.stage("publishing")
    return RunResult(
        digest_date,
        listing.day,
        picks=tuple(picks),
        files=publish_files(store, stored, paths),
        writer=composed.writer,
        papers_considered=len(papers),
        notes=(*listing.notes, *ranked.notes, *history_notes),
        deliveries=deliver_published(store, profile, stored, options, reporter),
        picks_wanted=picks.wanted,
        fallbacks=fallbacks,
    )


def feedback_until(digest_date: date, today: date) -> str | None:
    """The feedback a run of ``digest_date`` may use: all of it for today (a rerun after a
    👎 honours it); for a past day, only what was given before that day (an honest replay:
    what the reader said later is not what that day knew)."""
    return None if digest_date >= today else digest_date.isoformat()


def _history_notes(
    picked: Sequence[str], history: rank.History, digest_date: date, until: str | None
) -> tuple[str, ...]:
    """What the run says about the reader's feedback: earlier picks of this digest that a
    verdict since leaves out, and, for a replay, the signals it did not use."""
    notes = []
    for paper_id in picked:
        if paper_id in history.disliked | history.hidden:
            verdict = "👎" if paper_id in history.disliked else "not interested"
            notes.append(f"{paper_id} is left out of the picks: you marked it {verdict}")
    if until is not None and history.unused:
        notes.append(
            f"a replay of {digest_date}: {history.unused} feedback signal(s) given since are"
            " not used, so its ranking and picks are what that day knew"
        )
    return tuple(notes)


def _dead_notes(dead: Sequence[Run]) -> tuple[str, ...]:
    """What this run says about earlier runs found dead (their records said ``running``)."""
    return tuple(
        f"the run of {run.digest_date} started {run.started_at} (pid {run.pid}) died without"
        " finishing (killed, or the machine stopped); what it had done is reused"
        for run in dead
    )


def _nothing_in_categories(listing: Listing, profile: Profile) -> NothingPassed:
    labels = labels_for(profile.language)
    return NothingPassed(
        labels.empty_reason_nothing_passed.format(day=listing.day, total=0)
        + f" (none of {len(listing.papers)} listed papers is in "
        + ", ".join(profile.all_categories)
        + ")",
        "check the profile's categories",
    )
