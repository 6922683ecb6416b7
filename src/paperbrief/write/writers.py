"""Which writer writes: the offline writer, or the LLM writer with the offline one as its
fallback. ``Services`` picks one when it is built (``services.writer``); the pipeline hands
it the picks and stores what comes back.

A writer does two things:

* ``write_briefs(jobs, profile, stage)`` yields one ``Written`` per pick, in the order
  given, as each is done (the pipeline stores it at once, so a crash later loses nothing
  written). ``jobs`` may be lazy (the pipeline reads each pick's full text as it is
  asked for): the offline writer writes each pick as it is read, the LLM writer starts
  once every full text is in and says so through ``stage``;
* ``write_day(briefs, profile, day, strict=)`` makes the day's digest around the briefs
  (``Composed``: the digest, who it is stored as written by, and the fallback).

A full-text pick's deep read is written in two halves when the writer has a reading
cache (``write.shared_read``: the paper's reading, kept once for every reader of the home,
and this reader's part); an abstract-only pick in one call (``write.llm_writer``).

Each knows its own failures. The offline writer has none it could fall back from. The LLM
writer runs the deep reads in parallel threads (``profile.llm.concurrency``; the client
bounds requests in flight and the budget); a deep read that fails for any reason (endpoint,
budget, answer, the run's deadline) leaves that pick with the offline brief, which says so,
and a day synthesis that fails leaves the offline assembly. Only a broken store or output
folder (``errors.FATAL``) stops the day.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from paperbrief.errors import FATAL
from paperbrief.llm import StructuredLLM
from paperbrief.models import (
    OFFLINE_WRITER,
    DayFacts,
    Digest,
    Document,
    Fallback,
    PaperBrief,
    ScoredPaper,
)
from paperbrief.profile import Profile
from paperbrief.write.llm_writer import write_brief_llm, write_day_llm
from paperbrief.write.notes import around_llm_briefs, with_fallback_note
from paperbrief.write.offline import write_brief_offline, write_day_offline
from paperbrief.write.shared_read import ReadingCache, write_brief_shared

Job = tuple[ScoredPaper, Document | None]  # a pick and its full text (None: abstract only)
Stage = Callable[[str], None]  # says what the run is doing now (the pipeline's reporter)


def _silent(message: str) -> None:
    pass


@dataclass(frozen=True)
class Written:
    """One pick's brief, who it is stored as written by, and the fallback that made it."""

    brief: PaperBrief
    writer: str
    fallback: Fallback | None = None


@dataclass(frozen=True)
class Briefs:
    """The day's briefs in pick order, the full texts they were read from, and the picks
    whose deep read fell back."""

    briefs: list[PaperBrief]
    documents: dict[str, Document] = field(default_factory=dict)
    fell_back: frozenset[str] = frozenset()  # arXiv ids


@dataclass(frozen=True)
class Composed:
    """The day's digest, who it is stored as written by, and the fallback that made it."""

    digest: Digest
    writer: str
    fallback: Fallback | None = None


class Writer(Protocol):
    """Who writes the briefs and the day."""

    @property
    def name(self) -> str:
        """``offline`` or the writer model: whose stored briefs a rerun reuses."""
        ...

    def write_briefs(
        self, jobs: Iterable[Job], profile: Profile, stage: Stage = _silent
    ) -> Iterator[Written]: ...

    def write_day(
        self, briefs: Briefs, profile: Profile, day: DayFacts, *, strict: bool = False
    ) -> Composed: ...


class OfflineWriter:
    """The honest digest from what can be extracted, without an LLM (``write.offline``)."""

    name = OFFLINE_WRITER

    def write_briefs(
        self, jobs: Iterable[Job], profile: Profile, stage: Stage = _silent
    ) -> Iterator[Written]:
        for scored, document in jobs:
            yield Written(write_brief_offline(scored, document, profile), self.name)

    def write_day(
        self, briefs: Briefs, profile: Profile, day: DayFacts, *, strict: bool = False
    ) -> Composed:
        digest = write_day_offline(briefs.briefs, profile, day, briefs.documents)
        return Composed(digest, self.name)


class LLMWriter:
    """The grounded deep read and the day's synthesis (``write.llm_writer``), falling back
    to ``fallback`` for each part it could not write."""

    def __init__(
        self, client: StructuredLLM, fallback: OfflineWriter, readings: ReadingCache | None = None
    ) -> None:
        self._client = client
        self._fallback = fallback
        self._readings = readings

    def _write_brief(self, job: Job, profile: Profile) -> PaperBrief:
        """A full text is read once for every reader (``write.shared_read``) when there is a
        cache to keep its reading in; an abstract is written in one call."""
        scored, document = job
        if self._readings is not None and document is not None and document.has_fulltext:
            return write_brief_shared(self._client, self._readings, scored, document, profile)
        return write_brief_llm(self._client, scored, document, profile)

    @property
    def name(self) -> str:
        return self._client.model_for("writer")

    def write_briefs(
        self, jobs: Iterable[Job], profile: Profile, stage: Stage = _silent
    ) -> Iterator[Written]:
        pending = list(jobs)  # every full text first: the deep reads then run at once
        if not pending:
            return
        stage(f"writing {len(pending)} deep reads with {self.name}")
        workers = max(1, min(profile.llm.concurrency, len(pending)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [(job, pool.submit(self._write_brief, job, profile)) for job in pending]
            for job, future in futures:
                try:
                    yield Written(future.result(), self.name)
                except FATAL:
                    raise
                except Exception as error:  # endpoint, budget, answer, deadline: all fall back
                    yield self._brief_fallback(job, profile, error)

    def _brief_fallback(self, job: Job, profile: Profile, error: Exception) -> Written:
        fallback = Fallback.of("brief", error, job[0].paper.id)
        (offline,) = self._fallback.write_briefs([job], profile)
        brief = with_fallback_note(offline.brief, fallback, profile.language)
        # Kept as an offline brief: a rerun asks the LLM again.
        return Written(brief, offline.writer, fallback)

    def write_day(
        self, briefs: Briefs, profile: Profile, day: DayFacts, *, strict: bool = False
    ) -> Composed:
        try:  # (write_day_llm also honours [llm] strict_numbers)
            digest = write_day_llm(
                self._client, briefs.briefs, profile, day, documents=briefs.documents, strict=strict
            )
            return Composed(digest, self.name)
        except FATAL:
            raise
        except Exception as error:  # any reason: the offline assembly stands
            fallback = Fallback.of("day", error)
        offline = self._fallback.write_day(briefs, profile, day)
        if len(briefs.fell_back) == len(briefs.briefs):
            # Every LLM part fell back: stored as offline, so the next run with the endpoint
            # back upgrades it (publish.previous_publication) instead of keeping it.
            return Composed(offline.digest, offline.writer, fallback)
        digest = around_llm_briefs(offline.digest, profile, self._client, day.papers_considered)
        return Composed(digest, self.name, fallback)
