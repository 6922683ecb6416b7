"""What the offline writer takes from a Document: the sentences of a role, the digest's figure.

* ``section_sentences``: sentences of the main-body sections with a role (problem, method,
  results, limitations, conclusion), TeX read as text, quoted examples left out;
* ``choose_figure`` / ``to_figure``: the figure a digest shows.

What the LLM writer reads is ``reading.py``'s plan; the evidence a claim can cite is
``units.py``'s. Section roles come from ``roles.py``; sentences from ``paperbrief.text``.
"""

from __future__ import annotations

import re
from typing import Literal

from paperbrief.fulltext.roles import Role, roled_sections
from paperbrief.models import EXAMPLE_MARK, Document, Figure, FigureRef
from paperbrief.text import clean_tex, split_sentences

SentenceKind = Literal["problem", "method", "results", "limitations", "conclusion"]

_OWN_LIMITATION = re.compile(
    r"\b(?:limitations?|limited to|does not (?:yet )?(?:handle|scale|generalize)|"
    r"cannot (?:observe|handle|capture)|future work)\b",
    re.IGNORECASE,
)


# ---------------------------------------------------------------- offline writer
_SENTENCE_ROLES: dict[str, tuple[Role, ...]] = {
    "problem": ("introduction",),
    "method": ("method",),
    "results": ("results",),
    "limitations": ("limitations",),
    "conclusion": ("conclusion",),
}


def section_sentences(doc: Document, kind: SentenceKind) -> list[str]:
    """Sentences (TeX read as text) of the main-body sections with that role, in order.

    problem → introduction; method → method sections; results → results sections;
    limitations → limitations / threats to validity (else any sentence that says
    "limitation"); conclusion → conclusion sections. Quoted examples are left out.
    """
    wanted = _SENTENCE_ROLES[kind]
    found = [
        sentence
        for section in roled_sections(doc)
        if section.role in wanted and not section.appendix
        for paragraph in section.section.paragraphs
        if not paragraph.startswith(EXAMPLE_MARK)
        for sentence in split_sentences(clean_tex(paragraph))
    ]
    if not found and kind == "limitations":
        # No limitations section: sentences of the main body's discussion, conclusion or
        # results that speak of this work's limits (never appendix prompts or instructions).
        found = [
            sentence
            for section in roled_sections(doc)
            if section.role in ("discussion", "conclusion", "results") and not section.appendix
            for paragraph in section.section.paragraphs
            if not paragraph.startswith(EXAMPLE_MARK)
            for sentence in split_sentences(clean_tex(paragraph))
            if _OWN_LIMITATION.search(sentence)
        ]
    return found


def to_figure(figure: FigureRef) -> Figure:
    """The digest's ``Figure`` for a parsed figure reference."""
    return Figure(caption=clean_tex(figure.caption), url=figure.url, label=figure.label)


_FIGURE_WORDS: tuple[tuple[str, float], ...] = (
    ("overview", 3.0),
    ("framework", 3.0),
    ("pipeline", 3.0),
    ("architecture", 3.0),
    ("main result", 2.5),
    ("illustration", 2.0),
    ("our method", 2.0),
    ("our approach", 2.0),
    ("approach", 1.0),
    ("method", 1.0),
    ("results", 1.0),
    ("workflow", 2.5),
    ("schematic", 2.0),
)
_FIGURE_MIN_SCORE = 2.0


def choose_figure(doc: Document) -> FigureRef | None:
    """The digest's figure: the best caption-keyword match (method overview, framework,
    pipeline, architecture, main results; words in the caption's first sentence count
    fully, strong words later in the caption half), earlier figures winning ties. Below a
    score of 2 (e.g. only "results" somewhere) the first figure is taken, which in most
    papers is the teaser/overview. ``None`` when no figure has an image URL."""
    figures = [f for f in doc.figures if f.url]
    if not figures:
        return None
    best: tuple[float, int] = (0.0, 0)
    for position, figure in enumerate(figures):
        sentences = split_sentences(figure.caption) or [""]
        title, rest = sentences[0].lower(), " ".join(sentences[1:]).lower()
        score = sum(weight for word, weight in _FIGURE_WORDS if word in title)
        score += sum(weight / 2 for word, weight in _FIGURE_WORDS if weight >= 2 and word in rest)
        if score > best[0]:
            best = (score, position)
    return figures[best[1]] if best[0] >= _FIGURE_MIN_SCORE else figures[0]
