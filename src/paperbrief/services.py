"""The composition root: the clients a run needs, built once from the profile, and the
strategies chosen once from them.

``Services.build(profile, store, offline=...)`` is the one place that decides which
external services exist for a run: the embedding model (always; its vectors cached in the
store), the polite arXiv client (unless offline) and the LLM client (unless offline, and
only when an endpoint is configured).

From those clients ``Services`` chooses, once, who does each part of the day (habit 17: no
stage asks which services exist):

| part      | with the client                            | without it                  |
|-----------|--------------------------------------------|-----------------------------|
| ranking   | ``ProfileRanking`` (the embedding model)   | its lexical scorers alone   |
| listings  | ``sources.ArxivListings`` (arXiv)          | ``sources.OfflineListings`` |
| full text | ``fulltext.ArxivFullText`` (arXiv)         | ``fulltext.StoredFullText`` |
| judge     | ``rank.LLMJudge`` (LLM)                    | ``rank.NoJudge``            |
| writer    | ``write.LLMWriter`` (LLM), offline fallback | ``write.OfflineWriter``     |

The LLM writer keeps each full text's reader-independent reading in the store
(``store.readings``), so every reader of the home shares it (``write.shared_read``).

Each strategy knows its own failures and returns its result with the ``Fallback`` that
says what happened. The CLI, the web UI, tests and benchmarks all build services here.

The run's deadline starts here too (``[run] deadline_minutes``): the arXiv and LLM clients
start no request after ``network_deadline`` (the deadline minus a reserve of a tenth, at
most two minutes, in which what is not done falls back and the digest is published), and
none of their requests runs past it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from paperbrief import rank, sources
from paperbrief.environment import llm_configured, resolve_api_key
from paperbrief.fulltext.readers import ArxivFullText, FullTextReader, StoredFullText
from paperbrief.http import PoliteClient
from paperbrief.llm import LLMClient
from paperbrief.models import Fallback, Paper, ScoredPaper
from paperbrief.profile import LLMSettings, Profile
from paperbrief.rank.embed import DEFAULT_MODEL, Embedder, EmbeddingModelError, TextEncoder
from paperbrief.rank.feedback import FeedbackLog
from paperbrief.rank.judge import Judge, LLMJudge, NoJudge
from paperbrief.rank.reader import DayReader, ReaderArchive, cold_reader
from paperbrief.rank.scorers import EmbeddingScorer, default_scorers
from paperbrief.sources import ArxivListings, ListingSource, OfflineListings
from paperbrief.store import Store
from paperbrief.text import arxiv as arxiv_site
from paperbrief.transport import Deadline, Stop
from paperbrief.write import LLMWriter, OfflineWriter, Writer
from paperbrief.write.shared_read import ReadingCache

RESERVE_SHARE = 0.1  # of the run's deadline, kept for the fallbacks and publishing
MAX_RESERVE_SECONDS = 120.0


def network_deadline(minutes: float, stop: Stop | None = None) -> Deadline:
    """When a run with a deadline of ``minutes`` stops starting network work (or, with a
    ``stop``, the moment the run is told to stop, if that comes first)."""
    total = minutes * 60
    reserve = min(total * RESERVE_SHARE, MAX_RESERVE_SECONDS)
    return Deadline.after(total - reserve, f"the run's deadline ({minutes:g} min)", stop)


@dataclass(frozen=True)
class ArxivEndpoints:
    """Where arXiv lives; tests point these at a loopback server."""

    rss: str = sources.DEFAULT_RSS_BASE
    api: str = sources.DEFAULT_API_BASE
    list_page: str = sources.DEFAULT_LIST_BASE
    html: str = arxiv_site.HTML_BASE
    ar5iv: str = arxiv_site.AR5IV_BASE
    pdf: str = arxiv_site.PDF_BASE


@dataclass(frozen=True)
class Ranked:
    """The day's cheap ranking, and the fallback that made it, if any."""

    ranking: list[ScoredPaper]
    fallback: Fallback | None = None


@dataclass
class ProfileRanking:
    """The profile's cheap ranking: BM25 and embeddings per research line, the category
    prior, avoided topics, and what the store knows of the reader (``rank.reader_of_day``:
    the reference the day is scored against, the learned taste, the star calibration).

    When the embedding model cannot be loaded (a damaged install), the day is still
    ranked against its reference, by the scorers that need no model (BM25, the prior,
    avoided topics) and without the taste (it lives in embedding space); the ``Fallback``
    says why, so the digest says it and the run exits 8.
    """

    embedder: Embedder

    def reader(
        self,
        archive: ReaderArchive,
        profile: Profile,
        today: date,
        log: FeedbackLog | None = None,
        before: str | None = None,
    ) -> DayReader:
        """The reader of ``today`` from ``log`` (one reader's feedback; None: the archive's
        whole feedback), counting only what was given before ``before`` when it is set (a
        replay of a past day); without the embedding model, the reader with no feedback
        counted (``rank`` then falls back too, and says so)."""
        try:
            return rank.reader_of_day(archive, self.embedder, profile, today, before, log)
        except EmbeddingModelError:
            return cold_reader(archive.listings, self.embedder, profile, today)

    def rank(self, papers: Sequence[Paper], profile: Profile, reader: DayReader) -> Ranked:
        try:
            return Ranked(rank.rank_for(papers, profile, self.embedder, reader))
        except EmbeddingModelError as error:
            lexical = [s for s in default_scorers(profile) if not isinstance(s, EmbeddingScorer)]
            ranking = rank.rank_papers(
                papers,
                profile,
                self.embedder,
                scorers=lexical,
                reference=reader.reference,
                calibration=reader.reader.calibrations.cheap,
            )
            return Ranked(ranking, Fallback.of("embedding", error))


@dataclass
class Services:
    """External clients the stages need, and the strategies chosen from them (module
    docstring); built once per run and passed in."""

    embedder: Embedder
    http: PoliteClient | None = None  # None: offline (no arXiv, no full text, no LLM)
    llm: LLMClient | None = None  # when an LLM endpoint is configured
    arxiv: ArxivEndpoints = field(default_factory=ArxivEndpoints)
    deadline: Deadline | None = None  # when network work stops (None: never)
    readings: ReadingCache | None = None  # papers' shared readings (the store's)
    ranking: ProfileRanking = field(init=False)
    listings: ListingSource = field(init=False)
    fulltext: FullTextReader = field(init=False)
    judge: Judge = field(init=False)
    writer: Writer = field(init=False)
    owns_http: bool = field(default=True, init=False)  # False: a client shared by the caller

    def __post_init__(self) -> None:
        """The one place each part's strategy is chosen (the table above)."""
        arxiv, http, llm = self.arxiv, self.http, self.llm
        self.ranking = ProfileRanking(self.embedder)
        self.listings = (
            ArxivListings(http, arxiv.rss, arxiv.api, arxiv.list_page)
            if http
            else OfflineListings()
        )
        self.fulltext = (
            ArxivFullText(http, arxiv.html, arxiv.ar5iv, arxiv.pdf) if http else StoredFullText()
        )
        self.judge = LLMJudge(llm) if llm else NoJudge()
        self.writer = LLMWriter(llm, OfflineWriter(), self.readings) if llm else OfflineWriter()

    @classmethod
    def build(
        cls,
        profile: Profile | None,
        store: Store,
        *,
        offline: bool,
        day: date | None = None,
        arxiv: ArxivEndpoints | None = None,
        http: PoliteClient | None = None,
        encoder: TextEncoder | None = None,
        environ: Mapping[str, str] | None = None,
        llm_settings: LLMSettings | None = None,
        embedder: Embedder | None = None,
        stop: Stop | None = None,
    ) -> Services:
        """The services of one run.

        ``day`` scopes the LLM's daily budget (default today); ``arxiv`` and ``http`` replace
        arXiv's endpoints and the polite client (tests point them at a loopback server);
        ``encoder`` is an already loaded embedding model to share (default: load on use);
        without a profile (e.g. `paperbrief read`) the default model, no run deadline, and an
        LLM only when ``llm_settings`` are given (`profile init --from`, before there is a
        profile); ``embedder`` one shared by several readers (``lab.run_lab``). What is
        passed in (``http``, ``embedder``) is the caller's to close. ``stop`` (set by the
        CLI's SIGINT/SIGTERM handler) ends the run's deadline at once: no request starts
        after it and those in flight are abandoned.
        """
        env = os.environ if environ is None else environ
        model = profile.rank.embedding_model if profile is not None else DEFAULT_MODEL
        if embedder is None:
            embedder = Embedder(cache=store.embeddings, model_name=model, encoder=encoder)
        deadline = network_deadline(profile.run.deadline_minutes, stop) if profile else None
        settings = profile.llm if profile is not None else llm_settings
        client: LLMClient | None = None
        if not offline and settings is not None and llm_configured(settings, env):
            client = LLMClient(
                settings,
                store.llm,
                api_key=resolve_api_key(settings, env),
                day=day.isoformat() if day else None,
                deadline=deadline,
            )
        services = cls(
            embedder=embedder,
            http=None if offline else http or PoliteClient(deadline=deadline),
            llm=client,
            arxiv=arxiv or ArxivEndpoints(),
            deadline=deadline,
            readings=store.readings,
        )
        services.owns_http = http is None
        return services

    def close(self) -> None:
        if self.http is not None and self.owns_http:
            self.http.close()
        if self.llm is not None:
            self.llm.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
