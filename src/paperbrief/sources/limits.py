"""Caps on what one paper's metadata may hold, whatever source it came from.

A listing is untrusted input: a 50 MB abstract once took 5.8 GB of memory to rank. arXiv
itself limits abstracts to 1,920 characters and titles to a few hundred, so the caps below
never touch a real paper; they only stop a hostile or broken file from costing the run its
memory. ``bounded`` is applied to every paper a source yields (snapshot, feed, API, page).
"""

from __future__ import annotations

from dataclasses import replace

from paperbrief.models import Paper

MAX_TITLE_CHARS = 1_000
MAX_ABSTRACT_CHARS = 10_000
MAX_COMMENT_CHARS = 1_000
MAX_AUTHORS = 1_000  # collaboration papers list a few thousand; the digest shows five
MAX_AUTHOR_CHARS = 200
MAX_CATEGORIES = 20
MAX_CATEGORY_CHARS = 40
MAX_ID_CHARS = 40
# A day's listing is 1-5 MB of JSON; a gzip file that inflates past this is not a listing.
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def bounded(paper: Paper) -> Paper:
    """``paper`` with every field within its cap (the same object when it already is)."""
    fits = (
        len(paper.title) <= MAX_TITLE_CHARS
        and len(paper.abstract) <= MAX_ABSTRACT_CHARS
        and len(paper.comment or "") <= MAX_COMMENT_CHARS
        and len(paper.authors) <= MAX_AUTHORS
        and all(len(name) <= MAX_AUTHOR_CHARS for name in paper.authors)
        and len(paper.categories) <= MAX_CATEGORIES
        and all(len(category) <= MAX_CATEGORY_CHARS for category in paper.categories)
    )
    if fits:
        return paper
    return replace(
        paper,
        title=_cut(paper.title, MAX_TITLE_CHARS),
        abstract=_cut(paper.abstract, MAX_ABSTRACT_CHARS),
        comment=_cut(paper.comment, MAX_COMMENT_CHARS) if paper.comment else paper.comment,
        authors=tuple(_cut(name, MAX_AUTHOR_CHARS) for name in paper.authors[:MAX_AUTHORS]),
        categories=tuple(c[:MAX_CATEGORY_CHARS] for c in paper.categories[:MAX_CATEGORIES]),
        primary_category=paper.primary_category[:MAX_CATEGORY_CHARS],
    )
