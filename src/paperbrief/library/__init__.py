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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from paperbrief.library.formats import SUBJECTS, LibraryError, LibraryPaper, read_library
from paperbrief.library.lines import ProposedLine, even_sample, name_lines, propose_lines
from paperbrief.models import Paper
from paperbrief.profile import GUESSED_MARK

FALLBACK_CATEGORIES = ("cs.AI",)
MAX_CATEGORIES = 4
GUESSED_CATEGORIES = 2


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


@dataclass(frozen=True)
class CategoryChoice:
    """The categories a proposal reads, and whether the library said so or they were
    guessed (then ``why`` says from what, and the profile and the terminal say it loudly)."""

    categories: list[str]
    guessed: bool = False
    why: str = ""


def choose_categories(
    papers: Sequence[LibraryPaper],
    given: Sequence[str] = (),
    vectors: np.ndarray | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> CategoryChoice:
    """``given``; else the arXiv categories the papers name (tags, arXiv's stamp, the
    store, the arXiv API) that at least a sixth of them are in (at most four, commonest
    first); else a guess: the arXiv subjects whose names are closest to the papers'
    ``vectors`` (``embed`` embeds the names), within the archives the papers name ("cs"
    of "arXiv:… [cs]") when they name any; else the archives themselves; else cs.AI."""
    if given:
        return CategoryChoice(list(dict.fromkeys(given)))
    counts = Counter(c for paper in papers for c in dict.fromkeys(paper.categories))
    known = sum(1 for paper in papers if paper.categories)
    chosen = [c for c, n in counts.most_common() if known and n * 6 >= known]
    if chosen:
        return CategoryChoice(chosen[:MAX_CATEGORIES])
    archives = Counter(a for paper in papers for a in dict.fromkeys(paper.archives))
    subjects = [
        (code, name.split(" - ", 1)[1])
        for name, code in SUBJECTS.items()
        if not archives or code.split(".")[0] in archives
    ]
    within = f" within the {', '.join(archives)} archive" if archives else ""
    if subjects and vectors is not None and embed is not None and len(vectors):
        center = vectors.mean(axis=0)
        center = center / max(float(np.linalg.norm(center)), 1e-12)
        closeness = embed([name for _, name in subjects]) @ center
        order = np.argsort(-closeness, kind="stable")
        best = float(closeness[order[0]])
        picked = [subjects[i][0] for i in order[:GUESSED_CATEGORIES] if closeness[i] >= best - 0.05]
        return CategoryChoice(
            picked,
            True,
            f"no paper names its category; the closest subject names to the papers' text{within}",
        )
    if archives:
        return CategoryChoice(list(archives), True, "the papers name only their archive")
    return CategoryChoice(list(FALLBACK_CATEGORIES), True, "the papers name no category at all")


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
    guessed: str = "",
) -> str:
    """The proposal as a commented profile for the reader to edit (valid as it stands once
    ``name`` is the reader's). ``guessed`` says why the categories are a guess, if they are."""
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
    if guessed:
        out += [
            f"# The categories below are a guess ({guessed}).",
            "# List the arXiv categories you read, then delete the GUESSED comment.",
            f"categories = {_strings(categories)}  # {GUESSED_MARK}: check them",
        ]
    else:
        out.append(f"categories = {_strings(categories)}")
    out += ["picks_per_day = 4", ""]
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
    "GUESSED_MARK",
    "CategoryChoice",
    "LibraryError",
    "LibraryPaper",
    "ProposedLine",
    "choose_categories",
    "complete",
    "even_sample",
    "name_lines",
    "profile_toml",
    "propose_lines",
    "read_library",
]
