"""The verifier: is every number a digest states traceable to the paper it is about?

Every section that carries numbers is checked (``claims.py`` says which numbers are claims
and which section each belongs to). A claim is *supported* when its source holds the same
quantity (``Pool.supports``):

* units must agree: ``41.3%`` is matched by 41.3% (or 41.3 pp / points), by a cell under a
  "%" column, or by a bare number over 1 whose unit the paper leaves open (an "Acc." cell);
  ``7.36 秒`` by 7.36 seconds, never 7.36 minutes; ``$4.6`` by $4.6; ``31 million`` by
  31 million (or 31,000,000 or 3100 万), never by a bare 31;
* ×100 / ÷100 only where the units make it the same quantity: a percentage and a fraction
  (``74%`` = ``0.74``), never a percentage and a count (``35%`` ≠ ``[35]`` or 35 runs);
* a bare claim (no unit) is matched by the same written number with any unit;
* the digest may round the paper's value, never add precision (``29.5`` ⇐ ``29.53``);
* a value is never supported by a standard error (``2.45%`` ≠ SE ``0.0245``), a citation
  marker, a year, a reference to a table/section/figure/page, a ratio such as ``24/7`` or a
  number inside a quoted example prompt (see ``fulltext.evidence_index``).

Sources: a brief's sections are checked against its paper (evidence index and title) and
the reader's profile (``known``: their own findings are not claims about the paper). A
day-level sentence (summary, theme, closing) is checked against the papers it names (by id,
title or short name) — or every pick when it names none — plus the day's own facts (papers
considered, picks). Lookups are binary searches over sorted values, so a check is
O(n log n) in the digest's and the papers' numbers.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from paperbrief import fulltext
from paperbrief.models import Digest, Document, PaperBrief
from paperbrief.text import NumberMention, find_numbers, shorten
from paperbrief.text.numbers import UNIT_DIMENSIONS
from paperbrief.write.claims import (
    DAY,
    Chunk,
    MarkdownDigest,
    brief_chunks,
    claims_in,
    clause_spans,
    covered_papers,
    digest_chunks,
    name_key,
    paper_names,
    read_markdown,
    segment_spans,
)

__all__ = [
    "Checker",
    "NumberClaim",
    "Pool",
    "VerifyReport",
    "claims_in",
    "covered_papers",
    "markdown_checker",
    "paper_pool",
    "verify_brief",
    "verify_digest",
    "verify_markdown",
]


@dataclass(frozen=True)
class NumberClaim:
    paper: str  # arXiv id, or "" for a day-level section
    section: str  # e.g. tldr, results, result_notes, summary, comparison
    text: str  # the number as written, e.g. "29.5%"
    context: str  # the sentence or cell it sits in (shortened)
    line: int = 0  # line of the rendered digest (0 when checked before rendering)


@dataclass(frozen=True)
class VerifyReport:
    numbers: int
    verified: int
    unverified: tuple[NumberClaim, ...] = ()
    papers: tuple[str, ...] = ()
    missing_papers: tuple[str, ...] = field(default=())  # covered but nothing stored

    @property
    def ok(self) -> bool:
        return not self.unverified

    def to_json(self) -> dict[str, object]:
        return {
            "numbers": self.numbers,
            "verified": self.verified,
            "unverified": [dataclasses.asdict(claim) for claim in self.unverified],
            "papers": list(self.papers),
            "missing_papers": list(self.missing_papers),
        }


# ---------------------------------------------------------------------- pools
class _Sorted:
    """A sorted multiset of floats with a half-open range query."""

    def __init__(self) -> None:
        self.values: list[float] = []
        self.dirty = False

    def add(self, value: float) -> None:
        self.values.append(value)
        self.dirty = True

    def extend(self, other: _Sorted) -> None:
        self.values.extend(other.values)
        self.dirty = True

    def any_in(self, low: float, high: float) -> bool:
        if self.dirty:
            self.values.sort()
            self.dirty = False
        index = bisect_left(self.values, low)
        return index < len(self.values) and self.values[index] < high


class Pool:
    """The quantities a source states: a paper, the reader's profile, the day's facts."""

    def __init__(self) -> None:
        self.by_dimension: dict[str, _Sorted] = {}  # base quantities of values
        self.written = _Sorted()  # written magnitudes of values (any unit)
        self.errors: Pool | None = None  # standard errors and spreads, kept apart
        self.unitless = _Sorted()  # bare numbers over 1 of unknown unit (table cells, decimals)
        self.as_percent = _Sorted()  # bare fractions ≤ 1, times 100
        self.as_fraction = _Sorted()  # percentages, divided by 100

    def add(self, mention: NumberMention, *, cell: bool = False) -> None:
        if mention.kind == "error":
            if self.errors is None:
                self.errors = Pool()
            self.errors.add(dataclasses.replace(mention, kind="value"))
            return
        if mention.kind != "value":
            return
        self.by_dimension.setdefault(mention.dimension, _Sorted()).add(mention.quantity)
        if mention.in_name:
            return  # "Llama-3.1-70B" states 70B, not a bare 70 or 3.1
        self.written.add(mention.value)
        bare = not mention.unit and mention.scale == 1.0
        if bare and (cell or mention.decimals) and mention.value > 1:
            # "85.3" in an "Acc." column may be a percentage or a speedup; "0.14" is a
            # fraction, so "0.14%" is a different quantity (it can match "14%" only).
            self.unitless.add(mention.value)
        if bare and mention.decimals and 0 < mention.value <= 1:
            self.as_percent.add(mention.value * 100)
        if mention.dimension == "percent":
            self.as_fraction.add(mention.value / 100)

    def add_text(self, text: str) -> None:
        for mention in find_numbers(text):
            self.add(mention)

    def merge(self, *others: Pool) -> Pool:
        merged = Pool()
        for pool in (self, *others):
            for dimension, values in pool.by_dimension.items():
                merged.by_dimension.setdefault(dimension, _Sorted()).extend(values)
            for name in ("written", "unitless", "as_percent", "as_fraction"):
                getattr(merged, name).extend(getattr(pool, name))
        errors = [pool.errors for pool in (self, *others) if pool.errors is not None]
        if errors:
            merged.errors = Pool().merge(*errors)
        return merged

    def supports(self, claim: NumberMention) -> bool:
        """Whether this source states the quantity ``claim`` states (module docstring)."""
        half = 0.5 * 10 ** (-claim.decimals)
        low, high = claim.value - half, claim.value + half
        low, high = low - 1e-9 * abs(low) - 1e-12, high - 1e-9 * abs(high)

        def near(values: _Sorted, factor: float = 1.0) -> bool:
            return values.any_in(low * factor, high * factor)

        if claim.kind == "error":
            # A spread is matched as a spread, with its unit; or by the same value stated.
            as_value = dataclasses.replace(claim, kind="value")
            spread = self.errors is not None and self.errors.supports(as_value)
            return spread or self.supports(as_value)
        bare = not claim.unit and claim.scale == 1.0
        if bare:
            fraction = claim.decimals > 0 and claim.value <= 1
            return near(self.written) or (fraction and near(self.as_fraction))
        factor = claim.scale * UNIT_DIMENSIONS[claim.unit][1]
        dimension = claim.dimension
        if near(self.by_dimension.get(dimension, _Sorted()), factor):
            return True
        if dimension not in ("percent", "times") or claim.scale != 1.0:
            return False  # "31 million" needs 31 million; "7.36 分钟" needs minutes
        if near(self.unitless):
            return True
        return dimension == "percent" and near(self.as_percent)


def paper_pool(document: Document | None, title: str = "", abstract: str = "") -> Pool:
    """Every quantity the paper supports: its evidence index, title and abstract."""
    pool = Pool()
    if document is not None:
        for evidence in fulltext.evidence_index(document):
            for mention in evidence.mentions:
                pool.add(mention, cell=evidence.cell)
        title = title or document.title
    elif abstract:
        for evidence in fulltext.evidence_index(Document("", title, (), abstract)):
            for mention in evidence.mentions:
                pool.add(mention)
    for mention in find_numbers(title):
        pool.add(mention)
    return pool


def known_pool(known: Iterable[str]) -> Pool:
    pool = Pool()
    for text in known:
        pool.add_text(text)
    return pool


def day_facts(papers_considered: int, picks: int) -> Pool:
    """The day's own numbers: papers considered and picked."""
    pool = Pool()
    pool.add_text(f"{papers_considered} {picks}")
    return pool


# -------------------------------------------------------------------- checking
@dataclass
class Checker:
    """Checks chunks against their sources; reusable by verify and strict mode."""

    pools: Mapping[str, Pool]
    known: Pool
    facts: Pool
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._cache: dict[tuple[str, ...], Pool] = {}

    def _pool(self, papers: tuple[str, ...]) -> Pool:
        if papers not in self._cache:
            self._cache[papers] = Pool().merge(
                *(self.pools.get(p, Pool()) for p in papers), self.known, self.facts
            )
        return self._cache[papers]

    def _named(self, clause: str) -> tuple[str, ...]:
        key = name_key(clause)
        return tuple(
            paper for paper, forms in self.names.items() if any(form in key for form in forms)
        )

    def unsupported(self, chunk: Chunk) -> list[tuple[NumberMention, tuple[int, int]]]:
        """Each unsupported claim of ``chunk`` with the span of the clause it sits in."""
        claims = claims_in(chunk.text, chunk.section)
        if not claims:
            return []
        found = []
        spans = segment_spans(chunk.text) if chunk.paper == DAY else clause_spans(chunk.text)
        everyone = tuple(self.pools)
        for claim in claims:
            start, end, clause = next(
                ((s, e, c) for s, e, c in spans if s <= claim.start < e),
                (0, len(chunk.text), chunk.text),
            )
            papers = (self._named(clause) or everyone) if chunk.paper == DAY else (chunk.paper,)
            if not self._pool(papers).supports(claim):
                found.append((claim, (start, end)))
        return found

    def check(self, chunks: Iterable[Chunk]) -> tuple[int, list[NumberClaim]]:
        total = 0
        unverified: list[NumberClaim] = []
        for chunk in chunks:
            total += len(claims_in(chunk.text, chunk.section))
            for claim, _ in self.unsupported(chunk):
                context = shorten(chunk.text, 160)
                unverified.append(
                    NumberClaim(chunk.paper, chunk.section, claim.text, context, chunk.line)
                )
        return total, unverified


def _pools_for(briefs: Iterable[PaperBrief], documents: Mapping[str, Document]) -> dict[str, Pool]:
    return {
        b.paper.id: paper_pool(documents.get(b.paper.id), b.paper.title, b.paper.abstract)
        for b in briefs
    }


def digest_checker(
    digest: Digest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> Checker:
    """The checker of a structured digest: its papers, the reader, the day's facts."""
    return Checker(
        pools=_pools_for(digest.briefs, documents),
        known=known_pool(known),
        facts=day_facts(digest.papers_considered, len(digest.briefs)),
        names=paper_names(digest),
    )


def verify_brief(
    brief: PaperBrief, document: Document | None, known: Iterable[str] = ()
) -> VerifyReport:
    """Check every section of one brief against its paper (and the reader's profile)."""
    checker = Checker(_pools_for([brief], {brief.paper.id: document} if document else {}),
                      known_pool(known), Pool())  # fmt: skip
    total, unverified = checker.check(brief_chunks(brief))
    return VerifyReport(total, total - len(unverified), tuple(unverified), (brief.paper.id,))


def verify_digest(
    digest: Digest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a structured digest (before rendering) against its papers.

    ``known`` are texts whose numbers are accepted everywhere (the reader's profile: their
    own findings are not claims about the paper).
    """
    checker = digest_checker(digest, documents, known)
    total, unverified = checker.check(digest_chunks(digest))
    papers = tuple(b.paper.id for b in digest.briefs)
    return VerifyReport(total, total - len(unverified), tuple(unverified), papers)


def markdown_checker(
    read: MarkdownDigest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> Checker:
    """The checker of a rendered digest: the papers it covers, the reader, its day's facts
    (papers considered, read from its provenance footer, and its number of picks)."""
    pools = {paper: paper_pool(documents.get(paper)) for paper in read.papers}
    facts = day_facts(read.papers_considered, len(read.papers))
    return Checker(pools, known_pool(known), facts, read.names)


def verify_markdown(
    markdown: str, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a rendered digest (LLM-written, offline or hand-edited) against its papers.

    ``known``: texts whose numbers are accepted everywhere (e.g. the reader's profile).
    """
    read = read_markdown(markdown)
    checker = markdown_checker(read, documents, known)
    total, unverified = checker.check(read.chunks)
    missing = tuple(paper for paper in read.papers if paper not in documents)
    return VerifyReport(total, total - len(unverified), tuple(unverified), read.papers, missing)
