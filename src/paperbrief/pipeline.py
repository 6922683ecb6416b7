"""The daily pipeline: fetch listing → rank → read full text → write → verify → render →
publish → deliver.

This module only chains the stages (``run_day`` reads as the stage calls). Every stage
result is stored as soon as it exists, so a crash loses nothing already done and a rerun
resumes: the listing, the ranking, each paper's full text and each written brief are
reused; the digest is published once per date unless ``force`` is set
(``publish.previous_publication``). The clients come from ``services.Services``.

A day always ends with a digest when there is one to write: a part that fails falls back
(``fallback.py``: judge → cheap ranking, full text → abstract, deep read → offline brief,
day synthesis → offline assembly) and the digest says which and why; the clients stop
starting network work at the run's deadline (``[run] deadline_minutes``), so what is not
done by then falls back too. One run per profile and digest day holds the run lock
(``store.run_lock``); a second one exits with ``RunInProgress``. After the day's own
channels, the failed channels of the past week are retried and unknown ones reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Protocol, TypeVar

from paperbrief import deliver, fulltext, publish, rank, sources
from paperbrief.deliver import DeliveryResult
from paperbrief.deliver.pending import retry_earlier_days
from paperbrief.errors import FetchFailed, NothingPassed, PaperbriefError
from paperbrief.fallback import (
    FATAL,
    Fallback,
    RecordingClient,
    around_llm_briefs,
    deep_reads,
    failed_document,
    fetch_failure,
    reason_of,
    say_fallbacks,
    with_fallback_note,
)
from paperbrief.labels import labels_for
from paperbrief.models import (
    OFFLINE_WRITER,
    Digest,
    Document,
    Listing,
    Paper,
    PaperBrief,
    ScoredPaper,
)
from paperbrief.profile import Profile
from paperbrief.rank.judge import judge_ranking
from paperbrief.records import StoredDigest
from paperbrief.render import render_html, render_markdown
from paperbrief.services import Services
from paperbrief.store import Store
from paperbrief.text import shorten
from paperbrief.write.offline import write_brief_offline, write_day_offline

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


def resolve_days(options: RunOptions, today: date) -> tuple[date | None, date | None]:
    """(listing_day, digest_date) from the options; None where a snapshot must decide."""
    if options.listing_day:
        listing_day = options.listing_day
        return listing_day, options.digest_date or sources.digest_date_for(listing_day)
    if options.digest_date:
        return sources.listing_day_for(options.digest_date), options.digest_date
    if options.listing_file:
        return None, None
    return sources.listing_day_for(today), today


# ----------------------------------------------------------------------- the stages
def acquire_listing(
    store: Store,
    profile: Profile,
    options: RunOptions,
    listing_day: date | None,
    services: Services,
) -> Listing:
    """The day's listing: from the snapshot file, the store, or live arXiv (then stored)."""
    if options.listing_file is not None:
        listing = sources.load_snapshot(options.listing_file, listing_day)
    else:
        assert listing_day is not None
        stored = store.listings.load(listing_day)
        if stored is not None and stored.papers and not options.force:
            return stored
        if services.http is None:
            raise FetchFailed(
                f"no stored listing for {listing_day} and running offline",
                "drop --offline, or pass --listing FILE with a snapshot of that day",
            )
        previous = store.listings.load(sources.previous_listing_day(listing_day))
        listing = sources.fetch_listing(
            listing_day,
            profile.all_categories,
            services.http,
            rss_base=services.arxiv.rss,
            api_base=services.arxiv.api,
            list_base=services.arxiv.list_page,
            previous_ids=frozenset(p.id for p in previous.papers) if previous else frozenset(),
            include_replacements=profile.include_replacements,
        )
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
) -> RankedDay:
    """The day's full ranking, reused from the store while what ranks it is unchanged,
    with the reader's history applied as it stands now (``rank.apply_history``: hidden and
    already-picked papers flagged, follow-ups marked), so feedback counts at once.

    The learned taste uses all stored feedback (recency anchored on the ranked day). With
    an LLM the judge re-orders the head of the cheap ranking and every verdict is stored
    (``store.verdicts``); a failed judge request keeps its cheap order and says so in
    ``notes``.
    """
    if history is None:
        history = rank.load_history(store.picks, store.feedback, listing_day)
    fingerprint = profile.ranking_fingerprint()
    if services.llm is not None:
        # A judged ranking is not interchangeable with a cheap one (e.g. from `rank`).
        fingerprint += f":judge:{services.llm.model_for('judge')}"
    if not force:
        stored = store.rankings.load(listing_day, fingerprint)
        if len(stored) == len(papers):
            return RankedDay(rank.apply_history(stored, history, profile.language))
    feedback = rank.load_feedback(
        store.feedback, store.listings, services.embedder, profile.rank, today=listing_day
    )
    ranking = rank.rank_papers(papers, profile, services.embedder, feedback=feedback)
    if services.llm is None:
        store.rankings.save(listing_day, fingerprint, ranking)
        return RankedDay(rank.apply_history(ranking, history, profile.language))
    watched = RecordingClient(services.llm)
    try:
        judged = judge_ranking(ranking, profile, watched, max_workers=profile.llm.concurrency)
    except Exception as error:  # whatever broke, the cheap ranking stands
        if isinstance(error, FATAL):
            raise
        watched.errors.append(error)
        judged = None
    if judged is not None:
        store.verdicts.save(listing_day, services.llm.model_for("judge"), judged.verdicts)
    errors = [*watched.errors]
    if judged is not None and not errors and not judged.errors:
        store.rankings.save(listing_day, fingerprint, judged.ranking)
        return RankedDay(rank.apply_history(judged.ranking, history, profile.language))
    # A judge that failed (in part) is not stored as the judged ranking, so the next run
    # asks again (answers that did arrive are cached): kept apart for the web UI only.
    final = judged.ranking if judged is not None else ranking
    store.rankings.save(listing_day, fingerprint + ":incomplete", final)
    detail = "; ".join(str(e) for e in errors[:2]) or "; ".join(judged.errors[:2] if judged else [])
    reason = reason_of(errors[0]) if errors else "error"
    # The fallback says it once; the judge's own error list would repeat it per request.
    fallback = Fallback("ranking", reason, shorten(detail, 300))
    return RankedDay(rank.apply_history(final, history, profile.language), (), (fallback,))


def read_fulltext(store: Store, paper: Paper, services: Services) -> Document | None:
    """The paper's Document: from the store, else read once (and stored); offline, only
    what is stored. An abstract-only result is not stored, so a paper whose full text was
    unreachable is tried again on the next run. A fetch that fails in any way gives an
    abstract-only Document flagged ``fetch-failed``: the pick is written from its abstract."""
    if services.http is None:
        return store.documents.load(paper.id)
    try:
        # Online, the stage's cache also checks the stored version against the paper's.
        return fulltext.load_or_read_paper(
            store.documents,
            paper,
            services.http,
            html_base=services.arxiv.html,
            ar5iv_base=services.arxiv.ar5iv,
            pdf_base=services.arxiv.pdf,
        )
    except FATAL:
        raise
    except Exception as error:  # a parser bug on one paper must not cost the day
        return failed_document(paper, error)


@dataclass(frozen=True)
class WrittenBriefs:
    briefs: list[PaperBrief]
    documents: dict[str, Document]
    fallbacks: tuple[Fallback, ...] = ()
    by_llm: int = 0  # how many of the briefs the LLM wrote


def write_briefs(
    store: Store,
    profile: Profile,
    picks: Sequence[ScoredPaper],
    digest_date: date,
    services: Services,
    force: bool,
    reporter: Reporter,
) -> WrittenBriefs:
    """Write (or resume) one brief per pick; each is stored as soon as it is written.

    Offline briefs are written as each paper is read; LLM deep reads run concurrently once
    every pick's full text is in (the client bounds concurrency and budget). A deep read
    that fails, for any reason, leaves that pick with the offline brief, saying so.
    """
    writer = services.writer
    key = profile.key
    written: dict[str, PaperBrief] = {}
    documents: dict[str, Document] = {}
    fallbacks: list[Fallback] = []
    pending: list[tuple[ScoredPaper, Document | None]] = []

    def keep(brief: PaperBrief, by: str = writer) -> None:
        store.briefs.save(digest_date, profile.language, by, brief, key)
        written[brief.paper.id] = brief

    for scored in reporter.track(picks, "reading the picks"):
        document = read_fulltext(store, scored.paper, services)
        if document is not None:
            documents[scored.paper.id] = document
            failure = fetch_failure(document)
            if failure is not None:
                fallbacks.append(failure)
        stored = store.briefs.load(digest_date, scored.paper.id, profile.language, writer, key)
        if stored is not None and not force:
            written[scored.paper.id] = stored
        elif services.llm is None:
            keep(write_brief_offline(scored, document, profile))
        else:
            pending.append((scored, document))
    if pending:
        assert services.llm is not None  # pending is only filled on the LLM path
        reporter.stage(f"writing {len(pending)} deep reads with {writer}")
        failures = deep_reads(services.llm, pending, profile, keep)
        for scored, document in pending:
            error = failures.get(scored.paper.id)
            if error is None:
                continue
            detail = shorten(str(error), 300)
            fallback = Fallback("brief", reason_of(error), detail, scored.paper.id)
            fallbacks.append(fallback)
            offline = write_brief_offline(scored, document, profile)
            # Kept as an offline brief: a forced rerun asks the LLM again.
            keep(with_fallback_note(offline, fallback, profile.language), OFFLINE_WRITER)
    by_llm = len(picks) - len([f for f in fallbacks if f.part == "brief"])
    return WrittenBriefs(
        [written[p.paper.id] for p in picks],
        documents,
        tuple(fallbacks),
        by_llm if services.llm is not None else 0,
    )


def compose_digest(
    profile: Profile,
    written: WrittenBriefs,
    digest_date: date,
    listing_day: date,
    papers_considered: int,
    services: Services,
    strict: bool = False,
) -> tuple[Digest, Fallback | None]:
    """The day-level digest: offline assembly, or the LLM's synthesis plus verification;
    when the synthesis fails, the offline assembly and the fallback that says so."""
    briefs, documents = written.briefs, written.documents
    offline = {
        "digest_date": digest_date,
        "listing_day": listing_day,
        "papers_considered": papers_considered,
    }
    if services.llm is None:
        return write_day_offline(briefs, profile, **offline), None  # type: ignore[arg-type]
    from paperbrief.write.llm_writer import write_day_llm

    try:
        digest = write_day_llm(
            services.llm,
            briefs,
            profile,
            documents=documents,
            strict=strict or profile.llm.strict_numbers,
            **offline,  # type: ignore[arg-type]
        )
        return digest, None
    except FATAL:
        raise
    except Exception as error:  # any reason: the offline assembly stands
        fallback = Fallback("day", reason_of(error), shorten(str(error), 300))
        digest = write_day_offline(briefs, profile, **offline)  # type: ignore[arg-type]
        if written.by_llm:
            digest = around_llm_briefs(digest, profile, services.llm, papers_considered)
        return digest, fallback


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
    return (*results, *earlier)


# ---------------------------------------------------------------------- the chain
def run_day(
    store: Store,
    profile: Profile,
    options: RunOptions,
    services: Services,
    *,
    today: date,
    reporter: Reporter | None = None,
) -> RunResult:
    """Run the whole pipeline for one day. Raises ``EmptyDay`` when there is nothing to
    publish (``NoAnnouncement``, ``FetchFailed``, ``NothingPassed``) and ``RunInProgress``
    when another run of the same profile and day holds the lock."""
    reporter = reporter or QuietReporter()
    listing_day, digest_date = resolve_days(options, today)
    store.adopt_unnamed(profile.key)
    run_id = store.runs.start(
        "run", listing_day, digest_date, profile.ranking_fingerprint(), profile.key
    )
    try:
        with ExitStack() as locks:
            result = _run(
                store, profile, options, services, listing_day, digest_date, reporter, locks
            )
    except PaperbriefError as error:
        store.runs.finish(run_id, "failed", error.message)
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
    listing_day: date | None,
    digest_date: date | None,
    reporter: Reporter,
    locks: ExitStack,
) -> RunResult:
    if digest_date is not None:  # lock before fetching: a second run fetches nothing
        locks.enter_context(store.run_lock(digest_date, profile.key))
    reporter.stage("loading the listing")
    listing = acquire_listing(store, profile, options, listing_day, services)
    if digest_date is None:
        digest_date = sources.digest_date_for(listing.day)
        locks.enter_context(store.run_lock(digest_date, profile.key))
    paths = publish.output_paths(profile, options.out_dir, digest_date)

    previous = publish.previous_publication(
        store.digests.load(digest_date, profile.language, profile.key),
        store.digests.dates_for_listing(listing.day, profile.language, profile.key),
        digest_date,
        listing.day,
        services.writer,
        options.force,
    )
    if previous is not None:
        stored = previous.stored
        return RunResult(
            previous.digest_date,
            listing.day,
            files=publish_files(store, stored, paths) if stored else {},
            reused=True,
            writer=stored.writer if stored else services.writer,
            notes=(previous.note,),
            deliveries=deliver_published(store, profile, stored, options, reporter)
            if stored
            else (),
        )

    history = rank.load_history(store.picks, store.feedback, listing.day)
    # A new version of a liked paper is a candidate even when replacements are not.
    papers = rank.candidates(listing, profile, keep=history.liked)
    if not papers:
        raise _nothing_in_categories(listing, profile)
    reporter.stage(f"ranking {len(papers)} papers")
    ranked = rank_day(store, profile, papers, listing.day, services, options.force, history)
    # Never a paper picked on an earlier day, hidden, or instructing the model; a thin day
    # publishes fewer picks (picks.missing says how many fewer) instead of weak ones.
    picks = rank.select_picks(ranked.ranking, profile)
    if not picks:
        raise NothingPassed(
            labels_for(profile.language).empty_reason_nothing_passed.format(
                day=listing.day, total=len(papers)
            ),
            f"lower min_stars (now {profile.min_stars}) in the profile to see weaker matches",
        )
    store.picks.save(digest_date, listing.day, picks, profile.key)

    written = write_briefs(store, profile, picks, digest_date, services, options.force, reporter)
    reporter.stage("composing the digest")
    digest, day_fallback = compose_digest(
        profile, written, digest_date, listing.day, len(papers), services, strict=options.strict
    )
    fallbacks = (*ranked.fallbacks, *written.fallbacks, *([day_fallback] if day_fallback else []))
    digest = say_fallbacks(digest, fallbacks, profile.language)
    # Every LLM part fell back: stored as offline, so the next run with the endpoint back
    # upgrades it (publish.previous_publication) instead of keeping it.
    all_offline = services.llm is None or (day_fallback is not None and not written.by_llm)
    writer = OFFLINE_WRITER if all_offline else services.writer
    markdown, html = render_markdown(digest, profile), render_html(digest, profile)
    stored = store.digests.save(digest, writer, markdown, html, profile.key)
    reporter.stage("publishing")
    return RunResult(
        digest_date,
        listing.day,
        picks=tuple(picks),
        files=publish_files(store, stored, paths),
        writer=writer,
        papers_considered=len(papers),
        notes=(*listing.notes, *ranked.notes),
        deliveries=deliver_published(store, profile, stored, options, reporter),
        picks_wanted=picks.wanted,
        fallbacks=fallbacks,
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
