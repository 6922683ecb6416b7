"""Which numbers a digest claims, and where: the verifier's reading of a digest.

A digest is read as *chunks*: ``(paper, section, text)``, ``paper`` being the arXiv id a
brief is about or ``DAY`` for the day-level parts (summary, theme, closing). Every section
that can carry numbers is a chunk: 推荐理由, TL;DR, problem, insight, steps, difference,
the results table (one chunk per cell), result notes, limitations, open questions, the 💡
implications, the figure caption, the overview row, the comparison table (one chunk per
cell, about the paper of its column), the summary, theme and closing. The same chunks come
out of a structured ``Digest`` (``digest_chunks``) and of its rendered Markdown
(``markdown_chunks``), so ``run`` and ``paperbrief verify`` count the same claims.

``claims_in`` applies the claim policy to one chunk (the number grammar is
``paperbrief.text.find_numbers``): stated values and spreads are claims; names
(``GPT-4o``), labels (``Table 2``, ``第 3 步``), citations, years, ratios such as ``24/7``,
quotations and bare counts up to ten are not. In the 💡 experiment (the digest's own
proposal) only clauses that cite the paper are claims, and effort durations never are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from paperbrief.labels import LABELS
from paperbrief.models import Digest, PaperBrief
from paperbrief.text import arxiv
from paperbrief.text.names import name_key

DAY = ""  # the "paper" of a day-level chunk

_ARXIV_ID = re.compile(rf"arXiv:\s*({arxiv.NEW_ID})", re.IGNORECASE)
_ABS_LINK = re.compile(re.escape(arxiv.HOST) + rf"/abs/({arxiv.NEW_ID})")


@dataclass(frozen=True)
class Chunk:
    paper: str  # arXiv id, or DAY
    section: str  # e.g. "tldr", "results", "summary", "comparison"
    text: str
    line: int = 0  # 1-based line of a rendered digest it was read from (0: structured)
    figure: str = ""  # a figure caption's figure: its label or image URL


# ----------------------------------------------------------------- from a Digest
def brief_chunks(brief: PaperBrief) -> list[Chunk]:
    """Every checked section of one brief, in reading order."""
    paper = brief.paper.id
    texts: list[tuple[str, str]] = [
        ("overview", brief.contribution),
        ("reason", brief.reason),
        ("figure", brief.figure.caption if brief.figure else ""),
        ("tldr", brief.tldr),
        ("problem", brief.problem),
        ("insight", brief.insight),
        ("method", brief.method),
        *(("steps", step) for step in brief.steps),
        ("difference", brief.difference),
    ]
    if brief.results is not None:  # a row is one claim: its cells share its citation
        texts += [("results", " | ".join(c for c in row if c)) for row in brief.results.rows]
    texts += [("result_notes", note) for note in brief.result_notes]
    texts += [
        ("reported_numbers", s) for s in brief.reported_numbers if s not in brief.result_notes
    ]
    texts += [("limitations", item) for item in brief.limitations]
    texts += [("open_questions", item) for item in brief.open_questions]
    implications = brief.implications
    if implications is not None:
        texts += [
            ("technique", implications.technique),
            ("experiment", implications.experiment),
            ("trend", implications.trend),
        ]
    chunks = [Chunk(paper, section, text) for section, text in texts if text.strip()]
    if brief.figure is not None:
        chunks = [
            Chunk(c.paper, c.section, c.text, figure=brief.figure.url or brief.figure.label)
            if c.section == "figure" else c
            for c in chunks
        ]  # fmt: skip
    return chunks


def digest_chunks(digest: Digest) -> list[Chunk]:
    """Every checked section of a structured digest, in reading order."""
    chunks = [Chunk(DAY, "summary", digest.summary)]
    chunks += [Chunk(DAY, "theme", f"{digest.theme_title} {digest.theme}")]
    for brief in digest.briefs:
        chunks += brief_chunks(brief)
    for table in digest.comparisons:
        for _, cells in table.rows:
            for brief, cell in zip(digest.briefs, cells, strict=False):
                chunks.append(Chunk(brief.paper.id, "comparison", cell))
    chunks.append(Chunk(DAY, "closing", digest.closing))
    return [chunk for chunk in chunks if chunk.text.strip()]


def paper_names(digest: Digest) -> dict[str, tuple[str, ...]]:
    """The names a day-level sentence may call each pick by: id, title, short name."""
    names: dict[str, list[str]] = {}
    columns = digest.comparisons[0].columns if digest.comparisons else ()
    for position, brief in enumerate(digest.briefs):
        entry = names.setdefault(brief.paper.id, [brief.paper.id, brief.paper.title])
        if position < len(columns):
            entry.append(columns[position])
    return {paper: tuple(_name_forms(values)) for paper, values in names.items()}


def _name_forms(values: Iterable[str]) -> list[str]:
    """A title also goes by its part before a colon ("PITMuS: A Tool …" → "PITMuS")."""
    forms: list[str] = []
    for value in values:
        for form in (value, value.split(":", 1)[0], value.rstrip("…").strip()):
            key = name_key(form)
            if len(key) >= 3 and key not in forms:
                forms.append(key)
    return forms


# -------------------------------------------------------------- from Markdown
_H2 = ("summary", "overview", "theme", "comparison", "provenance")
_BRIEF_LABELS = (
    "reason",
    "insight",
    "difference",
    "result_notes",
    "reported_numbers",
    "limitation_n",
    "open_question",
    "technique",
    "experiment",
    "trend",
)
_SECTION_OF_LABEL = {"limitation_n": "limitations", "open_question": "open_questions"}
_H4 = ("tldr", "problem", "method", "results", "limitations", "implications", "provenance")
# (the results table's header is the renderer's labels: skipped as every table's first row)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>$~])")
_HTML_TAG = re.compile(r"</?(?:strong|code|br)\s*/?>")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")
_IMAGE = re.compile(r"!\[((?:[^\]\\]|\\.)*)\]\([^)]*\)")
_IMAGE_URL = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)")
# a citation link as the renderer writes it: [↗](https://arxiv.org/html/<id>v1#S4.p2 "E12 · …")
_UNIT = r"(?:E\d+|T[A-Z]?\d+[a-z]?\.r\d+\.c\d+)"
_CITATION_LINK = re.compile(
    r"\s?\[↗\]\(https?://"
    + re.escape(arxiv.HOST)
    + rf"/(?:html|pdf|abs)/(?P<paper>{arxiv.ID_PATTERN})"
    r"(?:v\d+)?[^\s)]*\s+\"(?P<units>" + _UNIT + r"(?: " + _UNIT + r")*)(?:[^\"\\]|\\.)*\"\)"
)


def _marker(match: re.Match[str]) -> str:
    paper = match.group("paper")
    return " [" + ", ".join(f"{paper}:{unit}" for unit in match.group("units").split()) + "]"


_LINK = re.compile(r"\[((?:[^\]\\]|\\.)*)\]\([^)]*\)")


def _labels_for(key: str) -> list[str]:
    return [getattr(labels, key) for labels in LABELS.values()]


def plain_markdown(line: str) -> str:
    """A Markdown line as the reader sees it: emphasis, code marks, links, ⚠ marks and
    escapes gone; a citation link becomes the marker it was written from (``[<id>:E12]``)."""
    text = _CITATION_LINK.sub(_marker, line)
    text = text.replace(" ⚠", "").replace("⚠", "")
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", text)
    text = re.sub(r"(?<!\\)\*\*|(?<!\\)`+", "", text)
    text = _ESCAPE.sub(r"\1", text)
    return text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


def _cells(row: str) -> list[str]:
    """The cells of a Markdown table row (escaped pipes stay inside their cell)."""
    parts = re.split(r"(?<!\\)\|", row.strip())
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [part.strip() for part in parts]


def _label_key(text: str) -> tuple[str, str] | None:
    """(section, rest) when ``text`` starts with a bold brief label ("**局限 1**：…")."""
    match = re.match(r"^\s*(?:>\s*)?(?:[-*]\s+|\d{1,2}\.\s+)?\*\*([^*]+)\*\*\s*[:：]?\s*", text)
    if not match:
        return None
    label = match.group(1).strip()
    for key in _BRIEF_LABELS:
        for word in _labels_for(key):
            pattern = re.escape(word).replace(r"\{n\}", r"\d+")
            if re.fullmatch(pattern, label):
                return _SECTION_OF_LABEL.get(key, key), text[match.end() :]
    return None


class _MarkdownReader:
    """A line-by-line reading of a rendered digest into chunks (the renderer's layout)."""

    def __init__(self) -> None:
        self.h2 = {w: k for k in _H2 for w in _labels_for(k)}
        self.h4 = {w: k for k in _H4 for w in _labels_for(k)}
        self.chunks: list[Chunk] = []
        self.papers: list[str] = []
        self.columns: list[str] = []
        self.titles: dict[str, str] = {}
        self.papers_considered = 0
        self.day = ""  # current day-level section key
        self.paper = ""  # current paper id ("?" between its heading and its 📌 line)
        self.title = ""
        self.area = ""  # the brief's #### section
        self.section = ""  # the chunk section within it
        self.table_row = -1  # row number within the current Markdown table, -1 outside
        self.number = 0  # the current line's number in the whole file
        self.waiting: list[tuple[int, str]] = []  # lines between a ### title and its 📌

    def read(self, markdown: str) -> None:
        body, offset = _body(markdown)
        for index, line in enumerate(body.splitlines()):
            self.number = offset + index + 1
            stripped = line.strip()
            if stripped.startswith("|"):
                self.table_row += 1
                if self.table_row == 1 and set(stripped) <= set("|-: "):
                    continue  # the delimiter row
            else:
                self.table_row = -1
            self.line(line, stripped)

    def add(self, paper: str, section: str, text: str, figure: str = "") -> None:
        text = plain_markdown(text).strip()
        if text and section:
            self.chunks.append(Chunk(paper, section, text, self.number, figure))

    def line(self, line: str, stripped: str) -> None:
        if line.startswith("## "):
            heading = line[3:].strip()
            self.day = next((k for w, k in self.h2.items() if heading.startswith(w)), "")
            self.paper, self.area, self.section = "", "", ""
            if self.day == "theme":
                self.add(DAY, "theme", re.split(r"：|: ", heading, maxsplit=1)[-1])
            return
        if line.startswith("### "):
            self.day, self.area, self.section, self.paper = "", "", "", "?"
            self.title = plain_markdown(line[4:]).strip()
            self.waiting = []
            return
        if self.paper == "?" and "📌" in line:
            match = _ARXIV_ID.search(line)
            self.paper = match.group(1) if match else "?"
            if match and self.paper not in self.papers:
                self.papers.append(self.paper)
                self.titles[self.paper] = self.title
            here = self.number
            for number, waiting in self.waiting:  # the reason sits above the 📌 line
                self.number = number
                self.text_line(waiting)
            self.number, self.waiting = here, []
            return
        if self.paper == "?" and stripped:
            self.waiting.append((self.number, stripped))
            return
        if line.startswith("#### "):
            key = self.h4.get(line[5:].strip(), "")
            if key == "provenance":
                self.day, self.paper = "provenance", ""
            self.area = key
            self.section = key if key not in ("implications", "limitations") else ""
            return
        if stripped == "---":
            if self.paper not in ("", "?"):
                self.paper, self.area, self.section, self.day = "", "", "", "closing"
            return
        if stripped:
            self.text_line(stripped)

    def text_line(self, stripped: str) -> None:
        if self.day == "provenance":
            for words in _labels_for("papers_considered"):
                if words in stripped:
                    numbers = re.findall(r"\d+", plain_markdown(stripped).split(words, 1)[-1])
                    self.papers_considered = int(numbers[0]) if numbers else 0
            return
        if self.day == "overview":
            link = _ABS_LINK.search(stripped)
            if link and self.table_row > 0:
                cells = _cells(stripped)
                self.add(link.group(1), "overview", cells[2] if len(cells) > 2 else "")
            return
        if self.day == "comparison" and self.table_row >= 0:
            cells = _cells(stripped)
            if self.table_row == 0:
                self.columns = [plain_markdown(c).strip() for c in cells[1:]]
                return
            for paper, cell in zip(self.papers, cells[1:], strict=False):
                self.add(paper, "comparison", cell)
            return
        if self.day == "comparison":
            self.day = "closing"
        if self.day in ("summary", "theme", "closing"):
            self.add(DAY, self.day, _LIST_MARKER.sub("", stripped))
            return
        if self.paper not in ("", "?"):
            self.brief_line(stripped)

    def brief_line(self, stripped: str) -> None:
        if stripped.startswith("*") and stripped.endswith("*") and not stripped.startswith("**"):
            return  # an italic note of the digest's own, or a table caption (paper words)
        if stripped.startswith("!["):
            image = _IMAGE_URL.search(stripped)
            self.add(self.paper, "figure", _IMAGE.sub(r"\1", stripped),
                     image.group(1) if image else "")  # fmt: skip
            return
        labelled = _label_key(stripped)
        if labelled is not None:
            self.section, rest = labelled
            self.add(self.paper, self.section, rest)
            return
        if stripped.startswith(">"):
            self.add(self.paper, "reason", stripped.lstrip("> "))
            return
        if self.area == "method" and re.match(r"^\d{1,3}[.)]\s", stripped):
            self.section = "steps"
        if self.area == "results" and self.table_row >= 0:
            if self.table_row > 0:  # a row is one claim
                cells = [plain_markdown(c).strip() for c in _cells(stripped)]
                self.add(self.paper, "results", " | ".join(c for c in cells if c))
            return
        self.add(self.paper, self.section, _LIST_MARKER.sub("", stripped))


def _body(markdown: str) -> tuple[str, int]:
    """The Markdown without its YAML front matter and ``# title`` line, and how many lines
    were left out before it."""
    text = re.sub(r"\A---\s*\n.*?\n---\s*\n", "", markdown, count=1, flags=re.S)
    text = re.sub(r"\A\s*# [^\n]*\n", "", text, count=1)
    return text, markdown[: len(markdown) - len(text)].count("\n")


@dataclass(frozen=True)
class MarkdownDigest:
    """What the verifier reads from a rendered digest."""

    chunks: tuple[Chunk, ...]
    papers: tuple[str, ...]
    names: dict[str, tuple[str, ...]]
    papers_considered: int
    titles: dict[str, str] = field(default_factory=dict)
    columns: tuple[str, ...] = ()


def read_markdown(markdown: str) -> MarkdownDigest:
    """Chunks, covered papers, their names and the day's facts of a rendered digest."""
    reader = _MarkdownReader()
    reader.read(markdown)
    names = {}
    for position, paper in enumerate(reader.papers):
        values = [paper, reader.titles.get(paper, "")]
        if position < len(reader.columns):
            values.append(reader.columns[position])
        names[paper] = tuple(_name_forms(values))
    return MarkdownDigest(
        tuple(reader.chunks), tuple(reader.papers), names, reader.papers_considered,
        dict(reader.titles), tuple(reader.columns),
    )  # fmt: skip


def covered_papers(markdown: str) -> list[str]:
    """arXiv ids of the picks a digest covers (``###`` heading followed by the 📌 line)."""
    return list(read_markdown(markdown).papers)
