"""The verifier: is every claim of a digest traced to the sentence or table cell it cites?

A digest is read as chunks (``claims.py``: the same chunks from a structured ``Digest`` and
from its rendered Markdown, where citation links are read back into markers); each chunk is
cut into claim sentences (``text.citations``), each results row is one claim, and each claim
is checked against exactly the evidence units it cites (``trace.check_claim``: quantity,
direction, names, comparison; counts and Chinese numerals are numbers). Papers are never
pooled: a brief's claims cite its paper, a day-level claim cites ``pick:unit`` (or, read back
from Markdown, ``paper:unit``). The only other sources are the reader's profile (their own
numbers are no claims about a paper) and the day's facts (papers considered, picks).

What a report says is what was checked: ``traced`` claims cite units that state their
numbers, names, directions and order; ``untraced`` ones either cite nothing, cite a unit
the paper does not have, or cite units that say otherwise (each with its finding).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from paperbrief.fulltext.units import UnitIndex, abstract_units, build_units, place_of
from paperbrief.models import ClaimNote, Digest, Document, PaperBrief, Place, Trace
from paperbrief.text import find_numbers
from paperbrief.text.citations import Ref, claim_sentences, parse_refs
from paperbrief.text.names import name_key, names_in
from paperbrief.write.claims import (
    DAY,
    Chunk,
    brief_chunks,
    covered_papers,
    digest_chunks,
    read_markdown,
)
from paperbrief.write.trace import (
    OWN_SECTIONS,
    ClaimCheck,
    Finding,
    Sources,
    check_claim,
    claim_numbers,
    counted_things,
)

__all__ = [
    "ClaimCheck",
    "Finding",
    "Sources",
    "VerifyReport",
    "check_chunks",
    "covered_papers",
    "digest_sources",
    "verify_brief",
    "verify_digest",
    "verify_markdown",
]


@dataclass(frozen=True)
class VerifyReport:
    claims: int
    traced: int
    untraced: tuple[ClaimCheck, ...] = ()
    papers: tuple[str, ...] = ()
    missing_papers: tuple[str, ...] = field(default=())  # covered but nothing stored
    checks: tuple[ClaimCheck, ...] = field(default=(), repr=False)  # every claim, in order

    @property
    def ok(self) -> bool:
        return not self.untraced

    def to_json(self) -> dict[str, object]:
        def claim(check: ClaimCheck) -> dict[str, object]:
            return {
                "paper": check.paper,
                "section": check.section,
                "text": check.text,
                "cites": [str(ref) for ref in check.refs],
                "findings": [dataclasses.asdict(f) for f in check.findings],
                "line": check.line,
            }

        return {
            "claims": self.claims,
            "traced": self.traced,
            "untraced": [claim(c) for c in self.untraced],
            "papers": list(self.papers),
            "missing_papers": list(self.missing_papers),
        }


# -------------------------------------------------------------------- sources
def paper_units(document: Document | None, title: str = "", abstract: str = "") -> UnitIndex:
    """A paper's evidence units: its full text, else its abstract."""
    if document is not None and (document.sections or document.tables or document.abstract):
        return build_units(document)
    return abstract_units(title, abstract)


def _title_names(title: str) -> set[str]:
    """How a digest may call a paper: its title's words and its own system name ("PaSa: An
    LLM Agent …" → pasa, llm, agent …; "Tell me about yourself" → tell, yourself)."""
    words = {name_key(word) for word in re.findall(r"[A-Za-z][A-Za-z0-9@.+-]*", title)}
    return {word for word in words if len(word) >= 3}


def digest_sources(
    papers: Sequence[tuple[str, str]],
    documents: Mapping[str, Document],
    known: Iterable[str] = (),
    *,
    papers_considered: int = 0,
    short_names: Iterable[str] = (),
    abstracts: Mapping[str, str] | None = None,
) -> Sources:
    """What the claims of a digest about ``papers`` ((id, title) in pick order) may rest on."""
    abstracts = abstracts or {}
    indexes = {
        paper: paper_units(documents.get(paper), title, abstracts.get(paper, ""))
        for paper, title in papers
    }
    known_texts = list(known)
    allowed: set[str] = set()
    for _, title in papers:
        allowed |= _title_names(title)
    for text in (*known_texts, *short_names):
        allowed |= {name_key(n.text) for n in names_in(text)}
        # the profile's own labels of the reader's lines ("Line 1 — …" starts its line)
        allowed |= {name_key(m) for m in re.findall(r"^([A-Z][a-z]+) \d+ —", text, re.M)}
        allowed.add(name_key(text)) if text in short_names else None
    # numbers of the reader's profile, and of the papers' titles (a day-level sentence naming
    # "Seven Field Experiments" states no count of its own)
    named = [*known_texts, *(title for _, title in papers)]
    known_numbers = tuple(m for text in named for m in find_numbers(text) if m.kind == "value")
    facts = tuple(float(v) for v in (papers_considered, len(papers)) if v)
    return Sources(indexes, tuple(p for p, _ in papers), known_numbers, facts,
                   frozenset(k for k in allowed if k))  # fmt: skip


def claim_note(check: ClaimCheck) -> ClaimNote:
    reason = "; ".join(f"{f.check}: {f.detail}" for f in check.findings)
    return ClaimNote(check.paper, check.section, " ".join(check.text.split()), reason)


def trace_of(
    report: VerifyReport,
    sources: Sources,
    documents: Mapping[str, Document],
    cut: Iterable[ClaimCheck] = (),
    versions: Mapping[str, int | None] | None = None,
) -> Trace:
    """The reader's view of a report: counts, the untraced claims, strict's cuts, and the
    place of every unit a claim cites (so the rendered digest can link it)."""
    places: dict[str, dict[str, Place]] = {}
    for check in report.checks:
        for ref in check.refs:
            paper, unit = sources.resolve(ref, check.paper)
            if unit is not None:
                version = (versions or {}).get(paper)
                places.setdefault(paper, {})[ref.unit] = place_of(
                    documents.get(paper), paper, unit, version
                )
    return Trace(
        claims=report.claims,
        traced=report.traced,
        untraced=tuple(claim_note(c) for c in report.untraced),
        cut=tuple(claim_note(c) for c in cut),
        places=places,
    )


# -------------------------------------------------------------------- checking
_FIGURE_LABEL = re.compile(r"^\s*((?:Figure|Fig\.?)\s*\d+[a-z]?|图\s*\d+)", re.IGNORECASE)


def _figure_refs(chunk: Chunk, sources: Sources) -> tuple[Ref, ...]:
    """A figure caption explains the paper's own caption of the figure it shows: it rests on
    that caption's units (found by the image's URL, else the "Figure N" it starts with)."""
    index = sources.papers.get(chunk.paper)
    if index is None:
        return ()
    label = _FIGURE_LABEL.match(chunk.text)
    keys = [chunk.figure]
    if label:
        keys.append("Figure " + re.sub(r"\D", "", label.group(1)))
    ids = next((index.figures[key] for key in keys if key and key in index.figures), ())
    return tuple(Ref(None, unit) for unit in ids)


def _claims_of(chunk: Chunk, sources: Sources) -> list[tuple[str, tuple[Ref, ...]]]:
    """(claim text, refs) of a chunk: a results row or a table cell is one claim, prose is
    cut into sentences; an uncited figure caption cites its figure's caption."""
    if chunk.section in ("results", "overview"):
        return [(chunk.text, parse_refs(chunk.text))]
    if chunk.section == "figure" and not parse_refs(chunk.text):
        return [(chunk.text, _figure_refs(chunk, sources))]
    inherit = chunk.section not in OWN_SECTIONS
    return [(s.text, s.refs) for s in claim_sentences(chunk.text, inherit=inherit)]


def check_chunks(chunks: Iterable[Chunk], sources: Sources) -> list[ClaimCheck]:
    """Every claim of ``chunks``, checked (claims that are no claim are left out). A count a
    traced claim states of a paper may be restated in another claim about it: the claims
    that fail are checked once more knowing those counts."""
    claims = [
        ("" if chunk.paper == DAY else chunk.paper, chunk, text, refs)
        for chunk in chunks
        for text, refs in _claims_of(chunk, sources)
    ]

    def check(paper: str, chunk: Chunk, text: str, refs: tuple[Ref, ...],
              using: Sources) -> ClaimCheck | None:  # fmt: skip
        return check_claim(text, refs, using, paper=paper, section=chunk.section,
                           line=chunk.line)  # fmt: skip

    results = [check(*claim, sources) for claim in claims]
    counted: dict[str, list[tuple[float, str]]] = {}
    for result in results:
        if result is not None and result.traced and result.paper:
            numbers = claim_numbers(result.text, result.section, bool(result.refs), sources)
            counted.setdefault(result.paper, []).extend(counted_things(result.text, numbers))
    if counted and any(r is not None and not r.traced for r in results):
        knowing = dataclasses.replace(
            sources, counted={paper: tuple(found) for paper, found in counted.items()}
        )
        results = [
            check(*claim, knowing) if result is not None and not result.traced else result
            for claim, result in zip(claims, results, strict=True)
        ]
    return [result for result in results if result is not None]


def _report(
    checks: list[ClaimCheck], papers: tuple[str, ...], missing: tuple[str, ...] = ()
) -> VerifyReport:
    untraced = tuple(c for c in checks if not c.traced)
    return VerifyReport(len(checks), len(checks) - len(untraced), untraced, papers, missing,
                        tuple(checks))  # fmt: skip


def _digest_papers(digest: Digest) -> list[tuple[str, str]]:
    return [(b.paper.id, b.paper.title) for b in digest.briefs]


def digest_checker_sources(
    digest: Digest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> Sources:
    columns = digest.comparisons[0].columns if digest.comparisons else ()
    return digest_sources(
        _digest_papers(digest), documents, known,
        papers_considered=digest.papers_considered, short_names=columns,
        abstracts={b.paper.id: b.paper.abstract for b in digest.briefs},
    )  # fmt: skip


def verify_brief(
    brief: PaperBrief, document: Document | None, known: Iterable[str] = ()
) -> VerifyReport:
    """Check every claim of one brief against its paper."""
    sources = digest_sources(
        [(brief.paper.id, brief.paper.title)], {brief.paper.id: document} if document else {},
        known, abstracts={brief.paper.id: brief.paper.abstract},
    )  # fmt: skip
    return _report(check_chunks(brief_chunks(brief), sources), (brief.paper.id,))


def verify_digest(
    digest: Digest, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a structured digest (before rendering) against its papers."""
    sources = digest_checker_sources(digest, documents, known)
    checks = check_chunks(digest_chunks(digest), sources)
    return _report(checks, tuple(b.paper.id for b in digest.briefs))


def verify_markdown(
    markdown: str, documents: Mapping[str, Document], known: Iterable[str] = ()
) -> VerifyReport:
    """Check a rendered digest (LLM-written, offline or hand-edited) against its papers:
    its citation links are read back as the units they cite."""
    read = read_markdown(markdown)
    titles = [(paper, read.titles.get(paper, "")) for paper in read.papers]
    sources = digest_sources(titles, documents, known, papers_considered=read.papers_considered,
                             short_names=read.columns)  # fmt: skip
    checks = check_chunks(read.chunks, sources)
    missing = tuple(paper for paper in read.papers if paper not in documents)
    return _report(checks, read.papers, missing)
