"""Citation markers → links to the paper, and ⚠ after every claim that was not traced.

The stored digest keeps the writer's markers (``[E12]``, ``[2:T4.r3.c2]``): they are what
``paperbrief verify`` re-checks. Before rendering, ``annotate`` turns each marker into a link
to its unit's place (``Trace.places``: the arXiv HTML paragraph or table, the PDF page) and
puts a flag after each claim the verifier did not trace, as sentinels ``rich.py`` prints in
every output (Markdown ``[↗](url "E12 · Section 4.1")``, HTML ``<a class="src">``). Markers
whose unit has no place are dropped; sentinel characters typed by the writer are removed
first, so text can never forge a link.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from paperbrief.models import ComparisonTable, Digest, PaperBrief, Place, Trace
from paperbrief.render.rich import FLAG, LINK_CLOSE, LINK_OPEN, LINK_SPLIT, SENTINELS
from paperbrief.text import arxiv
from paperbrief.text.citations import Ref, claim_sentences, markers, strip_citations

_REMOVE = str.maketrans("", "", SENTINELS)


class _Linker:
    def __init__(self, trace: Trace, picks: Sequence[str]) -> None:
        self.places = trace.places
        self.picks = list(picks)
        self.flagged = {(c.paper, " ".join(c.text.split())) for c in trace.untraced}

    def _paper(self, ref: Ref, paper: str) -> str:
        if ref.paper:
            return ref.paper
        if ref.pick is not None:
            return self.picks[ref.pick - 1] if 1 <= ref.pick <= len(self.picks) else ""
        return paper

    def _place(self, ref: Ref, paper: str) -> Place | None:
        """The unit's place; a unit the trace does not know (a digest composed without the
        verifier) still links to its paper's page, so the citation is never lost."""
        owner = self._paper(ref, paper)
        if not owner:
            return None
        return self.places.get(owner, {}).get(ref.unit) or Place(arxiv.abs_url(owner))

    def _replace_markers(self, text: str, paper: str) -> str:
        """Each marker as one link per place its units are at (three cells of one table are
        one link to the table); the link's title names every unit, then the place."""
        out, cursor = "", 0
        for start, end, refs in markers(text):
            grouped: dict[str, tuple[list[str], Place]] = {}
            for ref in refs:
                place = self._place(ref, paper)
                if place is not None:
                    grouped.setdefault(place.url, ([], place))[0].append(ref.unit)
            links = []
            for url, (units, place) in grouped.items():
                where = place.where if len(units) == 1 else place.where.split(" · ")[0]
                title = " ".join(units) + (f" · {where}" if where else "")
                links.append(f"{LINK_OPEN}{url.translate(_REMOVE)}{LINK_SPLIT}"
                             f"{title.translate(_REMOVE)}{LINK_CLOSE}")  # fmt: skip
            out += text[cursor:start] + "".join(links)
            cursor = end
        return out + text[cursor:]

    def text(self, value: str, paper: str, whole: bool = False) -> str:
        """``value`` with its markers linked and its untraced claims flagged (``whole``: the
        value is one claim, e.g. a results row or a table cell)."""
        value = value.translate(_REMOVE)
        if not value.strip():
            return value
        if whole:
            flagged = (paper, " ".join(strip_citations(value).split())) in self.flagged
            return self._replace_markers(value, paper) + (FLAG if flagged else "")
        out, cursor = "", 0
        for sentence in claim_sentences(value):
            out += value[cursor : sentence.start]
            linked = self._replace_markers(sentence.text, paper)
            plain = " ".join(sentence.plain.split())
            out += linked + (FLAG if (paper, plain) in self.flagged else "")
            cursor = sentence.end
        return out + value[cursor:]

    def row(self, row: tuple[str, ...], paper: str) -> tuple[str, ...]:
        joined = " | ".join(c for c in row if c)
        flagged = (paper, " ".join(strip_citations(joined).split())) in self.flagged
        cells = [self._replace_markers(c.translate(_REMOVE), paper) for c in row]
        if flagged and cells:
            last = max(i for i, c in enumerate(cells) if c.strip()) if any(cells) else 0
            cells[last] += FLAG
        return tuple(cells)


def _brief(brief: PaperBrief, linker: _Linker) -> PaperBrief:
    paper = brief.paper.id
    text: Callable[[str], str] = lambda value: linker.text(value, paper)  # noqa: E731
    results = brief.results
    if results is not None:
        results = dataclasses.replace(
            results, rows=tuple(linker.row(r, paper) for r in results.rows)
        )
    implications = brief.implications
    if implications is not None:
        implications = dataclasses.replace(
            implications,
            technique=text(implications.technique),
            experiment=text(implications.experiment),
            trend=text(implications.trend),
        )
    figure = brief.figure
    if figure is not None:
        figure = dataclasses.replace(
            figure, caption=strip_citations(figure.caption).translate(_REMOVE)
        )
    return dataclasses.replace(
        brief,
        reason=text(brief.reason),
        tldr=text(brief.tldr),
        problem=text(brief.problem),
        insight=text(brief.insight),
        method=text(brief.method),
        steps=tuple(text(s) for s in brief.steps),
        difference=text(brief.difference),
        results=results,
        result_notes=tuple(text(s) for s in brief.result_notes),
        reported_numbers=tuple(text(s) for s in brief.reported_numbers),
        limitations=tuple(text(s) for s in brief.limitations),
        open_questions=tuple(text(s) for s in brief.open_questions),
        implications=implications,
        figure=figure,
        direction=strip_citations(brief.direction).translate(_REMOVE),
        contribution=linker.text(brief.contribution, paper, whole=True),
    )


def _comparison(table: ComparisonTable, picks: Sequence[str], linker: _Linker) -> ComparisonTable:
    rows = tuple(
        (
            dimension,
            tuple(
                linker.text(cell, picks[i] if i < len(picks) else "")
                for i, cell in enumerate(cells)
            ),
        )
        for dimension, cells in table.rows
    )
    return dataclasses.replace(table, rows=rows)


def annotate(digest: Digest) -> Digest:
    """The digest as the reader sees it: links for citations, ⚠ for untraced claims; a
    digest without a trace (written before issue 18) only loses stray markers."""
    trace = digest.provenance.trace if digest.provenance else None
    picks = [brief.paper.id for brief in digest.briefs]
    linker = _Linker(trace or Trace(), picks)
    return dataclasses.replace(
        digest,
        summary=linker.text(digest.summary, ""),
        theme=linker.text(digest.theme, ""),
        closing=linker.text(digest.closing, ""),
        briefs=tuple(_brief(b, linker) for b in digest.briefs),
        comparisons=tuple(_comparison(t, picks, linker) for t in digest.comparisons),
    )


def annotate_brief(brief: PaperBrief, trace: Trace | None, picks: Sequence[str] = ()) -> PaperBrief:
    """One brief as the reader sees it (the web UI's paper page): links and ⚠ marks."""
    return _brief(brief, _Linker(trace or Trace(), picks or [brief.paper.id]))


def plain_text(value: str) -> str:
    """A field without markers or sentinels (alt texts, descriptions, chat messages)."""
    return strip_citations(value).translate(_REMOVE)


__all__ = ["annotate", "annotate_brief", "plain_text"]
