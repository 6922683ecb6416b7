"""The reader's own library, read from what reference managers export.

``read_library(path)`` takes a Zotero (or any) export — BibTeX (bibtexparser), CSL JSON,
RIS (rispy; both in the ``library`` extra: ``install.extra_packages("library")``) — a plain
list of arXiv ids or URLs, or a folder of PDFs, and returns
:class:`LibraryPaper` values: title, abstract, authors, year, arXiv id when one can be
found (an ``eprint`` field, a 10.48550 DOI, an arxiv.org URL, ``arXiv:…`` in a note), key
phrases and the arXiv categories Zotero's subject tags name. The format is chosen by
extension, then by content. A file that is none of these is a ``LibraryError``.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from paperbrief.errors import PaperbriefError
from paperbrief.install import add_packages_command, extra_packages
from paperbrief.text.arxiv import ID_PATTERN, NEW_ID, split_arxiv_id


class LibraryError(PaperbriefError):
    """A library file that cannot be read (unknown format, no papers, unreadable)."""


def library_extra_hint() -> str:
    """How to add the library extra, with the installer in use (pip, pipx, uv)."""
    return "add the library extra: " + add_packages_command(extra_packages("library"))


def _parser(module: str, what: str) -> Any:
    """The parser package of an export format, or a LibraryError saying how to add it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise LibraryError(
            f"reading {what} needs the {module} package, which is not installed",
            library_extra_hint(),
        ) from None


@dataclass(frozen=True)
class LibraryPaper:
    """One paper of the reader's library (untrusted text: it came from a file)."""

    title: str
    abstract: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    arxiv_id: str | None = None
    keywords: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """What is embedded and mined for key phrases: title and abstract."""
        return f"{self.title}. {self.abstract}".strip()


# A new-style id (2604.19011, optional version) or an old-style one (cs/0601001).
_ID = r"(" + ID_PATTERN + r"(?:v\d+)?)"
_ARXIV_PATTERNS = (
    re.compile(r"arxiv\.org/(?:abs|pdf|html)/" + _ID, re.IGNORECASE),
    re.compile(r"10\.48550/arxiv\." + _ID, re.IGNORECASE),
    re.compile(r"arxiv:\s*" + _ID, re.IGNORECASE),
)
_BARE_ID = re.compile(r"^\s*" + _ID + r"\s*$")

# Zotero's arXiv translator stores arXiv's subject names as tags ("Computer Science -
# Software Engineering"); these map them back to category codes.
SUBJECTS = {
    "Computer Science - Artificial Intelligence": "cs.AI",
    "Computer Science - Computation and Language": "cs.CL",
    "Computer Science - Computer Vision and Pattern Recognition": "cs.CV",
    "Computer Science - Computers and Society": "cs.CY",
    "Computer Science - Cryptography and Security": "cs.CR",
    "Computer Science - Databases": "cs.DB",
    "Computer Science - Distributed, Parallel, and Cluster Computing": "cs.DC",
    "Computer Science - Human-Computer Interaction": "cs.HC",
    "Computer Science - Information Retrieval": "cs.IR",
    "Computer Science - Logic in Computer Science": "cs.LO",
    "Computer Science - Machine Learning": "cs.LG",
    "Computer Science - Multiagent Systems": "cs.MA",
    "Computer Science - Networking and Internet Architecture": "cs.NI",
    "Computer Science - Neural and Evolutionary Computing": "cs.NE",
    "Computer Science - Programming Languages": "cs.PL",
    "Computer Science - Robotics": "cs.RO",
    "Computer Science - Software Engineering": "cs.SE",
    "Computer Science - Sound": "cs.SD",
    "Electrical Engineering and Systems Science - Audio and Speech Processing": "eess.AS",
    "Electrical Engineering and Systems Science - Image and Video Processing": "eess.IV",
    "Statistics - Machine Learning": "stat.ML",
    "Statistics - Methodology": "stat.ME",
}


def find_arxiv_id(values: Iterable[str]) -> str | None:
    """The first arXiv id (without version) mentioned in any of ``values``."""
    for value in values:
        for pattern in _ARXIV_PATTERNS:
            found = pattern.search(value)
            if found:
                return split_arxiv_id(found.group(1))[0]
    return None


def _clean(text: object) -> str:
    return " ".join(str(text or "").replace("{", "").replace("}", "").split())


def _year(text: object) -> int | None:
    found = re.search(r"\b(1[89]\d\d|2\d\d\d)\b", str(text or ""))
    return int(found.group(1)) if found else None


_SUBJECT_TAG = re.compile(r"^[A-Z][A-Za-z ]+ - [A-Z]")


def split_tags(text: str) -> list[str]:
    """A keywords field split into tags. Zotero joins tags with ", " and arXiv subject names
    contain commas ("Computer Science - Distributed, Parallel, and Cluster Computing"), so a
    capitalised or "and …" piece right after a subject tag belongs to it."""
    tags: list[str] = []
    for piece in (p.strip() for p in re.split(r"[,;]", text)):
        if not piece:
            continue
        continues = piece[:1].isupper() or piece.startswith("and ")
        if tags and _SUBJECT_TAG.match(tags[-1]) and continues and not _SUBJECT_TAG.match(piece):
            tags[-1] += ", " + piece
            continue
        tags.append(piece)
    return tags


def _tags(values: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(key phrases, arXiv categories) from keyword tags; subject tags become categories."""
    keywords: list[str] = []
    categories: list[str] = []
    for value in values:
        tag = _clean(value)
        if not tag:
            continue
        if tag in SUBJECTS:
            categories.append(SUBJECTS[tag])
        elif not _SUBJECT_TAG.match(tag):
            keywords.append(tag)
    return tuple(dict.fromkeys(keywords)), tuple(dict.fromkeys(categories))


def _paper(
    title: object,
    abstract: object,
    authors: Iterable[str],
    year: object,
    id_hints: Iterable[str],
    tags: Iterable[str],
) -> LibraryPaper:
    keywords, categories = _tags(tags)
    return LibraryPaper(
        title=_clean(title),
        abstract=_clean(abstract),
        authors=tuple(_clean(a) for a in authors if _clean(a)),
        year=_year(year),
        arxiv_id=find_arxiv_id(str(hint) for hint in id_hints if hint),
        keywords=keywords,
        categories=categories,
    )


def read_bibtex(text: str) -> list[LibraryPaper]:
    """Entries of a BibTeX file (Zotero, Better BibTeX, Google Scholar, arXiv's own)."""
    bibtexparser = _parser("bibtexparser", "a BibTeX export")
    middlewares = importlib.import_module("bibtexparser.middlewares")
    library = bibtexparser.parse_string(
        text,
        append_middleware=[middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors()],
    )
    papers = []
    for entry in library.entries:
        fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
        authors = fields.get("author", [])
        eprint = fields.get("eprint", "")
        archive = str(fields.get("archiveprefix", fields.get("eprinttype", ""))).lower()
        hints = [f"arXiv:{eprint}" if eprint and archive in ("", "arxiv") else ""]
        hints += [str(fields.get(k, "")) for k in ("doi", "url", "note", "journal", "number")]
        keywords = split_tags(str(fields.get("keywords", "")))
        papers.append(
            _paper(
                fields.get("title", ""),
                fields.get("abstract", ""),
                authors if isinstance(authors, list) else [str(authors)],
                fields.get("year", fields.get("date", "")),
                hints,
                keywords,
            )
        )
    return papers


def _csl_name(person: Mapping[str, Any]) -> str:
    if person.get("literal"):
        return str(person["literal"])
    return ", ".join(str(p) for p in (person.get("family"), person.get("given")) if p)


def read_csl_json(text: str) -> list[LibraryPaper]:
    """Items of a CSL JSON file (Zotero's "CSL JSON" export: a list of item objects)."""
    data = json.loads(text)
    items = data.get("items", []) if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise LibraryError(
            "this JSON is not CSL JSON (a list of items)", "export the library as CSL JSON"
        )
    papers = []
    for item in items:
        issued = item.get("issued", {})
        parts = issued.get("date-parts", [[None]]) if isinstance(issued, dict) else [[None]]
        hints = [str(item.get(k, "")) for k in ("DOI", "URL", "number", "note", "id")]
        keywords = split_tags(str(item.get("keyword", "")))
        papers.append(
            _paper(
                item.get("title", ""),
                item.get("abstract", ""),
                [_csl_name(p) for p in item.get("author", []) if isinstance(p, dict)],
                (parts[0] or [None])[0] if parts else None,
                hints,
                keywords,
            )
        )
    return papers


def read_ris(text: str) -> list[LibraryPaper]:
    """Records of a RIS file (Zotero, EndNote, Mendeley)."""
    rispy = _parser("rispy", "a RIS export")
    papers = []
    for record in rispy.loads(text):
        hints = [str(record.get("doi", "")), *record.get("urls", []), *record.get("notes", [])]
        hints += [str(record.get("number", "")), str(record.get("note", ""))]
        papers.append(
            _paper(
                record.get("title") or record.get("primary_title", ""),
                record.get("abstract", ""),
                record.get("authors", []) or record.get("first_authors", []),
                record.get("year") or record.get("date", ""),
                hints,
                record.get("keywords", []),
            )
        )
    return papers


def read_id_list(text: str) -> list[LibraryPaper]:
    """One arXiv id or URL per line ('#' starts a comment); titles are looked up later."""
    papers = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        bare = _BARE_ID.match(line)
        found = split_arxiv_id(bare.group(1))[0] if bare else find_arxiv_id([line])
        if found is None:
            raise LibraryError(
                f"{line!r} is not an arXiv id or URL",
                "list one id per line, e.g. 2604.19011 or https://arxiv.org/abs/2604.19011",
            )
        papers.append(LibraryPaper(title="", arxiv_id=found))
    return papers


def read_pdf_folder(folder: Path) -> list[LibraryPaper]:
    """Title and abstract of every PDF under ``folder`` (the arXiv id from the file name or
    the stamp arXiv prints in the margin)."""
    from paperbrief.errors import FullTextError
    from paperbrief.fulltext import read_local_file

    papers = []
    for path in sorted(folder.rglob("*.pdf")):
        try:
            document = read_local_file(path)
        except FullTextError:
            continue  # a scan or a damaged file: the other papers still count
        first_words = " ".join(p for s in document.sections[:2] for p in s.paragraphs)[:3000]
        named = re.search(rf"(?<!\d)({NEW_ID})(?:v\d+)?(?!\d)", path.stem)
        arxiv_id = named.group(1) if named else find_arxiv_id([first_words, document.abstract])
        papers.append(
            replace(
                _paper(document.title, document.abstract, document.authors, None, [], []),
                arxiv_id=arxiv_id,
            )
        )
    return papers


READERS: dict[str, Callable[[str], list[LibraryPaper]]] = {
    "bibtex": read_bibtex,
    "csl-json": read_csl_json,
    "ris": read_ris,
    "ids": read_id_list,
}
_EXTENSIONS = {".bib": "bibtex", ".bibtex": "bibtex", ".json": "csl-json", ".ris": "ris"}


def detect_format(path: Path, text: str) -> str:
    """``bibtex``, ``csl-json``, ``ris`` or ``ids``: by extension, else by the first line."""
    if path.suffix.lower() in _EXTENSIONS:
        return _EXTENSIONS[path.suffix.lower()]
    head = text.lstrip()
    if head.startswith("@"):
        return "bibtex"
    if head.startswith(("[", "{")):
        return "csl-json"
    if re.match(r"TY  - ", head):
        return "ris"
    return "ids"


def read_library(path: Path) -> list[LibraryPaper]:
    """Every paper in the export file or PDF folder at ``path`` (see the module docstring)."""
    if path.is_dir():
        papers = read_pdf_folder(path)
        what = "PDF"
    else:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise LibraryError(
                f"cannot read {path}: {error}",
                "pass a BibTeX, CSL JSON or RIS export, a list of arXiv ids, or a PDF folder",
            ) from error
        kind = detect_format(path, text)
        try:
            papers = READERS[kind](text)
        except (ValueError, KeyError, TypeError) as error:
            raise LibraryError(
                f"{path} is not valid {kind}: {error}", "re-export it from your reference manager"
            ) from error
        what = kind
    papers = [p for p in papers if p.title or p.arxiv_id]
    if not papers:
        raise LibraryError(
            f"no papers found in {path} (read as {what})",
            "export the collection with titles and abstracts (BibTeX, CSL JSON or RIS)",
        )
    return papers
