"""Planted wrong numbers: the verifier's benchmark (tests/test_planted_errors.py and
benchmarks/verify_bench.py share it).

For an honest rendered digest and the papers it covers, ``plant_all`` makes one copy of the
digest per planted error, of every kind the issue names, in every section that carries
numbers:

* ``x100``: a fraction written as a percentage of the same digits (0.14 → 0.14%) or ×100
  without the unit (0.14 → 14), a percentage divided (30% → 0.3%);
* ``citation``: a number that the paper only has as a citation marker ([35] → 35%);
* ``ratio``: a number the paper only has inside an a/b pair such as 24/7 or 5/8;
* ``standard-error``: a number the paper only has as a standard error or spread;
* ``example-prompt``: a number the paper only has inside a quoted example or prompt;
* ``year``: a year of the paper's citations written as a count (2024 个);
* ``section-number``: a table / figure / section number written as a value (3.3%);
* ``wrong-unit``: the right digits in the wrong unit (30% → 30×, 7.36 秒 → 7.36 分钟);
* ``scale``: the right digits with a scale the paper does not write (500 → 500 million);
* ``digit``: a changed digit (0.84 → 0.48).

Whether a plant is really wrong is decided by an oracle that does not use the verifier:
regular expressions over the paper's raw text (the digits must not occur there outside the
non-evidence contexts the kind takes them from; for a unit plant, the digits must not occur
with that unit, in a column with that unit, or as the converted fraction). Existing numbers
are replaced in place; a section without numbers gets a clause citing the paper appended.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from paperbrief.models import EXAMPLE_MARK, Document
from paperbrief.text import NumberMention
from paperbrief.text.citations import claim_sentences, markers
from paperbrief.write.claims import Chunk, plain_markdown, read_markdown
from paperbrief.write.trace import Sources, claim_numbers
from paperbrief.write.verify import check_chunks

KINDS = (
    "x100",
    "citation",
    "ratio",
    "standard-error",
    "example-prompt",
    "year",
    "section-number",
    "wrong-unit",
    "scale",
    "digit",
)
_TOKEN = r"(?<![\d.,]){}(?![\d]|[.,]\d)"
_CITATIONS = re.compile(r"\[\s*\d+(?:\s*[,–;-]\s*\d+)*\s*\]")
_REFERENCES = re.compile(
    r"\b(?:Tables?|Figures?|Fig\.|Sections?|Sec\.|Appendix|Eq\.|Algorithm|Step|Line)\s*"
    r"[A-Z]?\d+(?:\.\d+)*(?:\s*(?:,|and|–|-)\s*[A-Z]?\d+(?:\.\d+)*)*"
)
_RATIOS = re.compile(r"(?<![\d.])\d+/\d+(?!\d|\.\d)")
_ERRORS = re.compile(r"(?:±|\\pm\$?)\s*\d+(?:\.\d+)?|(?<=\d)\s*\(\s*\d+\.\d+\s*\)")
_QUOTES = re.compile(r"“[^“”]{1,1500}”")
_YEARS = re.compile(r"(?<![\d.])(?:19|20)\d\d(?![\d])")
_PERCENT = r"\s*(?:%|％|percent|pp\b|percentage points?|points?)"
_TIMES = r"\s*(?:×|x\b|X\b|times|-?fold)"
_UNIT_SWAPS = {"%": "×", "pp": "×", "x": "%"}
_TIME_SWAPS = {
    "s": ("分钟", r"\s*(?:min|minutes?|分钟)"),
    "min": ("秒", r"\s*(?:s\b|sec|seconds?|秒)"),
    "h": ("分钟", r"\s*(?:min|minutes?|分钟)"),
    "day": ("小时", r"\s*(?:h\b|hours?|小时)"),
    "week": ("天", r"\s*(?:days?|天)"),
}


@dataclass(frozen=True)
class Plant:
    kind: str
    paper: str
    section: str
    line: int
    planted: str  # the number as planted, e.g. "0.14%"
    markdown: str  # the whole digest with this one plant


@dataclass
class _Paper:
    """A paper's raw text, its non-evidence numbers by kind, and what the oracle reads."""

    raw: str
    clean: str  # raw text without any non-evidence context
    tables: list[tuple[str, str]]  # (cell, its column header + caption)
    sources: dict[str, list[str]]

    def __post_init__(self) -> None:
        numbers = re.findall(r"\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?", self.clean)
        self.values = sorted(float(n.replace(",", "")) for n in numbers)

    def absent(self, digits: str, scale: float = 1.0) -> bool:
        """No number of the clean text is these digits (times ``scale``), or rounds to them."""
        decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
        target = float(digits) * scale
        half = 0.5 * 10**-decimals * scale + 1e-9
        return not any(target - half <= value < target + half for value in self.values)

    def absent_anyhow(self, digits: str) -> bool:
        """Absent as written, and (a fraction) absent as a percentage too."""
        if not self.absent(digits):
            return False
        value = float(digits)
        if "." in digits and value <= 1:
            percent = f"{value * 100:g}"
            return self.absent(percent) or self.never_with_unit(percent, _PERCENT, r"%")
        return True

    def never_with_unit(self, digits: str, unit_pattern: str, header_words: str) -> bool:
        """The digits never appear with this unit, nor in a cell whose column has it."""
        if re.search(re.escape(digits) + unit_pattern, self.raw):
            return False
        token = re.compile(_TOKEN.format(re.escape(digits)))
        return not any(
            token.search(cell) and re.search(header_words, header) for cell, header in self.tables
        )


def _paper(document: Document) -> _Paper:
    prose: list[str] = [document.title, document.abstract]
    examples: list[str] = []
    for section in document.sections:
        for paragraph in section.paragraphs:
            (examples if paragraph.startswith(EXAMPLE_MARK) else prose).append(paragraph)
    prose += [figure.caption for figure in document.figures]
    tables: list[tuple[str, str]] = []
    for table in document.tables:
        prose.append(table.caption)
        cells = [c for row in table.rows[table.header_rows :] for c in row[1:] if c]
        numeric = sum(1 for c in cells if re.search(r"\d", c))
        example = re.search(
            r"prompt|example|dialog|question|paraphras|response", table.caption, re.I
        ) and numeric * 2 < max(len(cells), 1)
        headers = [
            " ".join(row[c] for row in table.rows[: table.header_rows] if c < len(row))
            for c in range(max((len(r) for r in table.rows), default=0))
        ]
        for row in table.rows[table.header_rows :]:
            for column, cell in enumerate(row):
                if example:
                    examples.append(cell)
                else:
                    prose.append(cell)
                    tables.append((cell, f"{headers[column]} {table.caption}"))
    raw = "\n".join(prose)
    sources = {
        "citation": _numbers(_CITATIONS.findall(raw)),
        "ratio": _numbers(_RATIOS.findall(raw)),
        "standard-error": _numbers(_ERRORS.findall(raw)),
        "example-prompt": _numbers(examples + _QUOTES.findall(raw)),
        "year": sorted(set(_YEARS.findall(raw))),
        "section-number": _numbers(_REFERENCES.findall(raw)),
    }
    clean = raw
    for pattern in (_CITATIONS, _REFERENCES, _RATIOS, _ERRORS, _QUOTES, _YEARS):
        clean = pattern.sub(" ", clean)
    clean = re.sub(r"arXiv:\S+|https?://\S+", " ", clean)
    return _Paper(raw + "\n" + "\n".join(examples), clean, tables, sources)


def _counts(paper: _Paper) -> Iterator[str]:
    """Bare counts the paper states (over ten) that it never gives in millions."""
    for match in re.finditer(r"(?<![\d.,$])(\d{2,4})(?=\s+[a-z])", paper.clean):
        number = match.group(1)
        if paper.never_with_unit(number, r"\s*(?:million|M\b|万)", r"million") and paper.absent(
            number, 1e6
        ):
            yield number


def _union(papers: list[_Paper]) -> _Paper:
    sources: dict[str, list[str]] = {}
    for paper in papers:
        for kind, numbers in paper.sources.items():
            sources.setdefault(kind, []).extend(n for n in numbers if n not in sources[kind])
    return _Paper(
        "\n".join(p.raw for p in papers),
        "\n".join(p.clean for p in papers),
        [cell for p in papers for cell in p.tables],
        sources,
    )


def _numbers(texts: list[str]) -> list[str]:
    found: list[str] = []
    for text in texts:
        for number in re.findall(r"\d+(?:\.\d+)?", text):
            if number not in found:
                found.append(number)
    return found


def _digits(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def _claim_parts(text: str) -> tuple[str, str]:
    """(digits, the rest) of a claim as written: "+6.3 pp" → ("6.3", " pp")."""
    match = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if not match:
        return text, ""
    return match.group(0).replace(",", ""), text[match.end() :]


def _candidates(kind: str, claim_text: str, unit: str, paper: _Paper) -> Iterator[str]:
    """Wrong replacements for one claim, of one kind (each checked by the oracle)."""
    digits, rest = _claim_parts(claim_text)
    if not re.fullmatch(r"\d+(?:\.\d+)?", digits):
        return  # a number spelled out ("four weeks"): no digits to alter
    value = float(digits)
    decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
    percent = unit in ("%", "pp")
    if kind == "x100":
        if not unit and value <= 1 and decimals:
            if paper.never_with_unit(digits, _PERCENT, r"%|percent"):
                fraction = _digits(value / 100, decimals + 2)
                if paper.absent(fraction):
                    yield f"{digits}%"
            scaled = f"{value * 100:g}"
            if paper.absent_anyhow(scaled):
                yield scaled
        if percent and value >= 1:
            divided = f"{value / 100:g}"
            if paper.absent(divided) and paper.never_with_unit(divided, _PERCENT, r"%"):
                yield f"{divided}%"
        return
    if kind == "wrong-unit":
        if unit in _UNIT_SWAPS:
            new = _UNIT_SWAPS[unit]
            pattern = _TIMES if new == "×" else _PERCENT
            if paper.never_with_unit(digits, pattern, r"×|speedup|times" if new == "×" else "%"):
                yield f"{digits}{new}"
        elif unit in _TIME_SWAPS:
            word, pattern = _TIME_SWAPS[unit]
            if paper.never_with_unit(digits, pattern, r"\(min|\(s\)|time"):
                yield f"{digits} {word}"
        elif (
            not unit
            and value > 10
            and paper.never_with_unit(digits, r"\s*(?:s\b|sec|seconds?|秒)", r"\(s\)|time")
        ):
            yield f"{digits} 秒"
        return
    if kind == "scale":
        scaled = not rest.strip().startswith(("k", "M", "B", "万", "亿", "million"))
        if not unit and scaled and value >= 1:
            grouped = f"{value * 1e6:,.0f}"
            if paper.never_with_unit(digits, r"\s*(?:million|M\b|万)", r"\(M\)|million") and (
                paper.absent(digits, 1e6) and grouped not in paper.raw
            ):
                yield f"{digits} million"
        return
    if kind == "digit":
        for index in range(len(digits) - 1, -1, -1):
            if not digits[index].isdigit():
                continue
            changed = digits[:index] + str((int(digits[index]) + 3) % 10) + digits[index + 1 :]
            if changed.lstrip("0").startswith(".") or changed == digits:
                continue
            if paper.absent_anyhow(changed) and float(changed) > 10**-decimals:
                yield changed + rest
                return
        return
    scale = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "million": 1e6, "万": 1e4}.get(rest.strip())
    for number in paper.sources.get(kind, []):
        if scale and not paper.absent(number, scale):
            continue  # "13k" is 13,000 ± 500, which the paper may state
        if kind == "year":
            if paper.absent(number):
                yield f"{number} 个"
            continue
        small = "." not in number and int(number) <= 10
        if small and not percent:
            continue  # bare counts up to ten are not claims at all
        if not paper.absent_anyhow(number):
            continue
        if percent and not paper.absent(f"{float(number) / 100:g}"):
            continue
        yield number + rest


_LINK_TARGET = re.compile(r"\]\([^)]*\)")


def _claims(chunk: Chunk, sources: Sources) -> list[NumberMention]:
    """The numbers of a chunk the verifier treats as claims, outside citation markers."""
    found: list[NumberMention] = []
    inside = [(a, b) for a, b, _ in markers(chunk.text)]
    for sentence in claim_sentences(chunk.text):
        for mention in claim_numbers(sentence.text, chunk.section, bool(sentence.refs), sources):
            start = sentence.start + mention.start
            if not any(a <= start < b for a, b in inside):
                found.append(replace(mention, start=start, end=sentence.start + mention.end))
    return found


def _replace(lines: list[str], chunk: Chunk, start: int, old: str, new: str) -> str | None:
    """The digest with the claim at ``start`` of ``chunk`` replaced: the k-th occurrence of
    the number in the chunk is the k-th on its Markdown line outside link targets (labels
    hold no numbers)."""
    text = lines[chunk.line - 1]
    chunk_text = re.sub(r"\[[^\]]*:(?:E|T)[^\]]*\]", lambda m: " " * len(m.group(0)), chunk.text)
    occurrence = chunk_text[:start].count(old)
    targets = [(m.start(), m.end()) for m in _LINK_TARGET.finditer(text)]
    position = -1
    for _ in range(occurrence + 1):
        position = text.find(old, position + 1)
        while position >= 0 and any(a <= position < b for a, b in targets):
            position = text.find(old, position + 1)
        if position < 0:
            return None
    changed = list(lines)
    changed[chunk.line - 1] = text[:position] + new + text[position + len(old) :]
    return "\n".join(changed)


def _append(lines: list[str], chunk: Chunk, number: str) -> str:
    changed = list(lines)
    text = changed[chunk.line - 1].rstrip()
    clause = f"（论文报告 {number}）"
    if text.startswith("|"):
        cells = text.strip("|").split("|")
        target = max(
            (
                i
                for i, cell in enumerate(cells)
                if cell.strip() and plain_markdown(cell).strip()[:20] in chunk.text
            ),
            default=len(cells) - 1,
        )
        cells[target] = f" {cells[target].strip()}{clause} "
        changed[chunk.line - 1] = "|" + "|".join(cells) + "|"
    else:
        changed[chunk.line - 1] = text + clause
    return "\n".join(changed)


def plant_all(markdown: str, documents: dict[str, Document], per_section: int = 2) -> list[Plant]:
    """Every plant for ``markdown``: for each (paper, section), up to ``per_section``
    claims replaced by each kind, or one appended clause per kind where it has no claim."""
    read = read_markdown(markdown)
    papers = {paper: _paper(doc) for paper, doc in documents.items() if paper in read.papers}
    papers[""] = _union(list(papers.values()))  # a day-level plant must be wrong for all
    lines = markdown.split("\n")
    plants: list[Plant] = []
    done: dict[tuple[str, str, str], int] = {}
    sections_with_claims: set[tuple[str, str]] = set()
    for chunk in read.chunks:
        paper = papers.get(chunk.paper)
        if paper is None:
            continue
        claims = _claims(chunk, Sources({}))
        if claims:
            sections_with_claims.add((chunk.paper, chunk.section))
        for claim in claims:
            for kind in KINDS:
                if kind == "standard-error" and claim.kind == "error":
                    continue  # a spread put in a spread's place is no error of kind
                key = (chunk.paper, chunk.section, kind)
                if done.get(key, 0) >= per_section:
                    continue
                for new in _candidates(kind, claim.text, claim.unit, paper):
                    old = claim.text.lstrip("+-−")
                    start = claim.start + len(claim.text) - len(old)
                    planted = _replace(lines, chunk, start, old, new)
                    if planted is None:
                        break
                    plants.append(Plant(kind, chunk.paper, chunk.section, chunk.line, new, planted))
                    done[key] = done.get(key, 0) + 1
                    break
    for chunk in read.chunks:
        if (chunk.paper, chunk.section) in sections_with_claims:
            continue
        paper = papers.get(chunk.paper)
        if paper is None:
            continue
        sections_with_claims.add((chunk.paper, chunk.section))  # one chunk per section
        for kind in ("citation", "standard-error", "section-number", "year", "digit", "x100",
                     "ratio", "example-prompt", "scale"):  # fmt: skip
            template = {"digit": "97.3%", "x100": "0.74%"}.get(kind)
            new = template or next((n for n in _candidates(kind, "55.5%", "%", paper)), "")
            if kind == "scale":
                new = next((f"{n} million" for n in _counts(paper)), "")
            if not new or (template and not paper.absent(new.rstrip("%"))):
                continue
            plants.append(
                Plant(kind, chunk.paper, chunk.section, chunk.line, new, _append(lines, chunk, new))
            )
    return plants


def caught(plant: Plant, sources: Sources) -> bool:
    """Whether the verifier leaves the claim with the planted number untraced. ``sources``
    are the honest digest's (``verify.digest_sources``): a plant changes neither the papers
    nor the day's facts, so they can be reused across plants."""
    digits, _ = _claim_parts(plant.planted)
    chunks = [c for c in read_markdown(plant.markdown).chunks if c.line == plant.line]
    return any(digits in check.text for check in check_chunks(chunks, sources) if not check.traced)


@dataclass(frozen=True)
class Score:
    plants: int
    caught: int
    by_kind: dict[str, tuple[int, int]]  # kind -> (caught, planted)
    by_section: dict[str, tuple[int, int]]
    missed: tuple[Plant, ...]

    @property
    def rate(self) -> float:
        return self.caught / self.plants if self.plants else 0.0


def score(plants: list[Plant], sources: Sources) -> Score:
    by_kind: dict[str, list[int]] = {}
    by_section: dict[str, list[int]] = {}
    missed = []
    for plant in plants:
        hit = caught(plant, sources)
        for table, key in ((by_kind, plant.kind), (by_section, plant.section)):
            entry = table.setdefault(key, [0, 0])
            entry[0] += hit
            entry[1] += 1
        if not hit:
            missed.append(plant)
    total = sum(entry[1] for entry in by_kind.values())
    hits = sum(entry[0] for entry in by_kind.values())
    return Score(
        total,
        hits,
        {k: (v[0], v[1]) for k, v in by_kind.items()},
        {k: (v[0], v[1]) for k, v in by_section.items()},
        tuple(missed),
    )
