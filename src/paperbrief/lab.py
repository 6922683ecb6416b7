"""Many readers, one home: `paperbrief run --all` (issue 22).

A lab's readers are a folder of profiles (``*.toml``, one reader each, by default
``$PAPERBRIEF_HOME/readers``). ``run_lab`` does the shared work once and then each reader's
own day, in file-name order:

1. every profile is read; one that cannot be read fails that reader only (exit 2);
2. the day's listing is fetched once, for the union of every reader's categories
   (``pipeline.acquire_listing`` with a profile that names them all);
3. one embedding pass over the union of the readers' candidates, with one embedder per
   embedding model, shared by every reader of that model (each reader's ranking then only
   looks its vectors up);
4. each reader's ranking, judging, picks, briefs, digest and delivery (``pipeline.run_day``
   on that reader's view of the store, ``Store.for_reader``: their own feedback, history,
   LLM budget, run lock and delivery journal). Full texts, papers' readings and the LLM
   answer cache are the home's, so a paper a second reader also picked is not read again.

``reporter`` hears each stage of the shared work and each reader's start and end (the
CLI's stage lines on stderr; a reader's own day runs quietly).

One reader's failure (a bad profile, a dead webhook, an unwritable output folder, a crash)
never stops the others: it becomes that reader's ``ReaderOutcome``. Only a broken store
(``errors.StoreError``) stops the lab, since every reader needs it. The lab's exit code is
the most serious reader's (``LabResult.exit_code``); the report names every reader.

SIGINT or SIGTERM (the CLI's ``cli.common.stopping``, its ``Stop`` given to every reader's
services) stops the lab as it stops one run: the reader whose day is under way unwinds and
``pipeline.run_day`` records it ``interrupted`` (a send cut short stays in the journal as
an intent, reported unknown by the rerun, never re-sent unasked); the readers after it are
not started. The result says which reader was stopped and which were never started
(``LabResult.stopped_by``), and its exit code is the signal's (130 / 143). A rerun finds
the finished readers' digests published and sends them nothing; it resumes the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Literal

from paperbrief import rank
from paperbrief.errors import (
    EXIT_DELIVERY_FAILED,
    EXIT_ERROR,
    EXIT_FALLBACKS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EmptyDay,
    PaperbriefError,
    ProfileError,
    StoreError,
)
from paperbrief.http import PoliteClient
from paperbrief.models import DayFacts, Listing
from paperbrief.pipeline import (
    QuietReporter,
    Reporter,
    RunOptions,
    RunResult,
    acquire_listing,
    resolve_day,
    run_day,
)
from paperbrief.profile import Profile, load_profile
from paperbrief.publish import output_paths
from paperbrief.rank.embed import Embedder, EmbeddingModelError
from paperbrief.rank.text import paper_text
from paperbrief.services import ArxivEndpoints, Services, Stop, network_deadline
from paperbrief.store import Store

ReaderStatus = Literal[
    "published", "fell-back", "not-delivered", "empty", "failed", "interrupted", "not-started"
]
# Which reader's code the lab exits with: stopped by a signal first (that reader, and those
# it kept from starting), then no digest at all, then not delivered, then published with
# fallbacks.
_SEVERITY: dict[ReaderStatus, int] = {
    "interrupted": -2,
    "not-started": -1,
    "failed": 0,
    "empty": 1,
    "not-delivered": 2,
    "fell-back": 3,
    "published": 4,
}

# Builds one reader's services on their view of the store, sharing ``embedder``.
ServicesFactory = Callable[[Profile, Store, Embedder], Services]


@dataclass(frozen=True)
class ReaderOutcome:
    """What one reader's day came to."""

    reader: str  # the profile file's stem: how the lab names the reader
    status: ReaderStatus
    exit_code: int
    detail: str = ""  # the error, or what fell back / was not delivered
    hint: str = ""
    name: str = ""  # the profile's name (its store key), once read
    result: RunResult | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class LabResult:
    digest_date: date | None
    listing_day: date | None
    outcomes: tuple[ReaderOutcome, ...]
    papers_listed: int = 0
    papers_embedded: int = 0  # the union of every reader's candidates, embedded once
    notes: tuple[str, ...] = ()
    stopped_by: str = ""  # the signal that stopped the lab ("SIGTERM"), if one did
    stop_code: int = 0  # then the exit code it means (130 / 143)

    @property
    def published(self) -> list[ReaderOutcome]:
        return [o for o in self.outcomes if o.result is not None]

    @property
    def exit_code(self) -> int:
        """The most serious reader's exit code (no digest, then not delivered, then
        fallbacks; among equals the first reader's); 0 when every reader's day was clean.
        Stopped by a signal, the signal's code (a rerun resumes)."""
        if self.stopped_by:
            return self.stop_code
        if not self.outcomes:
            return EXIT_USAGE
        worst = min(self.outcomes, key=lambda o: _SEVERITY[o.status])
        return worst.exit_code


@dataclass(frozen=True)
class Reader:
    """A profile file and, when it could be read, its profile."""

    path: Path
    profile: Profile | None = None
    error: PaperbriefError | None = None

    @property
    def label(self) -> str:
        return self.path.stem


def reader_files(folder: Path) -> list[Path]:
    """The lab's profile files, in name order; raises ``ProfileError`` when there are none."""
    if not folder.is_dir():
        raise ProfileError(
            f"no readers folder at {folder}",
            "put one profile per reader in it (e.g. alice.toml), or pass --readers FOLDER",
        )
    files = sorted(p for p in folder.glob("*.toml") if p.is_file())
    if not files:
        raise ProfileError(
            f"the readers folder {folder} holds no *.toml profile",
            "copy each reader's profile into it (`paperbrief profile init` writes one)",
        )
    return files


def load_readers(files: Sequence[Path]) -> list[Reader]:
    """Each file read on its own: a broken one is that reader's error, not the lab's. Two
    profiles with the same name would share their digests and feedback: the later fails."""
    readers: list[Reader] = []
    names: dict[str, Path] = {}
    for path in files:
        try:
            profile = load_profile(path)
        except PaperbriefError as error:
            readers.append(Reader(path, error=error))
            continue
        if profile.key in names:
            same = ProfileError(
                f"{path.name} names the reader {profile.key!r}, as {names[profile.key].name}"
                " does: they would share one digest, feedback and budget",
                f"give the reader of {path.name} their own name",
            )
            readers.append(Reader(path, error=same))
            continue
        names[profile.key] = path
        readers.append(Reader(path, profile))
    return readers


def shared_http(
    profiles: Sequence[Profile], offline: bool, stop: Stop | None = None
) -> PoliteClient | None:
    """One polite arXiv client for the whole lab (its one request per 3 s holds across
    readers), its deadline the longest of the readers' or ``stop``; the caller closes it."""
    if offline:
        return None
    minutes = max((p.run.deadline_minutes for p in profiles), default=60.0)
    return PoliteClient(deadline=network_deadline(minutes, stop))


@contextmanager
def lab_services(
    profiles: Sequence[Profile],
    *,
    offline: bool,
    day: date,
    stop: Stop | None = None,
    arxiv: ArxivEndpoints | None = None,
    http: PoliteClient | None = None,
) -> Iterator[ServicesFactory]:
    """What builds each reader's services in a lab: one polite client shared by all (the
    caller's ``http``, or ``shared_http``, closed at the end), ``day`` scoping each
    reader's LLM budget, and ``stop`` (set by the CLI's SIGINT/SIGTERM handler) ending every
    reader's deadline at once. ``arxiv`` and ``http`` replace arXiv's endpoints and client
    (tests point them at a loopback server)."""
    shared = http or shared_http(profiles, offline, stop)

    def build(profile: Profile, store: Store, embedder: Embedder) -> Services:
        return Services.build(
            profile, store, offline=offline, day=day, arxiv=arxiv, http=shared,
            embedder=embedder, stop=stop,
        )  # fmt: skip

    try:
        yield build
    finally:
        if shared is not None and http is None:
            shared.close()


def union_profile(profiles: Sequence[Profile]) -> Profile:
    """A profile naming every reader's categories: what the shared listing is fetched for."""
    categories = list(dict.fromkeys(c for p in profiles for c in p.all_categories))
    return profiles[0].model_copy(
        update={
            "categories": categories,
            "secondary_categories": [],
            "include_replacements": any(p.include_replacements for p in profiles),
        }
    )


def embed_candidates(
    listing: Listing, profiles: Sequence[Profile], embedders: dict[str, Embedder]
) -> int:
    """The one embedding pass: every reader's candidates, each text once per model. A model
    that cannot be loaded is left to each reader's ranking, which then ranks without it
    and says so (``services.ProfileRanking``)."""
    embedded = 0
    for model, embedder in embedders.items():
        texts: dict[str, None] = {}
        for profile in profiles:
            if profile.rank.embedding_model == model:
                papers = rank.candidates(listing, profile)
                texts.update(dict.fromkeys(paper_text(p) for p in papers))
        try:
            embedder.embed(list(texts))
        except EmbeddingModelError:
            continue
        embedded += len(texts)
    return embedded


def _outcome(reader: Reader, result: RunResult, seconds: float) -> ReaderOutcome:
    name = reader.profile.key if reader.profile else ""
    if result.failed_channels:
        return ReaderOutcome(
            reader.label, "not-delivered", EXIT_DELIVERY_FAILED,
            "delivery not done: " + ", ".join(result.failed_channels),
            "failed channels are retried on the next run", name, result, seconds,
        )  # fmt: skip
    if result.fallbacks:
        parts = sorted({f.part for f in result.fallbacks})
        return ReaderOutcome(
            reader.label, "fell-back", EXIT_FALLBACKS,
            "published with fallbacks: " + ", ".join(parts), "", name, result, seconds,
        )  # fmt: skip
    detail = "already published" if result.reused else f"{len(result.picks)} picks"
    return ReaderOutcome(reader.label, "published", EXIT_OK, detail, "", name, result, seconds)


def _failure(reader: Reader, error: BaseException, seconds: float = 0.0) -> ReaderOutcome:
    name = reader.profile.key if reader.profile else ""
    if isinstance(error, EmptyDay):
        return ReaderOutcome(
            reader.label, "empty", error.exit_code, error.message, error.hint, name,
            seconds=seconds,
        )  # fmt: skip
    if isinstance(error, PaperbriefError):
        return ReaderOutcome(
            reader.label, "failed", error.exit_code, error.message, error.hint, name,
            seconds=seconds,
        )  # fmt: skip
    return ReaderOutcome(
        reader.label, "failed", EXIT_ERROR, f"crashed: {error!r}",
        "rerun this reader alone with PAPERBRIEF_DEBUG=1 to see the traceback", name,
        seconds=seconds,
    )  # fmt: skip


def _output_clash(readers: Sequence[Reader], options: RunOptions, day: date) -> dict[Path, str]:
    """Whose files each output path is (the first reader claiming it keeps it)."""
    owners: dict[Path, str] = {}
    for reader in readers:
        if reader.profile is None:
            continue
        for path in output_paths(reader.profile, _out_dir(reader, options), day).values():
            owners.setdefault(path.resolve(), reader.label)
    return owners


def _out_dir(reader: Reader, options: RunOptions) -> Path | None:
    """With --out, each reader's files go to their own sub-folder of it."""
    return options.out_dir / reader.label if options.out_dir is not None else None


def run_lab(
    store: Store,
    readers: Sequence[Reader],
    options: RunOptions,
    build_services: ServicesFactory,
    *,
    today: date,
    reporter: Reporter | None = None,
) -> LabResult:
    """The lab's day (module docstring). Raises only ``StoreError``."""
    reporter = reporter or QuietReporter()
    failed = [_failure(r, r.error) for r in readers if r.error is not None]
    good = [r for r in readers if r.profile is not None]
    profiles = [r.profile for r in good if r.profile is not None]
    if not profiles:
        return LabResult(None, None, tuple(failed))
    day = resolve_day(options, today)
    embedders = {
        model: Embedder(cache=store.embeddings, model_name=model)
        for model in dict.fromkeys(p.rank.embedding_model for p in profiles)
    }
    try:
        reporter.stage(f"loading the listing for {len(profiles)} readers")
        try:
            union = union_profile(profiles)
            with build_services(union, store, next(iter(embedders.values()))) as s:
                listing = acquire_listing(store, union, options, day.listing_day, s)
        except StoreError:
            raise
        except PaperbriefError as error:  # no listing: nobody's day can be written
            every = tuple(failed) + tuple(_failure(r, error) for r in good)
            return LabResult(day.digest_date, day.listing_day, _in_file_order(readers, every))
        reporter.stage(f"embedding the candidates of {len(profiles)} readers")
        embedded = embed_candidates(listing, profiles, embedders)
    except KeyboardInterrupt as error:  # SIGINT / SIGTERM before any reader's day
        return _stopped(readers, failed, good, None, error, day)
    outcomes = list(failed)
    current: Reader | None = None
    try:
        owners = _output_clash(good, options, day.digest_date)
        for number, reader in enumerate(good, 1):
            current = reader
            which = f"reader {number}/{len(good)} {reader.label}"
            reporter.stage(f"{which}: started")
            outcome = _reader_day(store, reader, options, build_services, embedders, listing,
                                  owners, today)  # fmt: skip
            outcomes.append(outcome)
            reporter.stage(f"{which}: {outcome.status} in {outcome.seconds:.0f} s")
    except KeyboardInterrupt as error:
        stopped = _stopped(readers, outcomes, good, current, error, day)
        return replace(
            stopped,
            papers_listed=len(listing.papers),
            papers_embedded=embedded,
            notes=listing.notes,
        )
    return LabResult(
        day.digest_date,
        day.listing_day,
        _in_file_order(readers, outcomes),
        papers_listed=len(listing.papers),
        papers_embedded=embedded,
        notes=listing.notes,
    )


def _stopped(
    readers: Sequence[Reader],
    outcomes: Sequence[ReaderOutcome],
    good: Sequence[Reader],
    current: Reader | None,
    error: KeyboardInterrupt,
    day: DayFacts,
) -> LabResult:
    """The lab stopped by a signal: the readers done keep their outcome, the one under way
    is ``interrupted`` (``run_day`` recorded it so), the rest ``not-started``."""
    reason = str(error) or "SIGINT"
    code = getattr(error, "exit_code", EXIT_INTERRUPTED)  # cli.common.Interrupted's, or ^C
    rerun = "rerun `paperbrief run --all`: it resumes here and sends nothing already sent"
    done = {o.reader for o in outcomes}
    every = list(outcomes)
    for reader in good:
        if reader.label in done:
            continue
        name = reader.profile.key if reader.profile else ""
        if reader is current:
            detail = f"stopped by {reason} during this reader's day (recorded interrupted)"
            every.append(ReaderOutcome(reader.label, "interrupted", code, detail, rerun, name))
        else:
            detail = f"the lab was stopped by {reason} before this reader's day"
            every.append(ReaderOutcome(reader.label, "not-started", code, detail, rerun, name))
    return LabResult(
        day.digest_date,
        day.listing_day,
        _in_file_order(readers, every),
        stopped_by=reason,
        stop_code=code,
    )


def _reader_day(
    store: Store,
    reader: Reader,
    options: RunOptions,
    build_services: ServicesFactory,
    embedders: dict[str, Embedder],
    listing: Listing,
    owners: dict[Path, str],
    today: date,
) -> ReaderOutcome:
    profile = reader.profile
    assert profile is not None
    started = time.perf_counter()
    out_dir = _out_dir(reader, options)
    day = resolve_day(options, today)
    for path in output_paths(profile, out_dir, day.digest_date).values():
        if owners.get(path.resolve(), reader.label) != reader.label:
            clash = ProfileError(
                f"{reader.path.name} writes {path}, as {owners[path.resolve()]}'s profile does",
                "give each reader their own [output] dir, or run with --out FOLDER (one"
                " sub-folder per reader)",
            )
            return _failure(reader, clash)
    view = store.for_reader(profile.key)
    try:
        with build_services(profile, view, embedders[profile.rank.embedding_model]) as services:
            result = run_day(
                view,
                profile,
                replace(options, out_dir=out_dir),
                services,
                today=today,
                listing=listing,
            )
    except StoreError:
        raise
    except Exception as error:  # one reader's failure never stops the others
        return _failure(reader, error, time.perf_counter() - started)
    return _outcome(reader, result, time.perf_counter() - started)


def _in_file_order(
    readers: Sequence[Reader], outcomes: Sequence[ReaderOutcome]
) -> tuple[ReaderOutcome, ...]:
    order = {r.label: i for i, r in enumerate(readers)}
    return tuple(sorted(outcomes, key=lambda o: order.get(o.reader, len(order))))


__all__ = [
    "LabResult",
    "Reader",
    "ReaderOutcome",
    "embed_candidates",
    "lab_services",
    "load_readers",
    "reader_files",
    "run_lab",
    "shared_http",
    "union_profile",
]
