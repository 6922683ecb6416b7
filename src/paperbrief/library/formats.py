"""The reader's own library, read from what reference managers export.

``read_library(path)`` takes a Zotero (or any) export — BibTeX (bibtexparser), CSL JSON,
RIS (rispy; both in the ``library`` extra: ``install.extra_packages("library")``) — a plain
list of arXiv ids or URLs, or a folder of PDFs, and returns
:class:`LibraryPaper` values: title, abstract, authors, year, arXiv id when one can be
found (an ``eprint`` field, a 10.48550 DOI, an arxiv.org URL, ``arXiv:…`` in a note), key
phrases and the arXiv categories Zotero's subject tags name. The format is chosen by
extension, then by content. A file that is none of these is a ``LibraryError``.

Exports come from anywhere, so every item is read on its own terms: fields are capped
(``FIELD_CAPS``, before bibtexparser decodes LaTeX, which is superlinear in a field's
size) and cleaned of control characters (ESC, DEL, C1, bidi overrides: they must not
reach the TOML proposal or a terminal); an item that cannot be read is skipped with one
line to ``skipped`` (its text shortened, never echoed whole), never the whole import. In
a PDF folder only regular files that start like a PDF are read (no child process for the
rest); each PDF also gives the category arXiv stamps in its margin (``[cs.SE]``).
"""

from __future__ import annotations

import importlib
import json
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from paperbrief.errors import PaperbriefError
from paperbrief.install import add_packages_command, extra_packages
from paperbrief.text import clean_tex, shorten
from paperbrief.text.arxiv import ID_PATTERN, NEW_ID, split_arxiv_id

# Control characters but tab and newline, DEL, C1 and the bidirectional overrides: text from
# an export never carries them into the profile or a terminal.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Whole terminal escape sequences (CSI "ESC [ … m", OSC "ESC ] … BEL", their C1 forms), so
# that no "[31m" is left behind when the ESC goes.
_ESCAPE = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[@-Z\\\\-_]"
)
# Characters of each field kept (a title longer than this is not a title); an abstract of
# 150 MB reached the tokenizer whole once.
FIELD_CAPS = {"title": 1_000, "abstract": 20_000, "author": 20_000, "keywords": 5_000}
OTHER_FIELD_CAP = 2_000  # doi, url, note, eprint …: the id hints
MAX_AUTHORS = 200
MAX_ITEMS = 200_000  # items of one export (a large personal library is ~20k)
MAX_PDF_BYTES = 200 * 1024 * 1024
Skipped = Callable[[str], None]
Progress = Callable[[int, int], None]  # (done, total)


def ignore_skipped(_: str) -> None:
    pass


def ignore_progress(_done: int, _total: int) -> None:
    pass


def capped_field(name: str, value: object) -> str:
    return str(value or "")[: FIELD_CAPS.get(name, OTHER_FIELD_CAP)]


def quoted(text: object) -> str:
    """An item's text for a message: one line, short (a bad 5 MB line is never echoed)."""
    return shorten(" ".join(_CONTROL.sub(" ", str(text)).split()), 80)


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
    archives: tuple[str, ...] = ()  # arXiv archives only ("cs" of Zotero's "arXiv:… [cs]")

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


def clean_text(text: object) -> str:
    """One line of plain text: control characters and runs of space (newlines too) removed."""
    return " ".join(_CONTROL.sub(" ", _ESCAPE.sub("", str(text or ""))).split())


def _clean(text: object) -> str:
    """A field of an export as plain text: braces (BibTeX's case protection) dropped too."""
    return clean_text(str(text or "").replace("{", "").replace("}", ""))


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


# Zotero's arXiv translator notes "arXiv:2605.22043 [cs]": the archive (or, from arXiv's own
# stamp, the full category "[cs.SE]").
_BRACKETED = re.compile(r"arXiv:\s*" + ID_PATTERN + r"(?:v\d+)?\s*\[([a-z-]+(?:\.[A-Za-z-]+)?)\]")


def _bracketed(hints: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(categories, archives) named in brackets after an arXiv id in ``hints``."""
    found = [m.group(1) for hint in hints for m in _BRACKETED.finditer(hint)]
    categories = tuple(dict.fromkeys(f for f in found if "." in f))
    archives = tuple(dict.fromkeys(f.split(".")[0] for f in found))
    return categories, archives


def library_paper(
    title: object,
    abstract: object,
    authors: Iterable[str],
    year: object,
    id_hints: Iterable[str],
    tags: Iterable[str],
) -> LibraryPaper:
    keywords, categories = _tags(tags)
    hints = [str(hint) for hint in id_hints if hint]
    stamped, archives = _bracketed(hints)
    categories = tuple(dict.fromkeys([*categories, *stamped]))
    return LibraryPaper(
        title=_clean(title),
        abstract=_clean(abstract),
        authors=tuple(_clean(a) for a in list(authors)[:MAX_AUTHORS] if _clean(a)),
        year=_year(year),
        arxiv_id=find_arxiv_id(hints),
        keywords=keywords,
        categories=categories,
        archives=tuple(dict.fromkeys([*archives, *(c.split(".")[0] for c in categories)])),
    )


def read_bibtex(text: str, skipped: Skipped = ignore_skipped) -> list[LibraryPaper]:
    """Entries of a BibTeX file (Zotero, Better BibTeX, Google Scholar, arXiv's own)."""
    bibtexparser = _parser("bibtexparser", "a BibTeX export")
    middlewares = importlib.import_module("bibtexparser.middlewares")
    # Parse, cap every field, then decode LaTeX (superlinear in a field's size: a 700 KB
    # abstract took 22 s, a 5 MB one never ended) and split the authors.
    library = bibtexparser.parse_string(text)
    for block in library.failed_blocks:
        skipped(f"a BibTeX entry that cannot be parsed: {quoted(block.raw)}")
        library.remove(block)
    for entry in library.entries[:MAX_ITEMS]:
        for field in entry.fields:
            value = capped_field(field.key.lower(), field.value)
            field.value = decode_latex(value) if _LATEX.search(value) else value
    library = middlewares.SeparateCoAuthors().transform(library)
    papers = []
    for entry in library.entries[:MAX_ITEMS]:
        try:
            papers.append(_bibtex_paper(entry))
        except (ValueError, TypeError, AttributeError) as error:
            skipped(f"BibTeX entry {quoted(entry.key)}: {quoted(error)}")
    return papers


_LATEX = re.compile(r"[\\$~]")
# TeX's accent commands as Unicode combining marks (\'e, {\"u}, \c{c}, \v s …) and its
# letters, so author names read as written; everything else TeX is text.clean_tex's.
_ACCENTS = {
    "'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
    "c": "\u0327", "k": "\u0328", "r": "\u030a",
}  # fmt: skip
_ACCENT = re.compile(r"\\(['\"`^~=.]|[uvHckr](?![A-Za-z]))\s*\{?\\?([A-Za-z])\}?")
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
            "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "i": "ı"}  # fmt: skip
_LETTER = re.compile(r"\\(" + "|".join(sorted(_LETTERS, key=len, reverse=True)) + r")(?![A-Za-z])")


def decode_latex(value: str) -> str:
    """A BibTeX field's LaTeX as text, in one linear pass (bibtexparser's decoder,
    pylatexenc, reads token by token in Python: ~30 ms an abstract, superlinear in size)."""
    text = _ACCENT.sub(
        lambda m: unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)]), value
    )
    text = _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)
    return clean_tex(text)


def _bibtex_paper(entry: Any) -> LibraryPaper:
    fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
    authors = fields.get("author", [])
    eprint = fields.get("eprint", "")
    archive = str(fields.get("archiveprefix", fields.get("eprinttype", ""))).lower()
    hints = [f"arXiv:{eprint}" if eprint and archive in ("", "arxiv") else ""]
    hints += [str(fields.get(k, "")) for k in ("doi", "url", "note", "journal", "number")]
    keywords = split_tags(str(fields.get("keywords", "")))
    return library_paper(
        fields.get("title", ""),
        fields.get("abstract", ""),
        authors if isinstance(authors, list) else [str(authors)],
        fields.get("year", fields.get("date", "")),
        hints,
        keywords,
    )


def _csl_name(person: Mapping[str, Any]) -> str:
    if person.get("literal"):
        return str(person["literal"])
    return ", ".join(str(p) for p in (person.get("family"), person.get("given")) if p)


def read_csl_json(text: str, skipped: Skipped = ignore_skipped) -> list[LibraryPaper]:
    """Items of a CSL JSON file (Zotero's "CSL JSON" export: a list of item objects)."""
    data = json.loads(text)
    items = data.get("items", []) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LibraryError(
            "this JSON is not CSL JSON (a list of items)", "export the library as CSL JSON"
        )
    papers = []
    for number, item in enumerate(items[:MAX_ITEMS], 1):
        try:
            if not isinstance(item, dict):
                raise TypeError(f"not an item object: {quoted(item)}")
            papers.append(_csl_paper(item))
        except (ValueError, TypeError, AttributeError, IndexError) as error:
            skipped(f"CSL item {number}: {quoted(error)}")
    return papers


def _csl_paper(item: Mapping[str, Any]) -> LibraryPaper:
    issued = item.get("issued", {})
    parts = issued.get("date-parts", [[None]]) if isinstance(issued, dict) else [[None]]
    hints = [capped_field(k, item.get(k, "")) for k in ("DOI", "URL", "number", "note", "id")]
    keywords = split_tags(capped_field("keywords", item.get("keyword", "")))
    creators = item.get("author", [])
    return library_paper(
        capped_field("title", item.get("title", "")),
        capped_field("abstract", item.get("abstract", "")),
        [
            _csl_name(p)
            for p in (creators if isinstance(creators, list) else [])
            if isinstance(p, dict)
        ],
        (parts[0] or [None])[0] if parts and isinstance(parts, list) else None,
        hints,
        keywords,
    )


def read_ris(text: str, skipped: Skipped = ignore_skipped) -> list[LibraryPaper]:
    """Records of a RIS file (Zotero, EndNote, Mendeley)."""
    rispy = _parser("rispy", "a RIS export")
    papers = []
    for number, record in enumerate(rispy.loads(text)[:MAX_ITEMS], 1):
        try:
            hints = [str(record.get("doi", "")), *record.get("urls", []), *record.get("notes", [])]
            hints += [str(record.get("number", "")), str(record.get("note", ""))]
            papers.append(
                library_paper(
                    capped_field("title", record.get("title") or record.get("primary_title", "")),
                    capped_field("abstract", record.get("abstract", "")),
                    record.get("authors", []) or record.get("first_authors", []),
                    record.get("year") or record.get("date", ""),
                    [capped_field("", h) for h in hints],
                    [capped_field("keywords", k) for k in record.get("keywords", [])],
                )
            )
        except (ValueError, TypeError, AttributeError) as error:
            skipped(f"RIS record {number}: {quoted(error)}")
    return papers


def read_id_list(text: str, skipped: Skipped = ignore_skipped) -> list[LibraryPaper]:
    """One arXiv id or URL per line ('#' starts a comment); titles are looked up later.
    A line that is neither is skipped (e.g. 2604.19011 or https://arxiv.org/abs/2604.19011
    are)."""
    papers = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()[:OTHER_FIELD_CAP]
        if not line:
            continue
        bare = _BARE_ID.match(line)
        found = split_arxiv_id(bare.group(1))[0] if bare else find_arxiv_id([line])
        if found is None:
            skipped(f"line {number} is not an arXiv id or URL: {quoted(line)}")
            continue
        papers.append(LibraryPaper(title="", arxiv_id=found))
        if len(papers) >= MAX_ITEMS:
            break
    return papers


def looks_like_pdf(path: Path) -> bool:
    """A regular file (not a pipe, a device or a link to one) that starts like a PDF and is
    not absurdly large: worth a reader's child process."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode) or not 0 < status.st_size <= MAX_PDF_BYTES:
            return False
        with path.open("rb") as handle:
            return b"%PDF-" in handle.read(1024)
    except OSError:
        return False


def read_pdf_folder(
    folder: Path, skipped: Skipped = ignore_skipped, progress: Progress = ignore_progress
) -> list[LibraryPaper]:
    """Title and abstract of every PDF under ``folder``: the arXiv id from the file name or
    the stamp arXiv prints in the margin, and the category that stamp names."""
    from paperbrief.errors import FullTextError
    from paperbrief.fulltext import read_local_file

    candidates = sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf")
    papers = []
    for done, path in enumerate(candidates, 1):
        progress(done - 1, len(candidates))
        if not looks_like_pdf(path):
            skipped(f"{quoted(path.name)}: not a PDF file")
            continue
        try:
            document = read_local_file(path)
        except (FullTextError, OSError, MemoryError) as error:
            skipped(f"{quoted(path.name)}: {quoted(getattr(error, 'message', error))}")
            continue  # a scan or a damaged file: the other papers still count
        first_words = " ".join(p for s in document.sections[:2] for p in s.paragraphs)[:3000]
        named = re.search(rf"(?<!\d)({NEW_ID})(?:v\d+)?(?!\d)", path.stem)
        arxiv_id = named.group(1) if named else find_arxiv_id([first_words, document.abstract])
        paper = library_paper(
            document.title, document.abstract[:20_000], document.authors, None, [], []
        )
        categories = document.categories  # arXiv's margin stamp, e.g. [cs.SE]
        archives = tuple(c.split(".")[0] for c in categories)
        papers.append(replace(paper, arxiv_id=arxiv_id, categories=categories, archives=archives))
    progress(len(candidates), len(candidates))
    return papers


READERS: dict[str, Callable[[str, Skipped], list[LibraryPaper]]] = {
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


MAX_EXPORT_BYTES = 512 * 1024 * 1024


def read_library(
    path: Path,
    skipped: Skipped = ignore_skipped,
    progress: Progress = ignore_progress,
    noted: Skipped = ignore_skipped,
) -> list[LibraryPaper]:
    """Every paper in the export file or PDF folder at ``path`` (see the module docstring);
    ``skipped`` hears one line per item left out, ``progress`` how far a PDF folder is,
    ``noted`` how the file was read when that is not as expected (not UTF-8)."""
    if path.is_dir():
        papers = read_pdf_folder(path, skipped, progress)
        what = "PDF"
    else:
        try:
            status = path.stat()
            if not stat.S_ISREG(status.st_mode):
                raise OSError(f"{path} is not a regular file")
            if status.st_size > MAX_EXPORT_BYTES:
                raise OSError(f"{status.st_size:,} bytes is more than an export should be")
            raw = path.read_bytes()
        except OSError as error:
            raise LibraryError(
                f"cannot read {path}: {quoted(error)}",
                "pass a BibTeX, CSL JSON or RIS export, a list of arXiv ids, or a PDF folder",
            ) from error
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            # Older BibTeX tools write Latin-1 / Windows-1252: every byte reads as one, and
            # the reader is told, instead of the whole export being refused.
            text = raw.decode("cp1252", errors="replace")
            noted(f"{path.name} is not UTF-8: read as Windows-1252 (re-export it as UTF-8 if"
                  " accented names look wrong)")  # fmt: skip
        kind = detect_format(path, text)
        try:
            papers = READERS[kind](text, skipped)
        except (ValueError, KeyError, TypeError) as error:
            raise LibraryError(
                f"{path} is not valid {kind}: {quoted(error)}",
                "re-export it from your reference manager",
            ) from error
        what = kind
    papers = [p for p in papers if p.title or p.arxiv_id]
    if not papers:
        raise LibraryError(
            f"no papers found in {path} (read as {what})",
            "export the collection with titles and abstracts (BibTeX, CSL JSON or RIS)",
        )
    return papers
