"""The daily pipeline: fetch listing → rank → read full text → write → verify → render → deliver.

This module only chains the stages. Every stage result is stored as soon as it exists, so a
crash loses nothing already done and a rerun resumes: the listing, the scores, each paper's
full text and each written brief are reused; the digest is published once per date unless
``force`` is set.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from paperbrief import fulltext, rank, sources
from paperbrief.errors import FetchFailed, NothingPassed, PaperbriefError
from paperbrief.fulltext import fetch as fulltext_fetch
from paperbrief.fulltext.document import Document
from paperbrief.http import PoliteClient
from paperbrief.labels import labels_for
from paperbrief.models import Digest, Listing, Paper, PaperBrief, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank.feedback import learner_settings
from paperbrief.rank.judge import judge_ranking
from paperbrief.render import render_html, render_markdown
from paperbrief.store import Store
from paperbrief.write.offline import write_brief_offline, write_day_offline

if TYPE_CHECKING:
    from paperbrief.llm import LLMClient

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
    """What one `paperbrief run` should do."""

    digest_date: date | None = None  # default: the day after the listing day
    listing_day: date | None = None  # default: derived from digest_date / today
    listing_file: Path | None = None  # a local snapshot instead of live arXiv
    out_dir: Path | None = None  # default: profile.output.dir
    force: bool = False  # regenerate scores, briefs and the digest
    offline: bool = False  # no network at all: no full text, no LLM
    deliver: bool = True
    strict: bool = False  # drop claims whose numbers the papers do not support (LLM writer)


@dataclass
class RunResult:
    digest_date: date
    listing_day: date
    picks: list[ScoredPaper]
    files: dict[str, Path] = field(default_factory=dict)
    reused: bool = False  # the digest was already published; nothing regenerated
    writer: str = "offline"
    papers_considered: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ArxivEndpoints:
    """Where arXiv lives; tests point these at a loopback server."""

    rss: str = sources.DEFAULT_RSS_BASE
    api: str = sources.DEFAULT_API_BASE
    list_page: str = sources.DEFAULT_LIST_BASE
    html: str = fulltext_fetch.HTML_BASE
    ar5iv: str = fulltext_fetch.AR5IV_BASE
    pdf: str = fulltext_fetch.PDF_BASE


@dataclass
class Services:
    """External clients the stages need; built once per run and passed in."""

    http: PoliteClient | None = None
    embedder: rank.Embedder | None = None
    llm: LLMClient | None = None  # when an LLM is configured
    arxiv: ArxivEndpoints = field(default_factory=ArxivEndpoints)


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
        if options.offline or services.http is None:
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


def filter_papers(listing: Listing, profile: Profile) -> list[Paper]:
    """Papers listed in the profile's categories (replacements only when asked for)."""
    wanted = set(profile.all_categories)
    kept = []
    for paper in listing.papers:
        kinds = {cat: kind for cat, kind in paper.listings.items() if cat in wanted}
        if not paper.listings:  # a source without per-category info: use the categories
            kinds = {cat: "new" for cat in paper.categories if cat in wanted}
        if not kinds:
            continue
        if not profile.include_replacements and all(k == "replace" for k in kinds.values()):
            continue
        kept.append(paper)
    return kept


def rank_day(
    store: Store,
    profile: Profile,
    papers: Sequence[Paper],
    listing_day: date,
    services: Services,
    force: bool,
    notes: list[str] | None = None,
) -> list[ScoredPaper]:
    """The day's full ranking, reused from the store when the profile has not changed.

    With an LLM configured the judge re-orders the head of the cheap ranking; its failures
    are appended to ``notes`` (the day still goes on with the cheap order).
    """
    notes = notes if notes is not None else []
    fingerprint = profile.fingerprint()
    if services.llm is not None:
        # A judged ranking is not interchangeable with a cheap one (e.g. from `rank`).
        fingerprint += f":judge:{services.llm.model_for('judge')}"
    if not force:
        stored = store.rankings.load(listing_day, fingerprint)
        if len(stored) == len(papers):
            return stored
    embedder = services.embedder or rank.Embedder(cache=store.embeddings)
    # All stored feedback counts; recency weighting is anchored on the ranked day.
    feedback = rank.load_feedback(
        store.feedback, store.listings, embedder, today=listing_day, **learner_settings(profile)
    )
    ranking = rank.rank_papers(papers, profile, embedder, feedback=feedback)
    if services.llm is not None:
        # The judge screens the cheap ranking's head; a failed batch keeps its cheap order.
        judged = judge_ranking(ranking, profile, services.llm, max_workers=profile.llm.concurrency)
        ranking = judged.ranking
        for error in judged.errors:
            notes.append(f"judge: {error}")
    store.rankings.save(listing_day, fingerprint, ranking)
    return ranking


def read_fulltext(store: Store, paper: Paper, services: Services, offline: bool) -> Document | None:
    """The paper's Document: from the store, else read once (and stored); None offline.

    An abstract-only result is not stored, so a paper whose full text was unreachable
    (usually a network failure) is tried again on the next run.
    """
    if offline or services.http is None:
        return store.documents.load(paper.id)
    # Online, the fulltext stage's cache also checks the stored version against the paper's.
    return fulltext.load_or_read_paper(
        store.documents,
        paper,
        services.http,
        html_base=services.arxiv.html,
        ar5iv_base=services.arxiv.ar5iv,
        pdf_base=services.arxiv.pdf,
    )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_outputs(
    store: Store, digest_date: date, files: dict[str, tuple[Path, str]]
) -> dict[str, Path]:
    """Write each output atomically; a file already holding the same content is left alone."""
    written: dict[str, Path] = {}
    for kind, (path, text) in files.items():
        digest = _sha(text)
        if not (path.exists() and _sha(path.read_text(encoding="utf-8")) == digest):
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(path.suffix + ".tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)
        store.outputs.record(digest_date, kind, str(path.resolve()), digest)
        written[kind] = path
    return written


def _output_paths(profile: Profile, out_dir: Path, digest_date: date) -> dict[str, Path]:
    stem = profile.output.filename.format(date=digest_date.isoformat())
    paths = {"markdown": out_dir / f"{stem}.md"}
    if profile.output.html:
        paths["html"] = out_dir / f"{stem}.html"
    return paths


def write_briefs(
    store: Store,
    profile: Profile,
    picks: Sequence[ScoredPaper],
    digest_date: date,
    services: Services,
    options: RunOptions,
    reporter: Reporter,
) -> tuple[list[PaperBrief], dict[str, Document]]:
    """Write (or resume) one brief per pick; each is stored as soon as it is written.

    Offline briefs are written as each paper is read; LLM deep reads run concurrently once
    every pick's full text is in (the client bounds concurrency and budget).
    """
    writer = _writer_name(services)
    written: dict[str, PaperBrief] = {}
    documents: dict[str, Document] = {}
    pending: list[tuple[ScoredPaper, Document | None]] = []

    def keep(brief: PaperBrief) -> None:
        store.briefs.save(digest_date, profile.language, writer, brief)
        written[brief.paper.id] = brief

    for scored in reporter.track(picks, "reading the picks"):
        document = read_fulltext(store, scored.paper, services, options.offline)
        if document is not None:
            documents[scored.paper.id] = document
        stored = store.briefs.load(digest_date, scored.paper.id, profile.language, writer)
        if stored is not None and not options.force:
            written[scored.paper.id] = stored
        elif services.llm is None:
            keep(write_brief_offline(scored, document, profile))
        else:
            pending.append((scored, document))
    if pending:
        from paperbrief.write.llm_writer import write_briefs_llm

        assert services.llm is not None  # pending is only filled on the LLM path
        reporter.stage(f"writing {len(pending)} deep reads with {writer}")
        write_briefs_llm(services.llm, pending, profile, profile.language, on_done=keep)
    return [written[p.paper.id] for p in picks], documents


def _writer_name(services: Services) -> str:
    if services.llm is None:
        return "offline"
    return services.llm.model_for("writer")


def compose_digest(
    profile: Profile,
    briefs: list[PaperBrief],
    documents: dict[str, Document],
    digest_date: date,
    listing_day: date,
    papers_considered: int,
    services: Services,
    strict: bool = False,
) -> Digest:
    """The day-level digest: offline assembly, or the LLM's synthesis plus verification."""
    if services.llm is None:
        return write_day_offline(
            briefs,
            profile,
            digest_date=digest_date,
            listing_day=listing_day,
            papers_considered=papers_considered,
        )
    from paperbrief.write.llm_writer import write_day_llm

    return write_day_llm(
        services.llm,
        briefs,
        profile,
        digest_date=digest_date,
        listing_day=listing_day,
        papers_considered=papers_considered,
        documents=documents,
        strict=strict or profile.llm.strict_numbers,
    )


def run_day(
    store: Store,
    profile: Profile,
    options: RunOptions,
    services: Services,
    *,
    today: date,
    reporter: Reporter | None = None,
    deliver: Callable[..., object] | None = None,
) -> RunResult:
    """Run the whole pipeline for one day. Raises EmptyDay when there is nothing to publish."""
    reporter = reporter or QuietReporter()
    listing_day, digest_date = resolve_days(options, today)
    run_id = store.runs.start("run", listing_day, digest_date, profile.fingerprint())
    try:
        result = _run(store, profile, options, services, listing_day, digest_date, reporter)
        if deliver is not None and options.deliver:
            reporter.stage("delivering")
            deliver(result)
    except PaperbriefError as error:
        store.runs.finish(run_id, "failed", error.message)
        raise
    except BaseException as error:
        store.runs.finish(run_id, "crashed", repr(error))
        raise
    store.runs.finish(run_id, "reused" if result.reused else "ok", json.dumps(result.notes))
    return result


def _run(
    store: Store,
    profile: Profile,
    options: RunOptions,
    services: Services,
    listing_day: date | None,
    digest_date: date | None,
    reporter: Reporter,
) -> RunResult:
    labels = labels_for(profile.language)
    reporter.stage("loading the listing")
    listing = acquire_listing(store, profile, options, listing_day, services)
    listing_day = listing.day
    digest_date = digest_date or sources.digest_date_for(listing_day)
    out_dir = options.out_dir or Path(profile.output.dir)
    paths = _output_paths(profile, out_dir, digest_date)

    existing = store.digests.load(digest_date, profile.language)
    writer = _writer_name(services)
    # An offline digest is upgraded when an LLM is available; nothing is ever downgraded.
    upgrade = existing is not None and existing.writer == "offline" and writer != "offline"
    if existing is not None and not options.force and not upgrade:
        texts = {"markdown": existing.markdown, "html": existing.html}
        files = write_outputs(
            store, digest_date, {kind: (path, texts[kind]) for kind, path in paths.items()}
        )
        return RunResult(
            digest_date,
            listing_day,
            picks=[],
            files=files,
            reused=True,
            writer=existing.writer,
            notes=[f"digest for {digest_date} already published; pass --force to regenerate"],
        )

    earlier = [
        day
        for day in store.digests.dates_for_listing(listing_day, profile.language)
        if day != digest_date
    ]
    if earlier and not options.force:
        return RunResult(
            earlier[-1],
            listing_day,
            picks=[],
            reused=True,
            notes=[
                f"listing {listing_day} was already published as the digest of {earlier[-1]};"
                f" pass --force to publish it again as {digest_date}"
            ],
        )

    papers = filter_papers(listing, profile)
    if not papers:
        raise NothingPassed(
            labels.empty_reason_nothing_passed.format(day=listing_day, total=0)
            + f" (none of {len(listing.papers)} listed papers is in "
            + ", ".join(profile.all_categories)
            + ")",
            "check the profile's categories",
        )
    reporter.stage(f"ranking {len(papers)} papers")
    run_notes = list(listing.notes)
    ranking = rank_day(store, profile, papers, listing_day, services, options.force, run_notes)
    picks = rank.select_picks(ranking, profile)
    if not picks:
        raise NothingPassed(
            labels.empty_reason_nothing_passed.format(day=listing_day, total=len(papers)),
            f"lower min_stars (now {profile.min_stars}) in the profile to see weaker matches",
        )
    store.picks.save(digest_date, listing_day, picks)

    briefs, documents = write_briefs(
        store, profile, picks, digest_date, services, options, reporter
    )
    reporter.stage("composing the digest")
    digest = compose_digest(
        profile,
        briefs,
        documents,
        digest_date,
        listing_day,
        len(papers),
        services,
        strict=options.strict,
    )
    markdown = render_markdown(digest, profile)
    html = render_html(digest, profile)
    store.digests.save(digest, _writer_name(services), markdown, html)
    texts = {"markdown": markdown, "html": html}
    files = write_outputs(
        store, digest_date, {kind: (path, texts[kind]) for kind, path in paths.items()}
    )
    return RunResult(
        digest_date,
        listing_day,
        picks=list(picks),
        files=files,
        writer=_writer_name(services),
        papers_considered=len(papers),
        notes=run_notes,
    )
