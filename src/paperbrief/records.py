"""What the store keeps besides the stage values of ``models.py``: typed records.

The store returns these and takes them (or the values inside them); no caller ever sees a
database row or a JSON string. They live outside ``store/`` so that a stage can name them
in the small protocol it needs without importing the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from paperbrief.models import Digest, Signal


@dataclass(frozen=True)
class StoredDigest:
    """A published digest: the structured value and exactly what was rendered from it."""

    digest: Digest
    markdown: str
    html: str
    writer: str  # "offline" or the writer model
    created_at: str  # ISO timestamp (UTC)
    profile: str = ""  # the key of the profile it was made for ("" before profiles were kept)

    @property
    def digest_date(self) -> date:
        return self.digest.digest_date

    @property
    def listing_day(self) -> date:
        return self.digest.listing_day

    @property
    def language(self) -> str:
        return self.digest.language

    @property
    def title(self) -> str:
        return self.digest.title


@dataclass(frozen=True)
class PickedPaper:
    """One pick of a digest as the archive lists it."""

    paper_id: str
    title: str
    stars: int


@dataclass(frozen=True)
class DigestEntry:
    """A digest in the archive: what it is, without its bodies."""

    digest_date: date
    language: str
    listing_day: date
    writer: str
    title: str
    created_at: str
    picks: tuple[PickedPaper, ...] = ()
    profile: str = ""


@dataclass(frozen=True)
class DigestHit:
    """A digest whose text matches a search, with the matching passage."""

    digest_date: date
    language: str
    title: str
    snippet: str


@dataclass(frozen=True)
class DeliveryStatus:
    """Where one channel (or one e-mail recipient of it, ``target``) stands with a digest.

    ``status``: ``intent`` (written just before sending; found later, the sender died
    mid-send), ``sent``, ``failed`` (certainly not delivered: safe to send again) or
    ``unknown`` (may have been delivered: never sent again without being asked to).
    ``key`` is the Message-ID / Idempotency-Key every attempt of it carries.
    """

    digest_date: date
    channel: str
    status: str  # intent | sent | failed | unknown
    attempts: int
    last_error: str | None
    sent_at: str | None
    updated_at: str
    target: str = ""
    key: str = ""
    detail: str = ""
    profile: str = ""

    @property
    def sent(self) -> bool:
        return self.status == "sent"

    @property
    def label(self) -> str:
        """``channel`` or ``channel <target>``, for messages."""
        return f"{self.channel} {self.target}" if self.target else self.channel


@dataclass(frozen=True)
class Run:
    """One recorded invocation of a command (``paperbrief run`` …)."""

    id: int
    command: str
    listing_day: date | None
    digest_date: date | None
    fingerprint: str | None
    started_at: str
    finished_at: str | None
    status: str  # running | ok | reused | failed | crashed | interrupted | dead
    detail: str | None
    profile: str | None = None  # the reader it ran for (None: before profiles were kept)
    pid: int | None = None
    host: str | None = None


@dataclass(frozen=True)
class FeedbackEvent:
    """One signal about one paper, as recorded."""

    paper_id: str
    signal: Signal
    note: str | None
    source: str  # cli | web | import:<file> | eval-replay
    created_at: str  # ISO timestamp
    id: int = 0  # the store's row id (what `feedback undo ID` names)
    profile: str = ""  # the reader it was given for ('' = every profile of the home)
    title: str = ""  # the paper's title as the signal's source knew it (an import)


@dataclass
class FeedbackState:
    """The reader's standing verdict on one paper: the latest button signal, and the notes."""

    signals: set[Signal]
    notes: list[str]
    last: str = ""


@dataclass(frozen=True)
class LLMCall:
    """One LLM request (or cache hit) and what it cost."""

    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    latency_ms: int
    outcome: str  # ok | cached | http-503 | timeout | budget-exhausted | …
    cache_key: str | None = None
    day: str | None = None  # the budget day (ISO date)
    run_id: int | None = None
    created_at: str | None = None  # when it was recorded (set by the store)


@dataclass(frozen=True)
class LLMUsage:
    """The recorded calls of one budget day, role and model, summed (``paperbrief logs``).

    ``calls`` were requests sent (answered or not), ``failed`` the ones without a usable
    answer (an HTTP error, a timeout, a blank or broken answer), ``cached`` answers served
    from the cache (no tokens, no cost), ``refused`` calls the budget stopped before sending.
    """

    day: str
    role: str
    model: str
    calls: int
    failed: int
    cached: int
    refused: int
    prompt_tokens: int
    completion_tokens: int
    cost: float


@dataclass(frozen=True)
class Spend:
    """What the recorded calls of one budget day cost."""

    tokens: int = 0
    cost: float = 0.0


@dataclass(frozen=True)
class CachedAnswer:
    """An LLM answer kept by content hash, and what it cost when it was first asked."""

    model: str
    response: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Verdict:
    """The LLM judge's verdict on one paper, as judged, stored, exported and replayed."""

    stars: int  # 1..5
    line: str | None  # the research line it serves; "" = none; None = no valid line named
    reason: str
    must_read: bool = False
    instructions: bool = False  # the judge saw instructions to the model in its text
    relevance: int | None = None  # 0-100 on the reader's scale (None: recorded without one)


# The relevance a verdict recorded without one stands for: the middle of its star's band.
BAND_MIDDLE = {1: 17, 2: 45, 3: 65, 4: 82, 5: 95}


@dataclass(frozen=True)
class PaperJudgement:
    """What the judge last said about one paper: its reading's and its screen's relevance."""

    day: str  # the listing day it was judged on (ISO)
    judge: int | None = None
    screen: int | None = None
