"""PDF → Document, with text from pypdfium2 (Apache-2.0/BSD; PDFium does the glyph mapping).

Heuristics, by design simple and documented:

* line breaks: PDFium marks a hyphen it broke a word at with U+FFFE; those words are joined;
  arXiv's margin stamp (``arXiv:2304.02623v1 [cs.CL] 5 Apr 2023``) and page numbers are
  dropped, as are short lines repeated at the top or bottom of several pages (running heads);
* headings: a short line ``N Title`` / ``N.M Title`` (no final period, starting with a
  capital letter) is a heading only if its number continues the numbering seen so far (the
  next section, or a subsection of the current one), which rejects numbered list items and
  table rows; an all-caps heading's next all-caps line is its continuation. Unnumbered
  ``Abstract``, ``References``, ``Acknowledgments`` and ``Appendix`` lines are headings too;
* paragraphs: a line ending in ``.``, ``:`` or ``?`` that is clearly shorter than the page's
  usual line ends a paragraph;
* numbers are kept verbatim; tables are not extracted (flag ``pdf-no-tables``) and figures
  have no image URL (flag ``pdf-no-figures``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from paperbrief.errors import FullTextError
from paperbrief.models import Document, Section
from paperbrief.text.arxiv import ID_PATTERN

_STAMP = re.compile(r"^arXiv:\S+\s+\[[^\]]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,2})\.?\s+([A-Z][^\n]{1,90})$")
_UNNUMBERED = re.compile(
    r"^(abstract|references|bibliography|acknowledge?ments?|appendix|appendices|keywords)$",
    re.IGNORECASE,
)
_APPENDIX = re.compile(r"^([A-H])(?:\.(\d{1,2}))?\s+([A-Z][^\n]{1,80})$")
_REFERENCE_START = re.compile(r"^\[\d+\]\s")


def extract_pdf_pages(content: bytes) -> tuple[list[str], dict[str, str]]:
    """Plain text of every page and the Info metadata; raises FullTextError on a bad file."""
    # Imported here: every process that imports fulltext would pay for PDFium otherwise,
    # and PDFs are read only in the bounded reader's child (fetch.parse_pdf_bounded).
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(content)
    except pdfium.PdfiumError as error:
        raise FullTextError(
            f"the PDF could not be opened: {error}",
            "the download may be truncated or not a PDF; rerun later or read the abstract",
        ) from error
    try:
        metadata = {k: str(v) for k, v in pdf.get_metadata_dict().items()}
        pages = []
        for page in pdf:
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return pages, metadata


def _clean_lines(pages: list[str]) -> list[tuple[str, int]]:
    """The text lines of every page with their page number (1-based), running heads,
    page numbers and arXiv's margin stamp removed."""
    split = [
        [
            line.strip()
            for line in page.replace("\ufffe\r\n", "")
            .replace("\ufffe\n", "")
            .replace("\ufffe", "")
            .splitlines()
        ]
        for page in pages
    ]
    edges: Counter[str] = Counter()
    for lines in split:
        content = [line for line in lines if line]
        for line in {*content[:2], *content[-2:]}:
            edges[re.sub(r"\d+", "#", line)] += 1
    repeated = {key for key, count in edges.items() if count >= 2 and len(key) < 100}
    out: list[tuple[str, int]] = []
    for page, lines in enumerate(split, 1):
        content = [line for line in lines if line]
        for position, line in enumerate(content):
            edge = position < 2 or position >= len(content) - 2
            if _STAMP.match(line) or re.fullmatch(r"\d{1,3}", line):
                continue
            if edge and len(split) > 2 and re.sub(r"\d+", "#", line) in repeated:
                continue
            out.append((line, page))
    return out


def _continues(number: str, current: list[int]) -> bool:
    parts = [int(p) for p in number.split(".")]
    if not current:
        return parts == [1] or (len(parts) == 1 and parts[0] <= 2)
    if len(parts) == 1:
        return parts[0] == current[0] + 1
    if parts[:-1] == current[: len(parts) - 1]:
        previous = current[len(parts) - 1] if len(current) >= len(parts) else 0
        return parts[-1] == previous + 1
    return False


def parse_pdf(
    content: bytes, *, arxiv_id: str = "", source_url: str = "", source: str = "pdf"
) -> Document:
    """Read a PDF into a Document by the module's heuristics (no tables, no figure URLs)."""
    pages, metadata = extract_pdf_pages(content)
    stamp = (
        re.search(rf"arXiv:({ID_PATTERN})(?:v\d+)?\s+\[([a-z-]+\.[A-Za-z-]+)\]", pages[0])
        if pages
        else None
    )
    if not arxiv_id:
        arxiv_id = stamp.group(1) if stamp else ""
    paged = _clean_lines(pages)
    lines = [line for line, _ in paged]
    if sum(len(line) for line in lines) < 500:
        raise FullTextError(
            "the PDF has almost no extractable text (scanned or image-only?)",
            "no OCR is attempted; the digest falls back to the abstract",
        )
    typical = statistics.median(len(line) for line in lines) if lines else 0
    title = metadata.get("Title", "").strip()
    flags = ["pdf-no-tables", "pdf-no-figures"]

    # number, heading, level, (line, page) of its body
    blocks: list[tuple[str, str, int, list[tuple[str, int]]]] = [("", "", 0, [])]
    numbering: list[int] = []
    appendix: tuple[str, int] | None = None  # after the references: ("A", 0), ("A", 1)…
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _NUMBERED.match(line)
        heading: tuple[str, str] | None = None
        if match and not line.endswith((".", ",", ";")) and len(match.group(2).split()) <= 14:
            if _continues(match.group(1), numbering):
                heading = (match.group(1), match.group(2))
                numbering = [int(p) for p in match.group(1).split(".")]
                upper = heading[1].isupper()
                while (
                    upper
                    and index + 1 < len(lines)
                    and lines[index + 1].isupper()
                    and len(lines[index + 1]) < 60
                ):
                    index += 1
                    heading = (heading[0], f"{heading[1]} {lines[index]}")
        elif _UNNUMBERED.match(line):
            heading = ("", line)
        elif appendix is not None and (lettered := _APPENDIX.match(line)):
            letter, sub = lettered.group(1), int(lettered.group(2) or 0)
            if appendix == ("", 0):
                expected = {("A", 0)}
            else:
                expected = {(appendix[0], appendix[1] + 1), (chr(ord(appendix[0]) + 1), 0)}
            plain = not re.search(r"\.\s|\d{4}|,", lettered.group(3))
            if (letter, sub) in expected and plain and not line.endswith((".", ":")):
                appendix = (letter, sub)
                heading = (f"{letter}.{sub}" if sub else letter, lettered.group(3))
        if heading is not None:
            number, text = heading
            text = text.title() if text.isupper() else text
            blocks.append((number, text, number.count(".") + 1 if number else 1, []))
            if text.lower() in ("references", "bibliography"):
                appendix = ("", 0)
        else:
            blocks[-1][3].append(paged[index])
        index += 1

    front = [line for line, _ in blocks[0][3]]
    if not title and front:
        title = _title_from_lines(front)
    abstract = ""
    references: list[str] = []
    sections: list[Section] = []
    for number, block_heading, level, body in blocks[1:]:
        name = block_heading.lower()
        if name == "abstract":
            abstract = " ".join(text for text, _ in _paragraphs(body, typical))
        elif name in ("references", "bibliography"):
            references = _references([line for line, _ in body])
        elif name == "keywords":
            continue
        else:
            read = _paragraphs(body, typical)
            sections.append(
                Section(block_heading, level, tuple(t for t, _ in read), number,
                        pages=tuple(page for _, page in read))
            )  # fmt: skip
    if not abstract:
        flags.append("no-abstract")
    if not sections:
        flags.append("pdf-no-sections")
    return Document(
        arxiv_id=arxiv_id,
        title=re.sub(r"\s+", " ", title),
        authors=(),
        abstract=abstract,
        sections=tuple(sections),
        references=tuple(references),
        source=source,
        source_url=source_url,
        flags=tuple(flags),
        categories=(stamp.group(2),) if stamp else (),
    )


def _title_from_lines(lines: list[str]) -> str:
    """The first line, plus the next ones while they look like more title, not authors
    (no footnote marks, digits, commas or e-mail signs)."""
    title = lines[0]
    for line in lines[1:3]:
        if re.search(r"[†‡∗*§¶,@\d]", line) or len(line.split()) > 12 or title.endswith("."):
            break
        title = f"{title} {line}"
    return title


def _paragraphs(lines: list[tuple[str, int]], typical: float) -> list[tuple[str, int]]:
    """Paragraphs of a section's lines, each with the page it starts on."""
    paragraphs: list[tuple[str, int]] = []
    current: list[str] = []
    page = 0
    for line, on_page in lines:
        if not current:
            page = on_page
        current.append(line)
        if line.endswith((".", ":", "?")) and len(line) < 0.75 * typical:
            paragraphs.append((" ".join(current), page))
            current = []
    if current:
        paragraphs.append((" ".join(current), page))
    return [(re.sub(r"\s+", " ", p).strip(), n) for p, n in paragraphs if p.strip()]


def _references(lines: list[str]) -> list[str]:
    entries: list[str] = []
    for line in lines:
        if _REFERENCE_START.match(line) or not entries:
            entries.append(line)
        else:
            entries[-1] += " " + line
    return [re.sub(r"\s+", " ", e) for e in entries]
