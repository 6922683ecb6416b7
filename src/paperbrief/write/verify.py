"""The verifier: is every number a digest states traceable to the paper it is about?

Checked sections: TL;DR, key results (table), reading the results, the day's summary and the
overview table (labels from ``labels.py``, both languages). A number is *supported* when
the paper (its evidence index, tables, text, abstract or title) contains the same value,
after normalising the forms a writer may use for it:

* ``29.5%`` = ``29.5pp`` = ``29.5 points`` = ``0.295``; ``2.01×`` = ``2.01x`` = ``2.01``;
  ``1,234`` = ``1234``; a sign is ignored (``-3.2`` = ``3.2``);
* a digest number with fewer decimals than the paper matches the paper's value rounded to
  that many decimals (``29.5`` is supported by ``29.53``).

Not treated as claims: figure/table/section references (``Table 2``, ``表 3``), years,
dates, identifiers glued to letters (``GPT-4``, ``Qwen2.5``, ``F1``), arXiv ids, and bare
integers up to 10 without a unit (counts such as "3 篇"). Day-level sections (summary) are
checked against every paper of the day; overview rows against the paper they link to.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from paperbrief import fulltext
from paperbrief.fulltext.document import Document
from paperbrief.labels import LABELS
from paperbrief.models import Digest, PaperBrief
from paperbrief.text import find_numbers, join_clauses, shorten, split_clauses

DAY = ""  # the "paper" of a day-level section: any paper of the day may support it

_REFERENCE_BEFORE = re.compile(
    r"(?:Table|Tab\.|Figure|Fig\.|Section|Sec\.|§|Eq\.|Equation|Appendix|Algorithm|Line|"
    r"Limitation|Step|Lemma|Theorem|RQ|表|图|第|局限|步骤)\s*$",
    re.IGNORECASE,
)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_ARXIV_ID = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})", re.IGNORECASE)
_ABS_LINK = re.compile(r"arxiv\.org/abs/(\d{4}\.\d{4,5})")


@dataclass(frozen=True)
class NumberClaim:
    paper: str  # arXiv id, or "" for a day-level section
    section: str  # label key: tldr, results, result_notes, summary, overview
    text: str  # the number as written, e.g. "29.5%"
    context: str  # the sentence or cell it sits in (shortened)


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


# ------------------------------------------------------------------- numbers
@dataclass(frozen=True)
class _Value:
    mantissa: float
    decimals: int


def claims_in(text: str) -> list[tuple[str, _Value]]:
    """The number claims of a piece of digest text, as written and as values."""
    plain = _LINK.sub(r"\1", text)
    plain = _ARXIV_ID.sub("", plain)
    found: list[tuple[str, _Value]] = []
    for mention in find_numbers(plain):
        if mention.in_name or _REFERENCE_BEFORE.search(plain[: mention.start]):
            continue  # GPT-4, Qwen2.5, 2026-05-24, ranges such as 3-8; Table 2, 第 3 步
        after = plain[mention.end : mention.end + 1]
        if not mention.unit and (
            after.isalpha() and after.isascii() or after == "-" and not mention.decimals
        ):
            continue  # 3rd, 4o, 2D, 7-Eleven
        if not mention.decimals and not mention.unit:
            if mention.value <= 10 and not mention.grouped:
                continue
            if mention.is_year:
                continue
        found.append((mention.text, _Value(mention.value, mention.decimals)))
    return found


def _paper_values(numbers: Iterable[str]) -> set[float]:
    values: set[float] = set()
    for raw in numbers:
        for mention in find_numbers(raw):
            value = mention.value
            values.update({value, value * 100, value / 100})
    return values


def _supported(claim: _Value, pool: set[float]) -> bool:
    target = round(claim.mantissa, claim.decimals)
    tolerance = 0.5 * 10 ** (-claim.decimals) + 1e-9
    for value in pool:
        if abs(value - claim.mantissa) < 1e-9:
            return True
        # The digest may round the paper's value, never the other way round.
        if abs(value - target) < tolerance and abs(round(value, claim.decimals) - target) < 1e-9:
            return True
    return False


def document_numbers(document: Document | None, abstract: str = "", title: str = "") -> set[float]:
    """Every value the paper supports (evidence index, tables, text, abstract, title)."""
    texts: list[str] = [abstract, title]
    if document is not None:
        texts += [document.abstract, document.title]
        for evidence in fulltext.evidence_index(document):
            texts.append(evidence.text)
            texts.extend(evidence.numbers)
        for section in document.sections:
            texts.extend(section.paragraphs)
        for table in document.tables:
            texts.append(table.caption)
            texts.extend(cell for row in table.rows for cell in row)
    return _paper_values(texts)


# ------------------------------------------------------------------ checking
def _check(
    chunks: Iterable[tuple[str, str, str]],
    pools: Mapping[str, set[float]],
    papers: tuple[str, ...],
    missing: tuple[str, ...] = (),
    known: Iterable[str] = (),
) -> VerifyReport:
    known_pool = _paper_values(known)
    day_pool: set[float] = set().union(known_pool, *pools.values())
    total = 0
    unverified: list[NumberClaim] = []
    for paper, section, text in chunks:
        pool = day_pool if paper == DAY else pools.get(paper, set()) | known_pool
        for written, value in claims_in(text):
            total += 1
            if not _supported(value, pool):
                unverified.append(NumberClaim(paper, section, written, shorten(text, 160)))
    return VerifyReport(total, total - len(unverified), tuple(unverified), papers, missing)


def _brief_chunks(brief: PaperBrief) -> list[tuple[str, str, str]]:
    paper = brief.paper.id
    chunks = [(paper, "tldr", brief.tldr), (paper, "overview", brief.contribution)]
    if brief.results is not None:
        chunks += [(paper, "results", " | ".join(row)) for row in brief.results.rows]
    chunks += [(paper, "result_notes", note) for note in brief.result_notes]
    return chunks


def _pools_for(
    briefs: Iterable[PaperBrief], documents: Mapping[str, Document]
) -> dict[str, set[float]]:
    return {
        b.paper.id: document_numbers(documents.get(b.paper.id), b.paper.abstract, b.paper.title)
        for b in briefs
    }


def verify_brief(
    brief: PaperBrief, document: Document | None, known: Iterable[str] = ()
) -> VerifyReport:
    """Check one brief's TL;DR, results, result notes and overview line."""
    pools = _pools_for([brief], {brief.paper.id: document} if document else {})
    return _check(_brief_chunks(brief), pools, (brief.paper.id,), known=known)


def verify_digest(
    digest: Digest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a structured digest (before rendering) against its papers.

    ``known`` are texts whose numbers are accepted everywhere (the reader's profile: their
    own findings are not claims about the paper).
    """
    chunks = [(DAY, "summary", digest.summary)]
    for brief in digest.briefs:
        chunks += _brief_chunks(brief)
    pools = _pools_for(digest.briefs, documents)
    return _check(chunks, pools, tuple(b.paper.id for b in digest.briefs), known=known)


def drop_unsupported(
    brief: PaperBrief, document: Document | None, known: Iterable[str] = ()
) -> PaperBrief:
    """``--strict``: remove result rows, notes and sentences whose numbers are unsupported."""
    pool = document_numbers(document, brief.paper.abstract, brief.paper.title)
    pool |= _paper_values(known)

    def fine(text: str) -> bool:
        return all(_supported(value, pool) for _, value in claims_in(text))

    def keep_sentences(text: str) -> str:
        return join_clauses([clause for clause in split_clauses(text) if fine(clause)])

    results = brief.results
    if results is not None:
        rows = tuple(row for row in results.rows if fine(" | ".join(row)))
        results = dataclasses.replace(results, rows=rows) if rows else None
    changed = dataclasses.replace(
        brief,
        tldr=keep_sentences(brief.tldr),
        contribution=keep_sentences(brief.contribution),
        results=results,
        result_notes=tuple(note for note in brief.result_notes if fine(note)),
    )
    if changed != brief:
        note = "strict: claims with numbers not found in the paper were removed"
        changed = dataclasses.replace(changed, notes=(*changed.notes, note))
    return changed


# ------------------------------------------------------------------ Markdown
def _heading_keys(level: str) -> dict[str, str]:
    """Heading text -> label key, for every language of the label table."""
    keys = {"##": ("summary", "overview"), "####": ("tldr", "results")}[level]
    return {getattr(labels, key): key for labels in LABELS.values() for key in keys}


def covered_papers(markdown: str) -> list[str]:
    """arXiv ids of the picks a digest covers (``###`` heading followed by the 📌 line)."""
    ids: list[str] = []
    after_heading = False
    for line in markdown.splitlines():
        if line.startswith("### "):
            after_heading = True
        elif after_heading and line.strip():
            match = _ARXIV_ID.search(line) if "📌" in line else None
            if match and match.group(1) not in ids:
                ids.append(match.group(1))
            if "📌" in line:
                after_heading = False
    return ids


def markdown_chunks(markdown: str) -> list[tuple[str, str, str]]:
    """(paper, section, text) for every checked section of a rendered digest."""
    h2_keys, h4_keys = _heading_keys("##"), _heading_keys("####")
    notes_labels = {labels.result_notes for labels in LABELS.values()}
    chunks: list[tuple[str, str, str]] = []
    day_section = ""
    paper = ""
    section = ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if line.startswith("## "):
            heading = line[3:].strip()
            day_section = next((k for t, k in h2_keys.items() if heading.startswith(t)), "")
            paper, section = "", ""
            continue
        if line.startswith("### "):
            day_section, section, paper = "", "", "?"
            continue
        if "📌" in line and paper == "?":
            match = _ARXIV_ID.search(line)
            paper = match.group(1) if match else "?"
            continue
        if line.startswith("#### "):
            section = h4_keys.get(line[5:].strip(), "")
            continue
        if section == "results" and any(f"**{label}**" in stripped for label in notes_labels):
            section = "result_notes"
            stripped = re.sub(r"\*\*[^*]+\*\*[:：]?", "", stripped, count=1)
        if not stripped or set(stripped) <= set("|-: "):
            continue
        if day_section == "overview":
            link = _ABS_LINK.search(stripped)
            label_row = any(labels.col_paper in stripped for labels in LABELS.values())
            if link and not label_row:
                chunks.append((link.group(1), "overview", _overview_cells(stripped)))
        elif day_section == "summary":
            chunks.append((DAY, "summary", stripped))
        elif paper not in ("", "?") and section:
            chunks.append((paper, section, stripped))
    return chunks


def _overview_cells(row: str) -> str:
    """The overview row without its title cell (titles carry model names, not claims)."""
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    return " | ".join(cells[1:])


def verify_markdown(
    markdown: str, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a rendered digest (LLM-written, offline or hand-edited) against its papers.

    ``known``: texts whose numbers are accepted everywhere (e.g. the reader's profile).
    """
    papers = tuple(covered_papers(markdown))
    pools = {paper: document_numbers(documents.get(paper)) for paper in papers}
    missing = tuple(paper for paper in papers if paper not in documents)
    return _check(markdown_chunks(markdown), pools, papers, missing, known=known)
