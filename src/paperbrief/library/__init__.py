"""The reader's own library: read an export, propose a profile from it.

* ``formats.py``: ``read_library(path)`` → :class:`LibraryPaper` values (BibTeX, CSL JSON,
  RIS, a list of arXiv ids, a folder of PDFs);
* ``lines.py``: ``propose_lines(papers, vectors)`` (clusters + key phrases) and
  ``name_lines(llm, lines)`` (names, descriptions and Chinese key phrases by an LLM);
* here: ``complete`` (fill titles/abstracts/categories from known arXiv metadata),
  ``choose_categories`` and ``profile_toml`` (the proposal as an editable profile).

`paperbrief profile init --from FILE` and `paperbrief feedback import FILE` use it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from paperbrief.library.formats import LibraryError, LibraryPaper, read_library
from paperbrief.library.lines import ProposedLine, name_lines, propose_lines
from paperbrief.models import Paper

FALLBACK_CATEGORIES = ("cs.AI",)
MAX_CATEGORIES = 4


def complete(papers: Sequence[LibraryPaper], known: Mapping[str, Paper]) -> list[LibraryPaper]:
    """Papers with missing title, abstract or categories filled in from arXiv metadata
    (``known``: by arXiv id, e.g. from the store or the arXiv API); papers that still have
    no title are dropped."""
    completed = []
    for paper in papers:
        meta = known.get(paper.arxiv_id or "")
        if meta is not None:
            paper = replace(
                paper,
                title=paper.title or meta.title,
                abstract=paper.abstract or meta.abstract,
                authors=paper.authors or tuple(meta.authors),
                categories=tuple(dict.fromkeys([*meta.categories, *paper.categories])),
            )
        if paper.title:
            completed.append(paper)
    return completed


def choose_categories(papers: Sequence[LibraryPaper], given: Sequence[str] = ()) -> list[str]:
    """``given``, else the arXiv categories at least a sixth of the library is in (at most
    four, commonest first), else a fallback the reader is asked to edit."""
    if given:
        return list(dict.fromkeys(given))
    counts = Counter(c for paper in papers for c in dict.fromkeys(paper.categories))
    known = sum(1 for paper in papers if paper.categories)
    chosen = [c for c, n in counts.most_common() if known and n * 6 >= known]
    return chosen[:MAX_CATEGORIES] or list(FALLBACK_CATEGORIES)


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, without ``\\/``)."""
    return json.dumps(value, ensure_ascii=False)


def _strings(values: Sequence[str]) -> str:
    return "[" + ", ".join(_string(v) for v in values) + "]"


def profile_toml(
    name: str,
    language: str,
    categories: Sequence[str],
    lines: Sequence[ProposedLine],
    origin: str,
    categories_found: bool,
) -> str:
    """The proposal as a commented profile for the reader to edit (valid as it stands once
    ``name`` is the reader's)."""
    total = sum(len(line.papers) for line in lines)
    out = [
        f"# paperbrief profile proposed from {total} papers of {origin}.",
        "# Edit the research lines (names, descriptions, key phrases), then run:",
        "#   paperbrief profile check --profile <this file>",
        "# `paperbrief profile init` prints a template with every other key (output,",
        "# delivery, LLM).",
        "",
        f"name = {_string(name)}",
        f"language = {_string(language)}",
    ]
    if not categories_found:
        out.append("# No arXiv categories were found in the library: list the ones you read.")
    out += [f"categories = {_strings(categories)}", "picks_per_day = 4", ""]
    for line in lines:
        titles = [p.title for p in line.papers[:3]]
        out.append(f"# from {len(line.papers)} papers, e.g. " + "; ".join(titles)[:300])
        out += [
            "[[research_lines]]",
            f"name = {_string(line.name)}",
            f"description = {_string(line.description)}",
            f"keywords = {_strings(line.keywords)}",
        ]
        if line.keywords_zh:
            out.append(f"keywords_zh = {_strings(line.keywords_zh)}")
        else:
            out.append('keywords_zh = []   # add Chinese key phrases, e.g. ["程序修复"]')
        out += ["weight = 1.0", ""]
    return "\n".join(out)


__all__ = [
    "LibraryError",
    "LibraryPaper",
    "ProposedLine",
    "choose_categories",
    "complete",
    "name_lines",
    "profile_toml",
    "propose_lines",
    "read_library",
]
