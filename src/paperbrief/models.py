"""Shared value types that flow between the pipeline's stages.

Stages exchange these plain, typed values; none of them touches storage. The profile
(the one settings model) lives in ``profile.py``; what the store returns besides these
lives in ``records.py``.
Serialisation is the store's business (one codec built on ``pydantic.TypeAdapter``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Literal

from paperbrief.text import arxiv, shorten

ListingKind = Literal["new", "cross", "replace"]


@dataclass(frozen=True)
class Paper:
    """One arXiv paper as announced in a listing (metadata only)."""

    id: str  # without version, e.g. "2605.22817"
    title: str
    authors: tuple[str, ...]
    abstract: str
    categories: tuple[str, ...]
    primary_category: str
    comment: str | None = None
    announced: str | None = None  # listing day, ISO date
    listings: dict[str, ListingKind] = field(default_factory=dict, hash=False, compare=False)
    version: int | None = None

    @property
    def abs_url(self) -> str:
        return arxiv.abs_url(self.id)

    @property
    def pdf_url(self) -> str:
        return arxiv.pdf_url(self.id, self.version)

    @property
    def html_url(self) -> str:
        return arxiv.html_url(self.id, self.version)

    @property
    def is_cross_list_only(self) -> bool:
        return bool(self.listings) and all(kind == "cross" for kind in self.listings.values())


# ------------------------------------------------------------------ full text
# The structured full text of one paper (``Document``), and the parts its views for the
# writers and the verifier read. Parsing lives in ``fulltext/`` (``latexml.py`` for
# arXiv/ar5iv LaTeXML pages, ``author_html.py``, ``pdf.py``), fetching and the store cache
# in ``fulltext/fetch.py``, the views (budgeted text, evidence index, figure and
# results-table choice) in ``fulltext/views.py``; the store keeps Documents through its codec.
#
# Flags a Document can carry: ``latexml-errors:N``, ``latexml-body-errors:N``,
# ``package-alerts:N``, ``no-title``, ``no-authors``, ``no-abstract``, ``missing-images:N``,
# ``svg-figures:N``, ``author-html``, ``pdf-no-tables``, ``pdf-no-figures``,
# ``pdf-no-sections``, ``metadata-from-listing``, ``degraded-fallback``, ``abstract-only``,
# ``fetch-failed``.

# A paragraph that quotes an example (a prompt, a dialogue, a code listing) starts with this
# mark: the writer sees it as a quotation, and its numbers are never evidence.
EXAMPLE_MARK = "> "


@dataclass(frozen=True)
class Section:
    heading: str
    level: int  # 1 = section, 2 = subsection, …
    paragraphs: tuple[str, ...] = ()  # math kept as its TeX alt-text
    number: str = ""  # e.g. "4.1" ("A" for an appendix, "" when unnumbered)
    # where each paragraph is, for the reader to click through (parallel to paragraphs;
    # empty when unknown): its id in the arXiv HTML ("S4.SS1.p2"), its PDF page (1-based)
    anchors: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()

    @property
    def location(self) -> str:
        """Where a sentence of this section is, e.g. ``Section 4.1 Results``."""
        return " ".join(part for part in ("Section", self.number, self.heading) if part)


@dataclass(frozen=True)
class Table:
    caption: str
    label: str  # e.g. "Table 2"
    rows: tuple[tuple[str, ...], ...]  # cell grid after expanding colspan/rowspan
    header_rows: int = 1
    section: str = ""  # heading of the section the table sits in
    # (row, column) slots that repeat a spanning cell (colspan/rowspan copies), so a
    # renderer can show a merged cell once while every column keeps its header text
    merged: tuple[tuple[int, int], ...] = ()
    anchor: str = ""  # its id in the arXiv HTML ("S4.T2", "S4.T2.sf1" for a sub-table)
    parent: str = ""  # a sub-table's table ("Table 2" for "Table 2b")


@dataclass(frozen=True)
class FigureRef:
    caption: str
    url: str  # absolute, e.g. https://arxiv.org/html/2501.11120v1/x1.png
    label: str = ""  # e.g. "Figure 1"
    anchor: str = ""  # its id in the arXiv HTML ("S3.F2")


@dataclass(frozen=True)
class Document:
    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    sections: tuple[Section, ...] = ()
    tables: tuple[Table, ...] = ()
    figures: tuple[FigureRef, ...] = ()
    references: tuple[str, ...] = ()
    source: str = "abstract"  # arxiv-html | ar5iv | pdf | abstract | local-html | local-pdf
    source_url: str = ""
    flags: tuple[str, ...] = ()  # quality flags, e.g. "latexml-errors:7", "no-abstract"
    attempts: tuple[str, ...] = field(default=())  # why earlier sources failed
    # arXiv's own word on the paper's primary category: a PDF's margin stamp ("[cs.SE]")
    categories: tuple[str, ...] = ()

    @property
    def has_fulltext(self) -> bool:
        """Read from a full text (HTML, PDF), not only from the abstract."""
        return self.source not in ("abstract", "")


class Signal(StrEnum):
    """What the reader (or the pipeline on their behalf) said about a paper.

    The one vocabulary of feedback: the store's table, the learner, the CLI flags and the
    web UI's buttons all use these values.
    """

    PICKED = "picked"  # the paper was a pick of a digest the reader accepted
    UP = "up"  # 👍 more like this
    DOWN = "down"  # 👎 less like this
    SAVE = "save"  # saved for later (a strong 👍)
    HIDE = "hide"  # not interested (a strong 👎)
    READ = "read"  # read it (a mild 👍)
    SHOWN = "shown"  # seen and passed over

    @property
    def is_button(self) -> bool:
        """The reader's own verdicts, offered as buttons in the web UI and as CLI flags."""
        return self in (Signal.UP, Signal.DOWN, Signal.SAVE, Signal.HIDE)


@dataclass(frozen=True)
class Listing:
    """The papers announced on one listing day, as one source delivered them."""

    day: date
    papers: tuple[Paper, ...]
    source: str  # e.g. "snapshot:/path/file.jsonl.gz", "arxiv-rss", "arxiv-list-page"
    notes: tuple[str, ...] = ()  # e.g. "feed was stale, fell back to the /list page"
    # the categories the day was fetched for (a category may have had no paper that day);
    # () when unknown: a snapshot, or a listing stored before this was recorded
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoredPaper:
    """A paper with the cheap ranking's verdict and the evidence for it."""

    paper: Paper
    score: float  # fused score, higher is better; comparable within one day only
    stars: int  # 1..5
    line: str | None  # name of the research line that made it score
    matched_terms: tuple[str, ...] = ()
    components: dict[str, float] = field(default_factory=dict, hash=False, compare=False)
    reason: str = ""  # one line, in the profile's language
    rank: int = 0  # 1-based position in the day's ranking


@dataclass(frozen=True)
class Figure:
    caption: str
    url: str  # absolute
    label: str = ""


@dataclass(frozen=True)
class TableData:
    """A results table ready to render: header row plus body rows of plain text cells."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Implications:
    """💡 What a paper means for the reader's own work."""

    technique: str = ""  # 直接可用的技术点
    experiment: str = ""  # 具体实验想法
    trend: str = ""  # 研究趋势判断


@dataclass(frozen=True)
class PaperReading:
    """What a paper does and shows, the same for every reader (issue 22): the deep read's
    reader-independent half, written once per paper version, writer model and language and
    kept in the store (``store.readings``); each reader's brief adds its own half to it
    (``write.llm_writer.brief_from_parts``). Citations stay inline, as the writer gave them."""

    paper_id: str
    tldr: str = ""
    problem: str = ""
    insight: str = ""
    steps: tuple[str, ...] = ()
    difference: str = ""
    results: TableData | None = None
    result_notes: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    figure: Figure | None = None
    direction: str = ""
    contribution: str = ""
    text_source: str = "abstract"
    notes: tuple[str, ...] = ()  # as PaperBrief.notes: how it was read, what the source lacks


@dataclass(frozen=True)
class PaperBrief:
    """Everything the digest says about one pick. Empty fields are left out when rendered."""

    scored: ScoredPaper
    reason: str  # 推荐理由
    tldr: str = ""
    problem: str = ""
    insight: str = ""  # 核心 Insight
    steps: tuple[str, ...] = ()
    difference: str = ""  # 跟之前方法的本质区别
    method: str = ""  # free method text when steps could not be separated
    results: TableData | None = None
    result_notes: tuple[str, ...] = ()  # 结果解读 bullets
    reported_numbers: tuple[str, ...] = ()  # sentences with numbers, offline writer only
    limitations: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    implications: Implications | None = None
    figure: Figure | None = None
    direction: str = ""  # 方向 column of the overview
    contribution: str = ""  # 核心贡献 column of the overview
    text_source: str = "abstract"  # arxiv-html | ar5iv | pdf | abstract
    notes: tuple[str, ...] = ()  # honest remarks, e.g. "written from the abstract only"

    @property
    def paper(self) -> Paper:
        return self.scored.paper


@dataclass(frozen=True)
class ComparisonTable:
    """方法对比: rows are dimensions, columns are picks."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (dimension, cells per column)
    title: str = ""


OFFLINE_WRITER = "offline"  # Provenance.writer of a digest written without an LLM


@dataclass(frozen=True)
class DayFacts:
    """Which day a digest is about: its date, the listing day it covers, and how many papers
    of that listing the reader's categories held (0 until they are counted)."""

    digest_date: date
    listing_day: date
    papers_considered: int = 0


MAX_FALLBACK_MESSAGE = 1000  # characters of an error's message in a Fallback; hints whole
FallbackPart = Literal["embedding", "ranking", "fulltext", "brief", "day"]


@dataclass(frozen=True)
class Fallback:
    """One part of the digest that was made the fallback way, and why.

    Each strategy that can fail returns its result with the Fallback that says what happened
    (the judge: the cheap ranking stands; a full text: the abstract; a deep read: the
    offline brief; the day synthesis: the offline assembly). The digest says them in its
    language (``write.notes``), and the run exits with ``errors.EXIT_FALLBACKS``.
    """

    part: FallbackPart
    reason: str  # unreachable | timeout | budget | invalid | refused | deadline | fetch | error
    detail: str  # the error itself (English), for the terminal and the run record
    paper_id: str = ""

    @classmethod
    def of(cls, part: FallbackPart, error: BaseException, paper_id: str = "") -> Fallback:
        """The fallback ``error`` caused: its one-word reason (``LLMError.reason``, else
        ``error``) and its text. A long message (an error quoting an answer) is shortened;
        the hint, which says the fix, never is."""
        reason = getattr(error, "reason", "error")
        reason = reason if isinstance(reason, str) else "error"
        message = shorten(str(getattr(error, "message", error)), MAX_FALLBACK_MESSAGE)
        hint = getattr(error, "hint", "")
        detail = f"{message} (hint: {hint})" if isinstance(hint, str) and hint else message
        return cls(part, reason, detail, paper_id)

    def line(self) -> str:
        """One line for the terminal."""
        what = f"{self.part} {self.paper_id}".strip()
        return f"{what} fell back ({self.reason}): {self.detail}"


@dataclass(frozen=True)
class Place:
    """Where an evidence unit is in the paper, for the reader to click through."""

    url: str  # e.g. https://arxiv.org/html/2501.11120v1#S4.SS1.p2, …/pdf/…v1#page=3
    where: str = ""  # e.g. "Section 4.1 Results", "Table 4 · row 3 · % Change"


@dataclass(frozen=True)
class ClaimNote:
    """A claim of the digest the reader is told about: not traced, or cut by strict mode."""

    paper: str  # arXiv id, "" for a day-level claim
    section: str  # e.g. "tldr", "results", "summary"
    text: str  # the claim as the reader reads it
    reason: str = ""  # what the verifier found, e.g. "quantity: 16.3 个百分点 is not in E8"


@dataclass(frozen=True)
class Trace:
    """What the verifier traced: how many claims, which were not traced (marked ⚠), what
    strict mode cut, and the place of every cited unit (paper → unit id → place)."""

    claims: int = 0
    traced: int = 0
    untraced: tuple[ClaimNote, ...] = ()
    cut: tuple[ClaimNote, ...] = ()
    places: dict[str, dict[str, Place]] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Provenance:
    writer: str  # "offline" or the model name
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    numbers_checked: int = 0
    numbers_verified: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    notes: tuple[str, ...] = ()
    trace: Trace | None = None


@dataclass(frozen=True)
class Digest:
    """One day's digest, language-independent until rendered with the label table."""

    digest_date: date
    listing_day: date
    language: str  # "zh" | "en"
    title: str
    description: str
    briefs: tuple[PaperBrief, ...]
    summary: str = ""  # 今日总结
    theme_title: str = ""
    theme: str = ""  # 今日主题 essay
    comparisons: tuple[ComparisonTable, ...] = ()
    closing: str = ""
    papers_considered: int = 0
    provenance: Provenance | None = None
    front_matter: dict[str, object] = field(default_factory=dict, hash=False, compare=False)
