"""Is a claim what its cited units say? The verifier's checks, one claim at a time.

A claim is a sentence (or results row, or table cell) of a digest with the evidence units it
cites (``text.citations``). It is checked against *those units only* — never the paper at
large, never another paper:

1. citation: every cited id exists in that paper;
2. quantity: every number it states is stated by a cited unit (``quantities.py``: value,
   precision, unit, scale, points vs percent, fractions, shares, computed deltas, one
   evidence number per claimed number) — never a standard error, a citation marker, a
   year, a label or a quotation;
3. direction: 提升/下降, increase/decrease, a sign, better/worse on a number agree with the
   supporting unit's own sign or cue word (on the same axis: value or merit);
4. names: every model, dataset, metric or baseline name it states is in its cited units
   (the sentence, the one before it and its heading; a cell's row, column, caption and
   section) — a name of *another* row or column of a cited table, or one the paper never
   mentions, is wrong; the paper's own system name, the reader's names and names most of
   the paper's sections use are always fine;
5. comparison, move, value of a row: read as a structure (subject, reference, relation,
   values) whose sides are located in the cited units and settled by their numbers
   (``sides.py``), else by a cited sentence comparing the same two names.

A claim with no citation is *not traced* (``Finding("citation", "no citation")``). The
checks claim no more than this: a traced claim is consistent with the units it cites as far
as these checks read them — not proven true.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from paperbrief.fulltext.units import Unit, UnitIndex, table_key
from paperbrief.text import NumberMention, find_numbers, with_kind
from paperbrief.text.citations import Ref, strip_citations
from paperbrief.text.direction import (
    Comparison,
    Direction,
    comparisons,
    cues,
    direction_of,
    lower_is_better,
    metric_direction,
    on_value_axis,
)
from paperbrief.text.names import KIND_TERMS, Name, name_key, name_parts, names_in, spelled_lists
from paperbrief.text.names import STOP_WORDS as _NAME_STOP
from paperbrief.write.grid import grid_rows
from paperbrief.write.quantities import (
    RELATIVE_WORD,
    assign,
    computations,
    counted_by_citation,
    derived,
    derives,
    is_change,
    relative_to_base,
    states_change,
    supports,
    typing_word,
)
from paperbrief.write.relations import bindings, fold_formula, plain_value, relations
from paperbrief.write.sides import (
    CLAUSE_BREAK,
    Line,
    Side,
    cited_lines,
    clause_subject,
    commented_rows,
    comparatives,
    labelled,
    levels_in,
    moves,
    paired_rows,
    settle_conditions,
    settle_move,
    settle_move_in_prose,
    settle_order,
    settle_pair,
    settle_row,
    settle_subject_row,
)

# The reader's part of a brief and the day-level text may speak of the reader's own numbers.
READER_SECTIONS = frozenset({"reason", "technique", "experiment", "trend", "summary", "theme",
                             "closing", "comparison"})  # fmt: skip
# The paper's part: every name a cited sentence states must be one the paper uses.
PAPER_SECTIONS = frozenset({"tldr", "problem", "insight", "method", "steps", "difference",
                            "results", "result_notes", "reported_numbers", "limitations",
                            "open_questions", "overview", "figure"})  # fmt: skip
# Sections whose uncited sentences are the digest's own (a proposal, a question).
OWN_SECTIONS = frozenset({"experiment", "open_questions"})
_RATING = re.compile(
    r"(?:相关度|relevance|评分|rating|relevant)[^。.;；]{0,8}?\d\s?/\s?5|\d\s?(?:颗星|星|stars?\b)|[⭐★]",
    re.IGNORECASE,
)
_READER = re.compile(r"我们|咱们|\b(?:we|our|us|the reader)\b", re.IGNORECASE)
_READING_TIME = ("读", "阅读", "read", "值得", "花", "spend", "worth", "minutes of")


@dataclass(frozen=True)
class Finding:
    """Why a claim is not traced: the check that failed and what it saw."""

    check: str  # citation | quantity | direction | name | comparison
    detail: str


@dataclass(frozen=True)
class ClaimCheck:
    """One checked claim: what it says, what it cites, and what failed (nothing: traced)."""

    paper: str  # the brief's paper, or "" for a day-level claim
    section: str
    text: str  # as the reader reads it (markers removed)
    refs: tuple[Ref, ...]
    findings: tuple[Finding, ...] = ()
    support: tuple[tuple[str, str, str], ...] = ()  # (number as written, paper, unit id)
    line: int = 0

    @property
    def traced(self) -> bool:
        return not self.findings


@dataclass(frozen=True)
class Sources:
    """What claims may rest on: each paper's units, the pick order of the day prompt, and
    what is not a claim about any paper (the reader's profile, the day's own facts)."""

    papers: Mapping[str, UnitIndex]
    picks: Sequence[str] = ()  # paper id of pick 1, 2, … as the day prompt numbers them
    known: tuple[NumberMention, ...] = ()  # the reader's own numbers (profile)
    facts: tuple[float, ...] = ()  # papers considered, picks
    allowed_names: frozenset[str] = frozenset()  # name keys always fine (profile, titles)
    # counts the digest traced elsewhere for a paper: (value, what it counts) by paper id
    counted: Mapping[str, tuple[tuple[float, str], ...]] = field(default_factory=dict)

    def resolve(self, ref: Ref, paper: str) -> tuple[str, Unit | None]:
        """(paper id, unit) a reference points to; a bare unit in day text is unresolvable."""
        if ref.paper:
            paper = ref.paper
        elif ref.pick is not None:
            if not 1 <= ref.pick <= len(self.picks):
                return "", None
            paper = self.picks[ref.pick - 1]
        index = self.papers.get(paper)
        return paper, index.get(ref.unit) if index is not None else None


@dataclass
class _Claim:
    plain: str
    numbers: list[NumberMention]
    names: list[Name]  # the names attached to its numbers and comparisons (``attached_names``)
    units: list[tuple[str, Unit]] = field(default_factory=list)
    others: list[Name] = field(default_factory=list)  # its other names (paper sections only)
    bindable: list[int] = field(default_factory=list)  # where "SYM=v" values may be read

    _lines: list[Line] | None = None

    def lines(self, indexes: Mapping[str, UnitIndex]) -> list[Line]:
        """The rows and columns of the tables it cites (``sides.cited_lines``), read once."""
        if self._lines is None:
            self._lines = cited_lines(self.units, indexes)
        return self._lines

    @cached_property
    def levels(self) -> list[NumberMention]:
        """Every level the sentence writes (claimed or not): what a move or order relates."""
        return levels_in(self.plain)


_CLAUSE_EDGE = re.compile(r"[，,；;。！？!?：:（()）|\n]| — | – ")


def attached_names(plain: str, numbers: Sequence[NumberMention], compared: Sequence[Comparison],
                   names: Sequence[Name], *, own: bool = False) -> list[Name]:  # fmt: skip
    """The names a sentence attaches to its numbers: those in a number's clause and in the
    number-free clause right before it ("在 RealScholarQuery 上，PaSa-7b 高 37.78%" attaches
    both), and the two sides of each comparison. A name elsewhere in a long sentence
    ("Cohen's kappa" in an aside) is not said of the number. In a proposal of the digest's
    own (``own``) the clause before is the plan ("对 Qwen2.5-Coder-7B 做 LoRA 微调，像论文一样
    跑 5 个种子"): only the number's own clause speaks of the paper."""
    edges = [0, *(m.end() for m in _CLAUSE_EDGE.finditer(plain)), len(plain) + 1]
    clauses = list(itertools.pairwise(edges))
    with_numbers = {i for i, (a, b) in enumerate(clauses) if any(a <= n.start < b for n in numbers)}
    spans: list[tuple[int, int]] = []
    for index in sorted(with_numbers):
        before = index > 0 and index - 1 not in with_numbers and not own
        start = index - 1 if before else index
        spans.append((clauses[start][0], clauses[index][1]))
    attached = [n for n in names if any(a <= n.start < b for a, b in spans)]
    for comparison in compared:
        attached += [comparison.left, comparison.right]
    return list(dict.fromkeys(attached))


# ------------------------------------------------------------------- which numbers
def claim_numbers(plain: str, section: str, cited: bool, sources: Sources) -> list[NumberMention]:
    """The numbers of a claim sentence that must be traced (the module's claim policy).

    Not claims: names' digits (GPT-4o), labels (Table 2, 第 3 步), citation markers, years,
    quotations, glued tokens (5-shot, 3rd); the reader's own numbers; the day's facts; in
    the 💡 experiment the plan's numbers unless the sentence cites the paper, and effort
    durations; reading-time durations; small counts (≤ 10) of an uncited sentence.
    """
    found = []
    day = section in ("summary", "theme", "closing")
    rating_spans = [(m.start(), m.end()) for m in _RATING.finditer(plain)]
    for mention in _read_numbers(plain, section):
        if mention.kind == "quoted" and _translated_quote(plain, mention):
            mention = with_kind(mention, "value")
        if mention.kind not in ("value", "error", "ratio") or mention.in_name:
            continue
        if mention.kind == "ratio" and (mention.pair is None or mention.pair[0] > mention.pair[1]):
            continue  # a pair's denominator was read with it; "24/7" is no share
        bare = not mention.unit and mention.scale == 1.0
        if bare and mention.glued_after and not mention.words:
            continue
        if any(a <= mention.start < b for a, b in rating_spans):
            continue  # the digest's own rating ("相关度只有 1/5", "只给 2 星")
        if day and bare and mention.value not in sources.facts and _day_count(plain, mention):
            found.append(mention)  # "从 412 篇中选出 4 篇" when the day picked 3
            continue
        reader = section in READER_SECTIONS or _READER.search(plain) is not None
        if reader and any(_same_value(mention, k) for k in sources.known):
            continue  # the reader's own numbers (their assets, their findings, their scale)
        if (
            section in OWN_SECTIONS
            and not cited
            and not _SAYS_PAPER.search(_clause_of(plain, mention.start))
        ):
            continue  # the digest's own proposal or question, not a claim about the paper
        if section == "experiment" and mention.dimension == "time":
            continue  # effort
        if section in READER_SECTIONS and mention.dimension == "time" and _EFFORT.search(plain):
            continue  # the reader's effort ("本组复现约 2–3 周"), not a duration of the paper
        if section in OWN_SECTIONS and _EXAMPLE.search(
            _clause_of(plain, mention.start)[: mention.start - _clause_start(plain, mention.start)]
        ):
            continue  # the digest's own example in a proposal or question ("如 k=-1 或 k=-10")
        if day and mention.dimension == "time" and any(w in plain.lower() for w in _READING_TIME):
            continue
        if day and bare and mention.value in sources.facts:
            continue
        small = bare and mention.value <= 10 and float(mention.value).is_integer()
        stated = _counts(plain, mention) or _assigned(plain, mention)
        # a count the sentence says the paper has ("全文 9 处…") is a claim, cited or not
        of_paper = stated and _SAYS_PAPER.search(_clause_of(plain, mention.start)) is not None
        if small and mention.pair is None and (not cited or not stated) and not of_paper:
            continue  # "0–1 分", "第 2 条", a list's own count: no claim about the paper
        found.append(mention)
    return found


_HAN = re.compile(r"[\u4e00-\u9fff]")


def _translated_quote(plain: str, mention: NumberMention) -> bool:
    """A quotation in Chinese inside a Chinese digest ("“百分之五的患者……发现错误”") is the
    paper's statement translated, so its numbers are claims; a verbatim English quote (a
    prompt, an example) is not."""
    opening = plain.rfind("“", 0, mention.start)
    closing = plain.find("”", mention.end)
    if opening < 0 or closing < 0:
        return False
    return len(_HAN.findall(plain[opening:closing])) >= 4


_MEASURE_AFTER = re.compile(
    r"^\s?(?:个|篇|项|种|类|次|条|名|位|组|轮|步|层|份|例|场|套|款|家|所|人|道|题|张|幅|段|处|"
    r"倍|成|[a-z]{3,})",
    re.IGNORECASE,
)


def _is_count(plain: str, mention: NumberMention) -> bool:
    """An integer that counts something (两组, 5 seeds), not a level."""
    whole = float(mention.value).is_integer() and not mention.decimals
    return whole and not mention.unit and mention.pair is None and _counts(plain, mention)


def _counts(plain: str, mention: NumberMention) -> bool:
    """A small integer that counts something: written in words (七个, three), or followed by
    a measure word or a noun (4 个数据集, 5 seeds)."""
    return mention.words or bool(_MEASURE_AFTER.match(plain[mention.end : mention.end + 12]))


_LIST_END = re.compile(r"[，；;。！？!?：:\n]|,(?!\d{3})")
_LAST_JOIN = re.compile(r"(?:和|与|及|以及|\band\b|\bor\b)")


def _items(text: str) -> int:
    """How many items "A、B、C" / "A、B 和 C" lists (brackets' insides not counted); 0 when
    it is no list."""
    depth, separators, last = 0, 0, 0
    for position, char in enumerate(text):
        if char in "(（[【":
            depth += 1
        elif char in ")）]】":
            depth = max(0, depth - 1)
        elif char == "、" and depth == 0:
            separators += 1
            last = position
    if not separators:
        slashed = re.search(r"(?:[\w.-]+/){1,6}[\w.-]+\s*$", text)  # "tiny/short/long 三种"
        if slashed:
            return slashed.group(0).count("/") + 1
        pair = re.search(r"[\w.,-]+\s?(?:与|和|及|或|\band\b|\bor\b)\s?[\w.,-]+\s*$", text)
        return 2 if pair else 0  # "33,511 与 33,551 两种写法"
    return separators + 1 + bool(_LAST_JOIN.search(text[last:]))


def listed_count(plain: str, number: NumberMention) -> bool:
    """A count of what the sentence lists itself: "在 10%、15%、20% 三种规模上", "三种粒度：
    tiny、short、long" — the digest counting its own list, which the items' own citations
    carry (a wrong count of the list is still a wrong count)."""
    if number.unit or number.scale != 1.0 or number.pair is not None or number.decimals:
        return False
    if not 2 <= number.value <= 20 or not _counts(plain, number):
        return False
    before = plain[: number.start]
    edge = max((m.end() for m in _LIST_END.finditer(before)), default=0)
    if _items(before[edge:]) == number.value:
        return True
    after = re.match(r"^[^，,；;。：:（(]{0,12}[：:（(]([^）)；;。]*)", plain[number.end :])
    return after is not None and _items(after.group(1)) == number.value


_COUNTED_THING = re.compile(
    r"^\s?(?:[个篇项种类次条名位组轮步层份例场套款家所人道题张幅段])?\s?"
    r"([\u4e00-\u9fffA-Za-z-]{1,8})"
)


def counted_things(plain: str, numbers: Sequence[NumberMention]) -> list[tuple[float, str]]:
    """(value, what it counts) of each count among ``numbers``: "三个 AI 支持组件" →
    (3, "ai支持组件"): the words after the measure word, spaces dropped."""
    found = []
    for number in numbers:
        if number.unit or number.pair is not None or number.decimals or not _counts(plain, number):
            continue
        thing = _COUNTED_THING.match(plain[number.end : number.end + 16].replace(" ", ""))
        if thing:
            found.append((number.value, thing.group(1).lower()))
    return found


def _restated(plain: str, number: NumberMention, paper: str, sources: Sources) -> bool:
    """A count the digest traced for this paper in another claim, the same number of the
    same thing ("三个 AI 支持组件 [E41]" … later "三个组件"): restated, not new."""
    mine = counted_things(plain, [number])
    if not mine:
        return False
    _, thing = mine[0]
    head = thing[:2]
    return any(
        value == number.value and (head in other or other[:2] in thing)
        for value, other in sources.counted.get(paper, ())
    )


def _assigned(plain: str, mention: NumberMention) -> bool:
    """A small integer written with its sign ("k=-3", "+2"): a value of the paper, not a
    list's own numbering (unsigned settings such as "n=3" name the example, as labels do)."""
    return mention.negative or mention.text.lstrip()[:1] in "+＋"


def _day_count(plain: str, mention: NumberMention) -> bool:
    """A count of the day's papers ("选出 4 篇", "412 papers were considered"): the day's
    facts state it, the reader's profile never does."""
    picked = _PICKED.search(_clause_of(plain, mention.start))
    return (
        picked is not None and _PAPERS_AFTER.match(plain[mention.end : mention.end + 8]) is not None
    )


_PICKED = re.compile(r"选出|入选|选了|挑出|picked|selected|chosen", re.IGNORECASE)
_PAPERS_AFTER = re.compile(r"^\s?(?:篇|papers?\b|picks?\b)", re.IGNORECASE)
_QUESTION = re.compile(r"[？?]\s*$")
_EFFORT = re.compile(r"工作量|本组|本课题组|我们|咱们|\beffort\b|\bwe\b|\bour\b", re.IGNORECASE)
# a clause that gives the digest's own example: "（如 k=-1 或 k=-10）", "e.g. 7B models"
_EXAMPLE = re.compile(r"(?:^|[^\w])(?:如|例如|比如|譬如|诸如)|\be\.g\.|\bsuch as\b|\bfor example\b",
                      re.IGNORECASE)  # fmt: skip


def _clause_start(text: str, position: int) -> int:
    return max((m.end() for m in _CLAUSE_EDGE.finditer(text, 0, position)), default=0)


def _clause_of(text: str, position: int) -> str:
    """The comma clause of ``text`` that holds ``position``."""
    edges = [0, *(m.end() for m in _CLAUSE_EDGE.finditer(text)), len(text)]
    return next((text[a:b] for a, b in itertools.pairwise(edges) if a <= position < b), text)


# A sentence that names a spread speaks of spreads from there on: in "自报的标准差是 0.08，
# 实测只有 0.01" both numbers are standard deviations (the table's "± 0.08", "± 0.01").
_SPREAD = re.compile(
    r"标准差|标准误|方差|\bs\.d\.|\bstd\b|\bSD\b|standard (?:deviation|error)s?",
    re.IGNORECASE,
)


def _as_spreads(plain: str, found: list[NumberMention]) -> list[NumberMention]:
    spread = _SPREAD.search(plain)
    if spread is None:
        return found
    return [
        with_kind(m, "error") if m.kind == "value" and m.start >= spread.start() else m
        for m in found
    ]


def _read_numbers(plain: str, section: str) -> list[NumberMention]:
    """The number grammar over a claim; a results row cell by cell (a cell that is only
    "(0.0102)" is a standard error, as in the paper's table); numbers said after a spread
    word are spreads."""
    if section != "results" or " | " not in plain:
        return _as_spreads(plain, find_numbers(plain))
    found: list[NumberMention] = []
    offset = 0
    for cell in plain.split(" | "):
        found += [
            replace(m, start=m.start + offset, end=m.end + offset) for m in find_numbers(cell)
        ]
        offset += len(cell) + 3
    return found


# Sections whose uncited sentences are the digest's own — unless the sentence says it is
# the paper's ("论文报告 19%", "Table 4 shows", "the authors find"): that is a claim.
_SAYS_PAPER = re.compile(
    r"论文|原文|文中|全文|本文|作者|表\s*\d|图\s*\d|\b(?:Table|Figure|Section|Appendix)\s*[A-Z]?\d|"
    r"\bpaper\b|\bauthors?\b|\breport(?:s|ed)?\b|\bthey (?:find|found|show|measure)",
    re.IGNORECASE,
)


def _same_value(a: NumberMention, b: NumberMention) -> bool:
    """The same quantity: value, scale and dimension, and points are not percent."""
    if {a.unit, b.unit} == {"%", "pp"}:
        return False
    return math.isclose(a.value * a.scale, b.value * b.scale) and a.dimension == b.dimension


# ------------------------------------------------------------------- directions
def _evidence_direction(unit: Unit, mention: NumberMention) -> Direction | None:
    if unit.kind == "sentence":
        return direction_of(unit.text, mention.start, mention.end)
    cell = unit.text.rsplit(": ", 1)[-1].lstrip()
    if cell[:1] in "+＋":
        return Direction("value", 1)
    if cell[:1] in "-−–" or mention.negative:
        return Direction("value", -1)
    return Direction("value", 1) if unit.change else None


def _sign_agrees(
    claim: NumberMention, unit: Unit, evidence: NumberMention, plain: str = ""
) -> bool:
    """A written sign must match: "-0.40" is not the cell's 0.40; "-4.5%" may be the
    paper's "decreases by 4.5%"; "+4.5%" is never its "-4.5" nor its "a drop of 4.5%" —
    unless the paper speaks of removing what the claim credits ("removing X … a 9.63%
    drop" is X's "+9.63%"; "去掉后 +32.21%" is still a rise where the paper has a drop)."""
    written = claim.text.lstrip()[:1]
    if claim.negative:
        found = _evidence_direction(unit, evidence)
        return evidence.negative or (found is not None and found.sign < 0 and found.axis == "value")
    if written in "+＋":
        if evidence.negative:
            return False
        found = _evidence_direction(unit, evidence)
        if found is None or found.axis != "value" or found.sign > 0 or unit.kind != "sentence":
            return True
        removed = _REMOVED.search(unit.text[: evidence.start])
        credited = removed and not _removal_said(plain, claim)
        return bool(credited)
    return True


def _framed_direction(
    unit: Unit, evidence: NumberMention, plain: str, claim: NumberMention
) -> Direction | None:
    """The evidence's direction as the claim frames it: the paper's drop when removing a
    part is the part's gain in a claim that credits the part (no removal word of its own)."""
    found = _evidence_direction(unit, evidence)
    if found is None or unit.kind != "sentence" or not _REMOVED.search(unit.text[: evidence.start]):
        return found
    if _removal_said(plain, claim):
        return found
    return Direction(found.axis, -found.sign)


def _removal_said(plain: str, claim: NumberMention) -> bool:
    """Whether the claim frames ``claim`` as what removing a part does: a removal word in
    its clause, brackets included ("去掉后 -32.21%（AutoScholarQuery 上 -22.98%）": both)."""
    return bool(_REMOVED.search(plain[_break_start(plain, claim.start) : claim.end]))


# the paper's ablation frame: what removing a part costs is what the part adds
_REMOVED = re.compile(
    r"\b(?:remov\w*|without|w/o|ablat\w*|drop(?:ping)? the)\b|去掉|去除|移除|删去|不用",
    re.IGNORECASE,
)


def _agrees(claimed: Direction | None, found: Direction | None, context: str = "") -> bool:
    """Same axis: the signs agree. Value against merit only where the metric says which way
    is better (recall, accuracy ↑; error, latency ↓); otherwise nothing to disagree on."""
    if claimed is None or found is None:
        return True
    if claimed.axis == found.axis:
        return claimed.sign == found.sign
    metric = metric_direction(context)
    a, b = on_value_axis(claimed, metric), on_value_axis(found, metric)
    return not (a and b) or a == b


# ------------------------------------------------------------------- names
def _unit_keys(unit: Unit) -> str:
    text = " ".join((unit.text, unit.context, unit.row_label, unit.column_label))
    return name_key(spelled_lists(text))


def _aliases(plain: str, names: Sequence[Name]) -> dict[str, str]:
    """ "Kramer（Cramer）", "CRLC (Clearinghouse)": a name in brackets right after a name is
    the same thing said another way; either found will do for both (key → other key)."""
    pairs: dict[str, str] = {}
    for first, second in itertools.pairwise(names):
        gap = plain[first.end : second.start]
        if re.fullmatch(r"\s?[(（]\s?", gap) and re.match(r"\s?[)）]", plain[second.end :]):
            a, b = name_key(first.text), name_key(second.text)
            pairs[a], pairs[b] = b, a
    return pairs


def _name_findings(
    claim: _Claim, sources: Sources, indexes: Mapping[str, UnitIndex]
) -> list[Finding]:
    findings: list[Finding] = []
    cited = " ".join(_unit_keys(unit) for _, unit in claim.units)
    papers = {paper for paper, _ in claim.units}
    relevant = [indexes[p] for p in papers if p in indexes]
    aliases = _aliases(claim.plain, [*claim.names, *claim.others])

    grouped = _listed_with_cited(claim.plain, cited)
    referred = " ".join(_referred_keys(paper, unit, indexes) for paper, unit in claim.units)
    cited_names = {name_key(n.text) for _, u in claim.units for n in names_in(u.text)}

    nameless = Name("", 0, 0)
    # a name's part that is a claimed number ("hold-out/5-fold"): the quantity check reads it
    numbered = {name_key(n.text) for n in claim.numbers}

    def fine(part: str, key: str, name: Name = nameless) -> bool:
        return (
            not key
            or key in numbered
            or key in sources.allowed_names
            or key in KIND_TERMS
            or key in cited
            or any(len(key) >= 4 and key in _unit_keys(u) for _, u in claim.units)
            or any(index.generic(part) for index in relevant)
            or key in referred
            or _expanded_acronym(part, cited_names, relevant)
            or _initials(part) in cited_names
            or _short_metric(part, claim.units)
            or part in grouped
            or _spelling_variant(key, relevant)
            or (
                _AUTHORED.match(claim.plain[name.end : name.end + 24]) is not None
                and any(key in _previous_keys(p, u, indexes) for p, u in claim.units)
            )
        )

    for name in claim.names:
        for part in name_parts(name.text):
            key = name_key(part)
            if fine(part, key, name) or fine(part, aliases.get(key, "")) and key in aliases:
                continue
            other_row = _label_elsewhere(key, claim.units, indexes)
            if other_row:
                findings.append(Finding("name", f"{part} is {other_row}, not the cited cell's"))
            elif not any(index.mentions_name(key) for index in relevant):
                if key in aliases and any(index.mentions_name(aliases[key]) for index in relevant):
                    continue
                findings.append(Finding("name", f"{part} is not in the paper"))
            else:
                cited_ids = ", ".join(u.id for _, u in claim.units)
                findings.append(Finding("name", f"{part} is not in the cited units ({cited_ids})"))
    for name in [*claim.names, *claim.others]:
        # "(Laine et al. 2024)": which work the claim is about is what the cited units name
        key = name_key(name.text)
        if _WORK_CITED.match(claim.plain[name.end : name.end + 12]) and key not in cited:
            findings.append(Finding("name", f"{name.text} et al. is not in the cited units"))
    for name in names_in(claim.plain):  # another model of a cited model's family
        for part in name_parts(name.text):
            sibling = _sibling(part, claim.units)
            if sibling and name_key(part) not in sources.allowed_names:
                findings.append(Finding("name", f"{part} is not the cited {sibling}"))
    for name in claim.others:  # said of the paper, though not of a number: must exist in it
        for part in name_parts(name.text):
            key = name_key(part)
            if (
                key
                and key not in sources.allowed_names
                and key not in KIND_TERMS
                and not any(index.mentions_name(key) for index in relevant)
                and not any(index.mentions_name(aliases.get(key, "")) for index in relevant)
                and not _spelling_variant(key, relevant)
            ):
                findings.append(Finding("name", f"{part} is not in the paper"))
            elif (_rare(key, relevant) or _credited(claim.plain, name)) and not (
                fine(part, key, name) or fine(part, aliases.get(key, "")) and key in aliases
            ):
                cited_ids = ", ".join(u.id for _, u in claim.units)
                why = "credited with it" if _credited(claim.plain, name) else "named in one section"
                findings.append(Finding("name", f"{part} ({why}) is not in the cited units "
                                        f"({cited_ids})"))  # fmt: skip
    return findings


# a name credited with a result or a design: "Tideman 只证明了", "沿用 Kramer–Sugiyama 的模拟设计",
# "Arrow 的五条公理", "X et al. show"
_CREDIT_AFTER = re.compile(
    r"^(?:\s*(?:[–—&-]|and|和|与)\s*[A-Z][\w-]*)*\s*(?:只|已|也|首先|最早|曾)?\s*"
    r"(?:证明|提出|发现|给出|表明|刻画|定义|设计|构造|\b(?:proved?|proposed?|showed?|shows|introduced?)\b|"
    r"的[^，,；;。]{0,8}?(?:定理|引理|公理|结论|结果|证明|方法|设计|框架|模型|猜想|法则))"
)


def _credited(plain: str, name: Name) -> bool:
    """Whether the claim credits ``name`` with a result, a design or a definition: which
    work it is must be what the cited units (or the sentence before them) name."""
    return _CREDIT_AFTER.match(plain[name.end : name.end + 30]) is not None


def _rare(key: str, relevant: Sequence[UnitIndex]) -> bool:
    """A name a paper of several sections writes in one section only ("Tideman", cited for
    another rule; a codeword of one experiment): a specific fact, so the claim that states
    it must cite a unit that names it. Names of several sections are the paper's
    vocabulary."""
    counts = [
        index.name_counts.get(key, 0)
        for index in relevant
        if index.mentions_name(key) and index.sections >= _RARE_AMONG
    ]
    return bool(counts) and max(counts) <= 1


_RARE_AMONG = 5  # sections a paper needs before one section's name is a rare one


_REFERRING_BACK = 4  # sentences before a name-less cited sentence that it may refer to


def _referred_keys(paper: str, unit: Unit, indexes: Mapping[str, UnitIndex]) -> str:
    """The names a cited sentence that names nothing refers back to ("we compared our
    results with the theory in Eq. (40)" after "the Rayleigh PDF in Eq. (27)"): those of
    the few sentences before it in its section. A sentence that names something speaks of
    that, so its neighbours' names are not its own."""
    index = indexes.get(paper)
    number = re.fullmatch(r"E(\d+)", unit.id)
    if index is None or number is None or unit.kind != "sentence" or names_in(unit.text):
        return ""
    keys = []
    for back in range(1, _REFERRING_BACK + 1):
        before = index.get(f"E{int(number.group(1)) - back}")
        if before is None or before.location != unit.location:
            break
        keys.append(name_key(before.text))
    return " ".join(keys)


# a name said as a result's author: "Holliday–Pacuit 的定理", "Kramer 法则", "X et al."
_AUTHORED = re.compile(
    r"^(?:\s*(?:[–—&-]|and|和|与)\s*[A-Z][\w-]*)*\s*(?:的)?\s*(?:定理|引理|结论|结果|证明|公理|猜想|法则|'s\b)"
)


def _previous_keys(paper: str, unit: Unit, indexes: Mapping[str, UnitIndex]) -> str:
    """The folded text of the sentence before a cited one in its section ("Holliday and
    Pacuit have already proved half of what we need." before the theorem they proved)."""
    index = indexes.get(paper)
    number = re.fullmatch(r"E(\d+)", unit.id)
    if index is None or number is None:
        return ""
    before = index.get(f"E{int(number.group(1)) - 1}")
    return name_key(before.text) if before is not None and before.location == unit.location else ""


def _spelling_variant(key: str, relevant: Sequence[UnitIndex]) -> bool:
    """ "Cramer" for the paper's "Kramer": a name of letters only, five or more, one letter
    off a name the paper writes (a digit off is another model: Llama-70B is not 80B)."""
    if len(key) < 5 or not key.isalpha() or not key.isascii():
        return False
    if any(index.mentions_name(key) for index in relevant):
        return False  # the paper writes it: which unit says it is the question
    return any(  # names the paper writes (``UnitIndex.name_counts``), whole, not running text
        len(name) == len(key) and sum(a != b for a, b in zip(name, key, strict=True)) == 1
        for index in relevant
        for name in index.name_counts
    )


def _sibling(part: str, units: Sequence[tuple[str, Unit]]) -> str:
    """The cited model another member of whose family the claim names ("GPT-4o-mini" where
    the cited unit says "GPT-4o"; "Llama-3.1-8B" for its "Llama-3.1-70B"); "" when the
    cited units name the claim's own."""
    key = name_key(part)
    pieces = part.split("-")
    if len(pieces) < 2 or not key:
        return ""
    cited = [n.text for _, u in units for n in names_in(u.text)]
    if any(key == name_key(c) or key in name_key(c) for c in cited):
        return ""
    family = name_key("-".join(pieces[:-1]))
    for other in cited:
        other_key = name_key(other)
        if len(other_key) >= 4 and (
            key.startswith(other_key)
            and re.match(r"-[A-Za-z]", part[len(other) :] or "")
            or len(family) >= 4
            and name_key("-".join(other.split("-")[:-1])) == family
        ):
            return other
    return ""


def _initials(name: str) -> str:
    """ "Civil Rights Litigation Clearinghouse" → "crlc": a multi-word name's acronym, which
    a paper defines once and then uses ("… Clearinghouse (CRLC)")."""
    words = re.findall(r"[A-Z][A-Za-z]*", name)
    return "".join(w[0] for w in words).lower() if len(words) >= 2 else ""


def _short_metric(part: str, units: Sequence[tuple[str, Unit]]) -> bool:
    """ "Rouge-2" for a table's "R-2": a metric written whole where the cited units write
    its initial and the same suffix (ROUGE-2 / R-2 / R-2f1, BLEU-4 / B-4)."""
    match = re.fullmatch(r"([A-Za-z]{2,})-(\w{1,3})", part)
    if match is None:
        return False
    short = re.compile(rf"(?<![A-Za-z]){match.group(1)[0]}-?{match.group(2)}(?![0-9])", re.I)
    return any(short.search(f"{u.text} {u.column_label}") for _, u in units)


_NAME_LIST = re.compile(r"(?:[A-Za-z][\w.-]*\s?、\s?)+[A-Za-z][\w.-]*\s?(?:等|and others|etc)")


def _listed_with_cited(plain: str, cited: str) -> set[str]:
    """The names of a list said of a group ("BART、PEGASUS、LED、PRIMERA 等模型 … 最多 416
    词"): when one of them is in the cited units, the list speaks of the group it leads."""
    found: set[str] = set()
    for match in _NAME_LIST.finditer(plain):
        members = re.findall(r"[A-Za-z][\w.-]*", match.group(0).removesuffix("etc"))
        members = [m for m in members if m not in ("and", "others")]
        if any(name_key(m) and name_key(m) in cited for m in members):
            found |= set(members)
    return found


def _expanded_acronym(part: str, cited: set[str], relevant: Sequence[UnitIndex]) -> bool:
    """ "NLSE" for the cited "NLS" where the paper writes "NLS equation": an acronym made of
    a cited name and the initials of the words the paper writes after it."""
    if not (part.isupper() and part.isalpha() and 3 <= len(part) <= 8):
        return False
    for split in range(2, len(part)):
        stem, rest = part[:split], part[split:]
        if name_key(stem) not in cited:
            continue
        spelled = rf"\b{stem}\b[\s-]+" + r"[\s-]+".join(rf"{c}\w*" for c in rest) + r"\b"
        pattern = re.compile(spelled, re.IGNORECASE)
        if any(pattern.search(u.text) for index in relevant for u in index):
            return True
    return False


_WORK_CITED = re.compile(r"\s*(?:et al\b|等人?(?:\s*[(（]?\s*(?:19|20)\d\d))", re.IGNORECASE)


def _label_elsewhere(
    key: str, units: Sequence[tuple[str, Unit]], indexes: Mapping[str, UnitIndex]
) -> str:
    """ "another row of Table 4" when ``key`` labels a row/column of a cited table that no
    cited cell is in."""
    for paper, unit in units:
        if unit.kind != "cell":
            continue
        table = indexes[paper].tables.get(table_key(unit.table))
        if table is None:
            continue
        for number, label in enumerate(table.row_labels, 1):
            if key and key == name_key(label.split(": ")[-1]) and number != unit.row:
                return f"row {number} of {unit.table}"
        for number, label in enumerate(table.column_labels, 1):
            parts = [name_key(part) for part in label.split(" / ")]
            if key in parts and number != unit.column:
                return f"column {number} of {unit.table}"
    return ""


# ------------------------------------------------------------------- comparisons
_SIDE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*")
_CUE_WORDS = frozenset(
    (
        "than", "lower", "higher", "greater", "larger", "smaller", "less", "more", "fewer",
        "better", "worse", "much", "far", "even", "still", "slightly",
    )
)  # fmt: skip


def _side_tokens(text: str) -> set[str]:
    """What identifies one side of a comparison across languages: its Latin names and
    words ("GPT-4o", "greeting"), folded, function words and comparison words left out."""
    tokens = set()
    for word in _SIDE_WORD.findall(text):
        lower = word.lower()
        if len(lower) >= 3 and lower not in _NAME_STOP and lower not in _CUE_WORDS:
            key = name_key(word)
            # an English plural is its singular ("the DoFs of PLS" is 「PLS 的 DoF」)
            tokens.add(key[:-1] if len(key) >= 4 and key.endswith("s") and key[-2] != "s" else key)
    return tokens


def _than_sides(text: str) -> list[tuple[int, int, set[str], set[str]]]:
    """(cue start, sign, left tokens, right tokens) of each than-comparison of ``text``."""
    found = []
    spans = _spans(text)
    for cue in _THAN.finditer(text):
        if _NEGATED.search(text[max(0, cue.start() - 6) : cue.start()]):
            continue
        start, end = next(((a, b) for a, b in spans if a <= cue.start() < b), (0, len(text)))
        sign = 1 if cue.lastgroup == "up" else -1
        left, right = _side_tokens(text[start : cue.start()]), _side_tokens(text[cue.end() : end])
        found.append((cue.start(), sign, left, right))
    return found


def _sides_findings(claim: _Claim) -> tuple[list[Finding], set[int]]:
    """ "X 的概率仍高于 GPT-4o" against the cited "… is lower than for GPT-4o": a
    than-comparison whose two sides share their names with a cited one's, in the same order
    (the same cue expected) or swapped (the opposite cue). Sides that share nothing, or
    share as much either way, are not decided here. Returns findings and the cues decided."""
    theirs = [
        found
        for _, unit in claim.units
        if unit.kind == "sentence" and not unit.quoted
        for found in _than_sides(unit.text)
    ]
    findings: list[Finding] = []
    decided: set[int] = set()
    for start, sign, left, right in _than_sides(claim.plain):
        for _, their_sign, their_left, their_right in theirs:
            same = len(left & their_left) + len(right & their_right)
            swapped = len(left & their_right) + len(right & their_left)
            if same == swapped:
                continue
            expected = their_sign if same > swapped else -their_sign
            decided.add(start)
            if expected != sign:
                matched = _THAN.match(claim.plain, start)
                cue = matched.group(0) if matched else claim.plain[start : start + 2]
                findings.append(Finding("comparison", f"“{cue}”: the cited units compare the "
                                        "same two the other way"))  # fmt: skip
            break
    return findings, decided


def _value_near(numbers: Sequence[NumberMention], name: Name, limit: int) -> NumberMention | None:
    after = [m for m in numbers if name.end <= m.start < limit]
    return after[0] if after else None


def _comparison_findings(
    claim: _Claim,
    decided: set[int] = frozenset(),  # type: ignore[assignment]
    allowed: frozenset[str] = frozenset(),
    indexes: Mapping[str, UnitIndex] | None = None,
) -> list[Finding]:
    """Each comparison of two named things, settled by its sides' located numbers
    (``sides.settle_order``: the claim's own values, else the cited tables' lines the names
    label), else by a cited sentence comparing the same two; a side no cited unit states is
    not passed."""
    findings: list[Finding] = []
    lines = claim.lines(indexes or {})
    names = names_in(claim.plain)
    for comparison in [*comparisons(claim.plain, claim.names), *_subject_comparisons(claim, names)]:
        if any(abs(comparison.cue_start - d) <= 2 for d in decided):
            continue  # its two sides were matched to a cited comparison
        left, right = comparison.left, comparison.right
        context = claim.plain + " " + " ".join(u.column_label or u.text for _, u in claim.units)
        flip = comparison.axis == "merit" and lower_is_better(context)
        claimed = comparison.sign * (-1 if flip else 1)
        order = _sides_of(claim, _with_subject(claim, comparison, names, lines))
        found = settle_order(*order, claimed, lines, _same) if order else None
        verdict = found.holds if found is not None else _order_from_sentences(claim, comparison)
        unstated = [side for side in (left, right) if _unstated_side(side, claim, allowed)]
        if verdict is None and unstated:
            findings.append(Finding("comparison", f"the cited units do not state "
                                    f"{unstated[0].text}, so cannot order it"))  # fmt: skip
        if verdict is False:
            findings.append(
                Finding("comparison", f"the cited evidence does not put {left.text} "
                        f"{'above' if comparison.sign > 0 else 'below'} {right.text}")
            )  # fmt: skip
    return findings


def _with_subject(
    claim: _Claim, comparison: Comparison, names: Sequence[Name], lines: Sequence[Line]
) -> Comparison:
    """ "OurNet 的准确率与 F1 都低于 BaseNet": a left side that labels no line of the cited
    tables (a measure) while a name before it in its clause labels one is said of that one."""
    left = comparison.left
    if not lines or labelled(left, lines):
        return comparison
    start = _break_start(claim.plain, left.start)
    before = [n for n in names if start <= n.start and n.end <= left.start and labelled(n, lines)]
    return comparison._replace(left=before[-1]) if before else comparison


def _same(claimed: NumberMention, evidence: NumberMention) -> bool:
    return supports(claimed, evidence, cell=True)


def _sides_of(claim: _Claim, comparison: Comparison) -> tuple[Side, Side] | None:
    """The two sides of a comparison with the value the claim gives each: the first number
    after each name (the first side's before the second name)."""
    left, right = comparison.left, comparison.right
    if left.start == right.start:
        return None
    ends = sorted((left.start, right.start))
    first_name, second_name = (left, right) if left.start < right.start else (right, left)
    first = _value_near(claim.numbers, first_name, ends[1])
    after = _BREAK.search(claim.plain, second_name.end)  # its value is in its own clause
    second = _value_near(claim.numbers, second_name, after.start() if after else len(claim.plain))
    if first is not None and first is second:
        second = None
    values = {id(first_name): first, id(second_name): second}
    return Side(left, values[id(left)]), Side(right, values[id(right)])


def _subject_comparisons(claim: _Claim, names: Sequence[Name]) -> list[Comparison]:
    """ "PaSa-7b 基于 Qwen2.5-7b，在同一框架里召回低于 prompt GPT-4o 的版本": a than-comparison
    whose clause names nothing before its cue is said of the sentence's subject."""
    found = []
    spans = _spans(claim.plain)
    for cue in _THAN.finditer(claim.plain):
        if _NEGATED.search(claim.plain[max(0, cue.start() - 6) : cue.start()]):
            continue
        start, end = next(((a, b) for a, b in spans if a <= cue.start() < b), (0, len(claim.plain)))
        if any(start <= n.start < cue.start() for n in names) or start == 0:
            continue
        right = next((n for n in names if cue.end() <= n.start < end), None)
        subject = clause_subject(claim.plain, start, names)
        if right is None or subject is None or name_key(subject.text) == name_key(right.text):
            continue
        if any(levels_in(claim.plain[start:end])):
            continue  # a number of its own: the order of numbers reads it
        axis: Any = "merit" if _MERIT_THAN.search(cue.group(0)) else "value"
        sign = 1 if cue.lastgroup == "up" else -1
        found.append(Comparison(subject, right, axis, sign, cue.start()))
    return found


def _order_from_sentences(claim: _Claim, comparison: Comparison) -> bool | None:
    """A cited sentence comparing the same two things: the same order and polarity, or the
    reverse order with the opposite polarity (names are looked for on each side of its cue,
    so "Google with GPT-4o" is found by "GPT-4o")."""
    a_key, b_key = name_key(comparison.left.text), name_key(comparison.right.text)
    for _, unit in claim.units:
        if unit.kind != "sentence":
            continue
        for found in comparisons(unit.text, names_in(unit.text)):
            left, right = name_key(found.left_side), name_key(found.right_side)
            metric = metric_direction(f"{claim.plain} {unit.text}")
            if found.axis == comparison.axis:
                mine, theirs = comparison.sign, found.sign
            else:
                mine = on_value_axis(Direction(comparison.axis, comparison.sign), metric)
                theirs = on_value_axis(Direction(found.axis, found.sign), metric)
                if not (mine and theirs):
                    continue
            same = a_key in left and b_key in right
            swapped = a_key in right and b_key in left
            if same and not swapped:
                return mine == theirs
            if swapped and not same:
                return mine != theirs
    return None


def _match(a: str, b: str) -> bool:
    return bool(a and b) and (a == b or (len(a) >= 4 and a in b) or (len(b) >= 4 and b in a))


# ------------------------------------------------------------------- orders and polarity
# "A 高于 B" said of two numbers: the cue between them says which is larger.
_THAN = re.compile(
    r"(?P<up>高于|大于|多于|超过|优于|好于|胜过|强于|快于|陡于|长于|领先于?|"
    r"\b(?:higher|greater|larger|more|better|faster|steeper|longer|stronger) than|"
    r"\bexceed(?:s|ed|ing)?\b|\boutperform\w*|\bbeat(?:s|ing)?\b|\bsurpass\w*)"
    r"|(?P<down>低于|小于|少于|不如|不及|劣于|差于|逊于|弱于|慢于|短于|落后于?|"
    r"\b(?:lower|smaller|less|fewer|worse|slower|shorter|weaker) than|\bunderperform\w*|"
    r"\btrail(?:s|ed|ing)?\b)",
    re.IGNORECASE,
)
_MERIT_THAN = re.compile(r"优于|好于|胜过|强于|不如|劣于|差于|逊于|领先|落后|better|worse|"
                         r"outperform|underperform|beat|surpass|trail", re.IGNORECASE)  # fmt: skip
_BOUND_THAN = re.compile(r"大于|小于|多于|少于|超过|more|less|fewer|greater", re.IGNORECASE)
_BREAK = CLAUSE_BREAK


def _break_start(plain: str, position: int) -> int:
    """Where the comma clause holding ``position`` starts (brackets do not end it)."""
    return max((m.end() for m in _BREAK.finditer(plain, 0, position)), default=0)


def _spans(plain: str) -> list[tuple[int, int]]:
    edges = [0, *(m.end() for m in _BREAK.finditer(plain)), len(plain)]
    return list(itertools.pairwise(edges))


def _levels_of(plain: str) -> list[NumberMention]:
    """The numbers an order may compare: levels, and spreads ("标准差 0.08 大于行为的 0.01")."""
    return [m for m in _as_spreads(plain, find_numbers(plain))
            if m.kind in ("value", "error") and not m.in_name]  # fmt: skip


def _number_after_name(plain: str, name: Name, names: Sequence[Name],
                       levels: Sequence[NumberMention]) -> NumberMention | None:  # fmt: skip
    """The number the claim gives ``name`` elsewhere ("未微调 GPT-4o 0.69 | …，高于未微调
    GPT-4o": the 0.69)."""
    key = name_key(name.text)
    for other in names:
        if other is name or name_key(other.text) != key:
            continue
        after = next((m for m in levels if other.end <= m.start <= other.end + 3), None)
        if after is not None:
            return after
    return None


def _unstated_side(name: Name, claim: _Claim, allowed: frozenset[str]) -> bool:
    """Whether the other side of a comparison is a name the cited units never state (text,
    context, labels): then they give nothing to compare against ("精度 0.95，高于 GPT-4o"
    citing only the sentence with the 0.95). The paper's own and the reader's names are
    exempt: the paper calls itself "we"."""
    key = name_key(name.text)
    if not key or key in allowed or key in KIND_TERMS:
        return False
    return not any(key in _unit_keys(unit) for _, unit in claim.units)


def _context(claim: _Claim) -> str:
    """Where a metric's better side is read: the claim and its cited labels or sentences."""
    return claim.plain + " " + " ".join(u.column_label or u.text for _, u in claim.units)


def _ordered_numbers(
    claim: _Claim,
    names: Sequence[Name],
    indexes: Mapping[str, UnitIndex] | None = None,
    allowed: frozenset[str] = frozenset(),
) -> tuple[list[Finding], set[int]]:
    """A than-comparison between two of the claim's own numbers ("精度 0.95 还略高于 GPT-4o
    的 0.96", "左侧 α=0.638，陡于右侧 α=0.694"): the larger must be the one said to be higher.
    Returns the findings and the cue positions it decided."""
    plain = claim.plain
    indexes = indexes or {}
    levels = _levels_of(plain)
    spans = _spans(plain)
    findings: list[Finding] = []
    decided: set[int] = set()
    for cue in _THAN.finditer(plain):
        if _NEGATED.search(plain[max(0, cue.start() - 6) : cue.start()]):
            continue
        index = next(i for i, (a, b) in enumerate(spans) if a <= cue.start() < b)
        start, end = spans[index]
        before = [m for m in levels if start <= m.start < cue.start()]
        if not before and index and len(plain[start : cue.start()].strip()) <= 3:
            previous = spans[index - 1]
            before = [m for m in levels if previous[0] <= m.start < previous[1]]
        after = [m for m in levels if cue.end() <= m.start < end]
        right = after[0] if after else None
        bound = right is not None and not plain[cue.end() : right.start].strip()
        if bound and _BOUND_THAN.search(cue.group(0)):
            continue  # "超过 1,000", "more than 3": a bound, not a comparison
        if right is None:
            name = next((n for n in names if cue.end() <= n.start < end), None)
            right = _number_after_name(plain, name, names, levels) if name else None
            values = [m for m in before if m.kind == "value"]
            if right is None and name is not None and values:
                # the value a cited table gives the name beside the claim's ("0.40，略高于未微调
                # 的 GPT-4o": the GPT-4o column of the 0.40's row)
                sign = 1 if cue.lastgroup == "up" else -1
                if _MERIT_THAN.search(cue.group(0)) and lower_is_better(_context(claim)):
                    sign = -sign
                lines = claim.lines(indexes)
                found = settle_order(Side(None, values[-1]), Side(name, None), sign, lines, _same)
                if found is not None:
                    decided.add(cue.start())
                    if not found.holds:
                        side = "above" if sign > 0 else "below"
                        findings.append(Finding("comparison", f"{values[-1].text} is not {side} "
                                                f"{name.text} ({found.why})"))  # fmt: skip
                    continue
            if (
                right is None
                and name is not None
                and values
                and _unstated_side(name, claim, allowed)
            ):
                decided.add(cue.start())
                why = f"the cited units state no value of {name.text} to compare with"
                findings.append(Finding("comparison", f"{why} {values[-1].text}"))
                continue
        if right is None:
            continue
        before = [m for m in before if m.kind == right.kind]  # a spread against a spread
        if not before:
            continue
        left = before[-1]
        if left is right or left.unit != right.unit:
            continue
        if _is_count(plain, left) != _is_count(plain, right):
            continue  # "两组 … 小于 0.14": a count is no level to order against a value
        a, b = left.value * left.scale, right.value * right.scale
        a, b = -a if left.negative else a, -b if right.negative else b
        if a == b:
            continue
        sign = 1 if cue.lastgroup == "up" else -1
        if _MERIT_THAN.search(cue.group(0)):
            sign = -sign if lower_is_better(_context(claim)) else sign
        decided.add(cue.start())
        if (a > b) != (sign > 0):
            side = "above" if sign > 0 else "below"
            findings.append(Finding("comparison", f"{left.text} is not {side} {right.text}"))
    return findings, decided


_BOUND_WORD = re.compile(r"不到|不及|超过|大于|小于|多于|少于|more|less|fewer|up|down",
                         re.IGNORECASE)  # fmt: skip
_NEGATED = re.compile(r"(?:不|没有|没|未|并非|not|never|n't)\s*$", re.IGNORECASE)


def _moves_findings(claim: _Claim, indexes: Mapping[str, UnitIndex]) -> list[Finding]:
    """Each move the claim states ("精度从 0.5146 升到 0.6738", "升至 0.40"), settled by its
    levels and the cited tables' lines (``sides.settle_move``), and the level it arrives at
    in the row of the subject it is said of (``sides.settle_subject_row``)."""
    lines = claim.lines(indexes)
    names = names_in(claim.plain)
    said = moves(claim.plain, claim.levels)
    together = settle_conditions(said, lines, _same)
    findings = [Finding("name", together.why)] if together is not None else []
    for move in said:
        for found in (
            settle_move(move, lines, claim.numbers, _same),
            settle_move_in_prose(move, claim.units, _same),
            settle_subject_row(claim.plain, move, names, lines, _same),
        ):
            if found is not None and not found.holds:
                check = "name" if "row of" in found.why else "direction"
                findings.append(Finding(check, found.why))
                break
    return findings


def _polarity_findings(
    claim: _Claim, names: Sequence[Name], compared: Sequence[Comparison], decided: set[int]
) -> list[Finding]:
    """A direction the claim states in words, of no number of its own ("振幅幂律增长", "周期
    缩短", "与实际风险行为负相关", "不如基线"), against the cited sentences' own cues: when
    they speak on that axis only the other way, the claim reverses them. A merit cue of a
    metric whose better side is unknown constrains no value direction (and the reverse)."""
    plain = claim.plain
    numbers = find_numbers(plain)
    named = {c.cue_start for c in compared}
    evidence: set[tuple[str, int]] = set()
    for _, unit in claim.units:
        if unit.kind != "sentence" or unit.quoted:
            continue
        for start, end, axis, sign in cues(unit.text):
            evidence |= _readings(unit.text, start, end, axis, sign, lenient=True)
    findings: list[Finding] = []
    for start, end, axis, sign in cues(plain):
        if start in named or start in decided or any(n.start <= start < n.end for n in names):
            continue
        if _BOUND_WORD.fullmatch(plain[start:end]):
            continue  # "看不到", "超过" of no number: no direction of a quantity
        if any(_tied(plain, start, end, m) for m in numbers):
            continue  # the number's own direction: the quantity check reads it
        mine = _readings(plain, start, end, axis, sign, lenient=False)
        axes = {a for a, _ in mine}
        if any(a in axes for a, _ in evidence) and not mine & evidence:
            findings.append(Finding("direction", f"“{plain[start:end]}”: the cited units say the "
                                    "opposite"))  # fmt: skip
    return findings


_CORRELATION_WORD = re.compile(r"correlat|相关", re.IGNORECASE)


def _correlation_sign_findings(claim: _Claim) -> list[Finding]:
    """ "Figure 4 的负相关" citing a sentence about "the correlation found in Figure 4": a
    correlation's sign the claim states must be located in a cited unit; where the cited
    units speak of the correlation and none says which way, the sign is the claim's own."""
    signed_here = [(s, e) for s, e, axis, _ in cues(claim.plain) if axis == "correlation"]
    sentences = [u.text for _, u in claim.units if u.kind == "sentence" and not u.quoted]
    if not signed_here or not any(_CORRELATION_WORD.search(text) for text in sentences):
        return []
    if any(axis == "correlation" for text in sentences for _, _, axis, _ in cues(text)):
        return []  # a cited sign: the polarity check compares it
    start, end = signed_here[0]
    return [Finding("direction", f"“{claim.plain[start:end]}”: the cited units state the "
                    "correlation, not its sign")]  # fmt: skip


def _readings(
    text: str, start: int, end: int, axis: str, sign: int, *, lenient: bool
) -> set[tuple[str, int]]:
    """What a cue says, on its own axis and, where the metric around it says which way is
    better ("降低错误率" is a merit gain), on the other. Evidence is read ``lenient``ly: a
    merit cue of a metric whose better side is unknown may be either value direction."""
    found = {(axis, sign)}
    if axis == "correlation":
        return found
    metric = metric_direction(text[max(0, start - 16) : end + 16])
    other = "merit" if axis == "value" else "value"
    if metric:
        found.add((other, sign * metric))
    elif lenient and axis == "merit":
        found |= {(other, 1), (other, -1)}
    return found


def _tied(plain: str, start: int, end: int, number: NumberMention) -> bool:
    """Whether the cue at [start, end) gives ``number`` its direction (it sits right before
    the number in its clause, or right after it)."""
    if end <= number.start <= end + 14:
        return not _BREAK.search(plain[end : number.start])
    return number.end <= start <= number.end + 6 and not _BREAK.search(plain[number.end : start])


def _trailing_findings(claim: _Claim) -> list[Finding]:
    """A comparative with no named object ("23.24 略低", "α=0.638（衰减更陡）"), against the
    one value it can be set against (``sides.comparatives``); counts are no levels."""
    plain = claim.plain
    levels = [m for m in _levels_of(plain) if m.kind == "value" and m.pair is None]
    levels = [m for m in levels if not _is_count(plain, m)]
    findings = []
    for said in comparatives(plain, levels, names_in(plain)):
        if said.reference is None or said.subject.value is None or said.reference.value is None:
            continue
        value, other = said.subject.value, said.reference.value
        found = settle_order(said.subject, said.reference, said.sign, [], _same)
        if found is not None and not found.holds:
            side = "above" if said.sign > 0 else "below"
            findings.append(Finding("comparison", f"{value.text} is not {side} {other.text} "
                                    f"(“{said.cue}”)"))  # fmt: skip
    return findings


def _pair_findings(claim: _Claim, indexes: Mapping[str, UnitIndex]) -> list[Finding]:
    """A results row's baseline and ours are one measure of two things: one column (or row)
    of a cited table (``sides.settle_pair``); a comment on one of its measures ("精度也更高")
    is ours against the baseline there (``sides.commented_rows``)."""
    if claim.plain.count(" | ") < 3:
        return []
    lines = claim.lines(indexes)
    levels = [m for m in claim.numbers if m.kind == "value" and m.pair is None]
    findings = []
    for first, second in paired_rows(claim.plain, names_in(claim.plain), levels):
        found = settle_pair(first, second, lines, _same)
        if found is not None and not found.holds:
            findings.append(Finding("name", found.why))
    for said in commented_rows(claim.plain, levels):
        if said.reference is None:
            continue
        found = settle_order(said.subject, said.reference, said.sign, lines, _same)
        if found is not None and not found.holds:
            findings.append(Finding("comparison", f"“{said.cue}”: {found.why}"))
    return findings


def _segments(plain: str) -> list[tuple[int, int]]:
    """What a claim says of one thing: a results row's cells, else its comma clauses; the
    items of a list, a pair or a bracket ("0.14/0.14、0.84/0.88", "分别为 0.84 和 0.88") apart."""
    items = r"、|；|[（）()/]|和|与|及|分别|\band\b|\bvs\.?|对"
    cut = rf" \| |{items}" if " | " in plain else rf"{items}|[，;。!?！？\n]|,(?!\d{{3}})"
    # an interval's comma ("[-20,-5.1]") is inside one thing
    masked = re.sub(r"\[[^\[\]]{0,40}\]", lambda m: "_" * len(m.group(0)), plain)
    edges = [0]
    for match in re.finditer(cut, masked):
        edges += [match.start(), match.end()]
    edges.append(len(plain))
    return [(edges[i], edges[i + 1]) for i in range(0, len(edges) - 1, 2)]


def _same_row_findings(claim: _Claim) -> list[Finding]:
    """ "k∈[-20,-5.1]：β=1.038" citing the cell of [-20,-5.1] in row 4 and the β=1.038 of
    row 7: numbers said together of one thing, each found only in cells of one cited table,
    must come from one row or one column of it."""
    findings: list[Finding] = []
    cells = [u for _, u in claim.units if u.kind == "cell"]
    if len(cells) < 2:
        return findings
    for start, end in _segments(claim.plain):
        places: list[set[tuple[str, int, int]]] = []
        for number in claim.numbers:
            if not start <= number.start < end:
                continue
            found = {
                (u.table, u.row, u.column)
                for u in cells
                for m in u.mentions[: u.own if u.own >= 0 else None]
                if supports(number, m, cell=True)
            }
            if found:
                places.append(found)
        tables = {t for found in places for t, _, _ in found}
        if len(places) < 2 or len(tables) != 1:
            continue
        rows = set.intersection(*({r for _, r, _ in found} for found in places))
        columns = set.intersection(*({c for _, _, c in found} for found in places))
        if not rows and not columns:
            said = claim.plain[start:end].strip()[:40]
            why = f"“{said}” joins values of different rows and columns of {tables.pop()}"
            findings.append(Finding("name", why))
    return findings


# a formula with an exponent: "C|k+3|^(-α)", "De^(-β|k+3|)"
_FORMULA = re.compile(r"[A-Za-zΑ-Ωα-ω|\\][^\s，,。；;、]*\^\([^()\s]{1,20}\)")


def _formula_findings(claim: _Claim) -> list[Finding]:
    """ "C|k+3|^(α)" for the cited "Sₖ=C|k+3|^(-α)": a formula the claim writes that a cited
    unit writes only with the exponent's sign the other way (a decay turned into growth)."""
    cited = [fold_formula(re.sub(r"\\([|\[\]])", r"\1", u.text)) for _, u in claim.units]
    findings = []
    for match in _FORMULA.finditer(claim.plain):
        mine = fold_formula(re.sub(r"\\([|\[\]])", r"\1", match.group(0)))
        if any(mine in text for text in cited):
            continue
        flipped = re.sub(r"\^\((-?)", lambda m: "^(" + ("" if m.group(1) else "-"), mine)
        if any(flipped in text for text in cited):
            findings.append(Finding("direction", f"{match.group(0)}: the cited units write the "
                                    "exponent with the other sign"))  # fmt: skip
    return findings


# ------------------------------------------------------------------- superlatives
# a superlative and its opposite: "最短" where the cited sentence says "the longest"
_SUPERLATIVES = (
    (r"最长|\blongest\b", r"最短|\bshortest\b"),
    (r"最高|\bhighest\b", r"最低|\blowest\b"),
    (r"最大|\blargest\b|\bbiggest\b", r"最小|\bsmallest\b"),
    (r"最多", r"最少|\bfewest\b"),
    (r"最好|最优|最佳|\bbest\b", r"最差|\bworst\b"),
    (r"最快|\bfastest\b", r"最慢|\bslowest\b"),
    (r"最强|\bstrongest\b", r"最弱|\bweakest\b"),
)
_SUPERLATIVE_RE = tuple((re.compile(a, re.I), re.compile(b, re.I)) for a, b in _SUPERLATIVES)


def _superlative_findings(claim: _Claim) -> list[Finding]:
    """ "PRIMERA 416.3（各模型中最短）" against the cited "PRIMERA produces the longest
    summaries": a superlative said in the clause of a name where a cited sentence naming it
    says only the opposite one."""
    findings = []
    names = names_in(claim.plain)
    for said_pattern, opposite_pattern in [*_SUPERLATIVE_RE, *((b, a) for a, b in _SUPERLATIVE_RE)]:
        for said in said_pattern.finditer(claim.plain):
            if _NEGATED.search(claim.plain[max(0, said.start() - 4) : said.start()]):
                continue
            start = _break_start(claim.plain, said.start())
            after = _BREAK.search(claim.plain, said.end())
            end = after.start() if after else len(claim.plain)
            keys = {name_key(n.text) for n in names if start <= n.start < end}
            for _, unit in claim.units:
                if unit.kind != "sentence" or said_pattern.search(unit.text):
                    continue
                opposite = opposite_pattern.search(unit.text)
                if opposite and any(k and k in name_key(unit.text) for k in keys):
                    findings.append(Finding("direction", f"“{said.group(0)}”: the cited "
                                            f"{unit.id} says “{opposite.group(0)}”"))  # fmt: skip
                    break
    return findings


# ------------------------------------------------------------------- dimensionality
# "一维 NLSE" / "one-dimensional", "2D": a number of dimensions, which the number grammar
# leaves alone (三维 is mostly a word); checked where the cited units state one.
_CLAIM_DIMENSION = re.compile(r"(?<![\d+])(?P<n>[一二两三四1-4])\s?维(?!度|持|护)")
_UNIT_DIMENSION = re.compile(
    r"\b(?P<word>one|two|three|four|[1-4])[- ]dimensional\b|\b(?P<short>[1-4])-?D\b", re.IGNORECASE
)
_DIMENSIONS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "one": 1, "two": 2, "three": 3,
               "four": 4}  # fmt: skip


def _dimension_findings(claim: _Claim) -> list[Finding]:
    stated = {
        _DIMENSIONS.get(raw.lower()) or int(raw)
        for _, unit in claim.units
        for match in _UNIT_DIMENSION.finditer(unit.text)
        for raw in [match.group("word") or match.group("short")]
    }
    findings = []
    for match in _CLAIM_DIMENSION.finditer(claim.plain):
        raw = match.group("n")
        value = _DIMENSIONS.get(raw) or int(raw)
        if stated and value not in stated:
            said = "/".join(str(d) for d in sorted(stated))
            findings.append(Finding("quantity", f"{match.group(0)}: the cited units say {said}-D"))
    return findings


# ------------------------------------------------------------------- one claim
Options = list[tuple[str, Unit, NumberMention]]


def _computed(
    number: NumberMention, plain: str, units: Sequence[tuple[str, Unit]]
) -> tuple[str, Direction | None] | None:
    """The two cited levels ``number`` is computed from, when it says it is a change, a
    ratio or a share of something ("不到安全代码模型的一半"); a level such as "k=-2" is never
    a difference of two other numbers."""
    allowed = computations(plain, number)
    relative = "relative" in allowed and bool(
        RELATIVE_WORD.search(plain[max(0, number.start - 8) : number.start])
    )
    within = number.bound == "under" and "difference" in allowed  # "相差在 0.04 以内"
    if not (
        is_change(plain, number)
        or number.unit == "x"
        or _assigned(plain, number)
        or relative
        or within
    ):
        of = re.search(
            r"(?:的|\bof)\s*[约近~≈]?\s*$", plain[max(0, number.start - 6) : number.start]
        )
        if "share" not in allowed or of is None:
            return None
        allowed = ("share",)
    found = derived(number, units, allowed)
    if found is None and "relative" in allowed:
        found = relative_to_base(number, units)
    return found


def _assign(
    candidates: list[tuple[NumberMention, Options]],
    plain: str,
    units: Sequence[tuple[str, Unit]],
    support: list[tuple[str, str, str]],
) -> list[NumberMention]:
    """``assign``, where a number the cited values also give as a difference or ratio may
    rest on that computation and leave a stated number to the claim that states it ("差值
    0.3778 正对应 37.78%": the 0.3778 is computed, the 37.78% is the paper's)."""
    found: list[tuple[str, str, str]] = []
    left = assign(candidates, found)
    if left:
        computed = {id(n): _computed(n, plain, units) for n, _ in candidates}
        rest = [(n, options) for n, options in candidates if computed[id(n)] is None]
        trial: list[tuple[str, str, str]] = []
        still = assign(rest, trial)
        if len(rest) < len(candidates) and len(still) < len(left):
            for number, _ in candidates:
                result = computed[id(number)]
                if result is not None:
                    where = next(p for p, u in units if u.id == result[0])
                    trial.append((number.text, where, result[0]))
            found, left = trial, still
    support += found
    return left


def _typed_against_levels(plain: str, numbers: Sequence[NumberMention]) -> list[Finding]:
    """ "0.5798，比 0.2020 相对提升 37.78%": a change the claim calls relative (or absolute)
    must be that computation of the two levels the claim itself states."""
    findings = []
    for number in numbers:
        typed = typing_word(plain, number)
        if not typed:
            continue
        # the levels it is computed from: before it (in a results row, the cells before it)
        levels = [
            m
            for m in numbers
            if m.start < number.start
            and m.value != number.value
            and not is_change(plain, m)
            and not _assigned(plain, m)  # a signed number is a change
            and m.kind == "value"
            and m.pair is None
        ]
        pairs = [
            (a, b)
            for a, b in itertools.combinations(levels, 2)
            if a.unit == b.unit and a.dimension == b.dimension
        ]
        allowed = computations(plain, number)
        # an absolute change written with "%" is a difference in points of the two levels
        said = replace(number, unit="pp") if typed == "absolute" and number.unit == "%" else number
        if pairs and not any(derives(said, a.value, b.value, a.unit, allowed) for a, b in pairs):
            kind = "relative" if "relative" in allowed else "absolute"
            findings.append(Finding("quantity", f"{number.text} is not the {kind} change of "
                                    "the levels the claim states"))  # fmt: skip
    return findings + _ratio_against_levels(plain, numbers)


def _ratio_against_levels(plain: str, numbers: Sequence[NumberMention]) -> list[Finding]:
    """ "动作数翻了两番（382.4 → 785.5）": a factor said with the two levels it relates, in its
    clause (brackets included), must be their ratio."""
    findings = []
    for number in numbers:
        if number.unit != "x" or number.bound:
            continue
        start = _break_start(plain, number.start)
        after = _BREAK.search(plain, number.end)
        end = after.start() if after else len(plain)
        levels = [
            m for m in numbers
            if start <= m.start < end and m is not number and m.kind == "value"
            and m.pair is None and not m.unit and not _assigned(plain, m) and m.value > 0
        ]  # fmt: skip
        if len(levels) != 2:
            continue
        low, high = sorted(m.value * m.scale for m in levels)
        if not derives(number, low, high, "", ("ratio",)):
            findings.append(Finding("quantity", f"{number.text} is not the ratio of "
                                    f"{levels[0].text} and {levels[1].text}"))  # fmt: skip
    return findings


_SOURCE = re.compile(
    r"\b(?P<kind>Figure|Fig\.|Table|Tab\.)\s*(?P<n>\d+)|(?P<cn>[图表])\s*(?P<m>\d+)",
    re.IGNORECASE,
)


def _named_source(plain: str, number: NumberMention) -> str:
    """The figure or table the claim says ``number`` comes from ("Figure 10 图注写 … C=…",
    "正文和 Table 1 写 8.189×10⁻⁴"): the last one named in the number's clause before it, as
    a unit's location spells it ("Figure 10", "Table 1"); "" when none is named."""
    edge = max((m.end() for m in _BREAK.finditer(plain[: number.start])), default=0)
    named = list(_SOURCE.finditer(plain[edge : number.start]))
    if not named:
        return ""
    last = named[-1]
    if last.group("cn"):
        return f"{'Figure' if last.group('cn') == '图' else 'Table'} {last.group('m')}"
    kind = "Figure" if last.group("kind").lower().startswith("fig") else "Table"
    return f"{kind} {last.group('n')}"


_OTHER_UNIT = {"%": "pp", "pp": "%"}


_COUNTED_NAME = re.compile(
    r"^\s?[个篇项种类次条名位组轮步层份例场套款家所人道题张幅段处]?\s?([A-Za-z][A-Za-z0-9-]+)"
)


_LINKING_WORDS = "on|of|in|for|across|with|over|from|per|at|by|and|or|to|than|vs|versus|between"


def _count_of_named(plain: str, number: NumberMention, units: Sequence[tuple[str, Unit]]) -> str:
    """ "两个 SDS 任务" where a cited unit says "three … (SDS) tasks": a count of a named thing
    must be the count the cited units give right before that name; "" when they give none,
    or give this one."""
    if number.unit or number.pair is not None or number.decimals or not _counts(plain, number):
        return ""
    named = _COUNTED_NAME.match(plain[number.end : number.end + 12])
    if named is None:
        return ""
    # the number counts the name only through modifiers: no other number, no preposition or
    # conjunction between them ("5 seeds on both SDS tasks" counts seeds, not tasks)
    near = re.compile(
        rf"^(?:(?!\b(?:{_LINKING_WORDS})\b)[^.;:!?\d]){{0,60}}?\b{re.escape(named.group(1))}\b",
        re.IGNORECASE,
    )
    given = {
        m.value
        for _, unit in units
        for m in unit.evidence
        if not m.unit and not m.decimals and m.pair is None and near.match(unit.text[m.end :])
    }
    if not given or number.value in given:
        return ""
    said = "/".join(f"{v:g}" for v in sorted(given))
    return f"{number.text} {named.group(1)}: the cited units count {said}"


def _computed_from(
    number: NumberMention,
    plain: str,
    units: Sequence[tuple[str, Unit]],
    numbers: Sequence[NumberMention],
) -> bool:
    """Whether ``number`` is computed from two levels: the two its clause states when it
    states two ("19.91 → 35.62 | +15.71 个百分点"), else two the cited units state; the
    number as written, never a bound (an approximation or a bound would admit any pair of a
    table's many values)."""
    if number.bound:
        return False  # two levels give a value; "20 个百分点以上" restates a stated bound
    exact = replace(number, approx=False)
    allowed = computations(plain, number)
    pairs = _own_levels(number, plain, numbers)
    if pairs:
        return any(derives(exact, a.value, b.value, a.unit, allowed) for a, b in pairs)
    return derived(exact, units, allowed) is not None


def _own_levels(
    number: NumberMention, plain: str, numbers: Sequence[NumberMention]
) -> list[tuple[NumberMention, NumberMention]]:
    """The pairs of levels the claim states before ``number`` in its clause (a results row:
    in the cells before it), of one unit: what a change it states is computed from."""
    start = 0 if " | " in plain else _break_start(plain, number.start)
    own = [
        m for m in numbers
        if m is not number and m.kind == "value" and m.pair is None
        and start <= m.start < number.start
        and not is_change(plain, m) and not _assigned(plain, m) and m.unit in ("", "%")
    ]  # fmt: skip
    return [(a, b) for a, b in itertools.combinations(own, 2) if a.unit == b.unit]


def _stated_in_other_unit(
    number: NumberMention,
    matched: Options,
    plain: str,
    units: Sequence[tuple[str, Unit]],
    numbers: Sequence[NumberMention] = (),
) -> str:
    """Points written as percent or percent as points, where a cited unit says which: "提高
    1.11%" for the paper's "1.11 percentage points" (a fraction cell 0.0111 would read as
    either). Not when no cited unit states the value in the other unit, when one states it
    in the claim's own unit, or when the claim's reading is computed from two cited levels
    (the paper's "4.5%" gain of two accuracies is 4.5 points)."""
    other = _OTHER_UNIT.get(number.unit)
    if other is None or any(m[2].unit == number.unit for m in matched):
        return ""
    as_other = replace(number, unit=other)
    stated = any(
        m.unit == other and supports(as_other, m, cell=unit.kind == "cell")
        for _, unit in units
        for m in unit.evidence
    )
    if not stated or _computed_from(number, plain, units, numbers):
        return ""
    return "percentage points" if other == "pp" else "percent"


_GLUED_TERM = re.compile(r"\d+(?:\.\d+)?-?[A-Za-z]+")


def _papers_term(
    number: NumberMention, units: Sequence[tuple[str, Unit]], sources: Sources
) -> bool:
    """ "7B 论文检索 agent" of the paper's "PaSa-7b", "5-fold" of its "5-fold cross-validation":
    a number glued to a word that the paper writes as that same term of a name is the name
    of its model or setup, not a result (a term the paper never writes, "13B", "10-fold",
    or writes only as a quantity, "35k queries", is checked as any number)."""
    written = number.text.replace(" ", "")
    if not _GLUED_TERM.fullmatch(written):
        return False
    # A hyphenated compound ("5-fold", "3-shot", "8-bit") names a setup wherever the paper
    # writes it; a number with a bare suffix ("7B", "35k", "3x") is a quantity unless the
    # paper writes it glued to a name on its left ("PaSa-7b", "Qwen2.5-7B").
    before = r"(?:^|[^\w.]|[-_])" if "-" in written else r"[A-Za-z][\w.]*[-_]"
    term = re.compile(rf"{before}{re.escape(written)}(?!\w)", re.IGNORECASE)
    indexes = [sources.papers[p] for p in {p for p, _ in units} if p in sources.papers]
    return any(term.search(u.text) for index in indexes for u in index)


_BRACKET_GAP = re.compile(
    r"^\s*(?:以上|以下|以内|左右)?\s*[（(]\s*(?:约|近|即|≈|~|=|about|i\.e\.,?)?\s*$"
)
_CLAUSE_GAP = re.compile(r"^\s*(?:倍|times|x)?\s*[，,]\s*(?:即|也就是|也就是说)?\s*$")
_EVERY_BOUND = re.compile(r"[（(]\s*(?:均|都|皆|全部|all|both)\s*$", re.IGNORECASE)


def _restates_neighbour(
    plain: str, number: NumberMention, numbers: Sequence[NumberMention]
) -> bool:
    """A number in brackets right after another of the claim that says the same quantity
    another way ("R=2/7（约 0.29）", "八成以上（0.82）", "0.5（50%）"): the other carries the
    claim's evidence; this one only has to agree with it (a bound: lie on its side)."""
    every = _EVERY_BOUND.search(plain[max(0, number.start - 12) : number.start])
    if number.bound and every:  # "0.84 和 0.88（均超过八成）": a bound on each number before it
        edge = _clause_start(plain, max(0, number.start - 12 + every.start()))
        before = [n for n in numbers if n.end <= number.start and n.start >= edge and not n.bound]
        limit = plain_value(number)
        return bool(before) and all(
            plain_value(n) >= limit if number.bound == "over" else plain_value(n) <= limit
            for n in before
        )
    for other in numbers:
        if (
            other is number
            or other.end > number.start
            or (other.kind == "ratio" and not other.pair)
        ):
            continue
        end = other.end
        if other.pair is not None:  # "2/7": the pair's mention ends before its denominator
            tail = re.match(r"\s*/\s*\d+", plain[end:])
            end += tail.end() if tail else 0
        gap = plain[end : number.start]
        if not (_BRACKET_GAP.match(gap) or number.bound and _CLAUSE_GAP.match(gap)):
            continue
        a, b = plain_value(other), plain_value(number)
        if other.bound or number.bound:  # a bound may also follow in the next clause
            bound, value = (other, b) if other.bound else (number, a)
            limit = plain_value(bound)
            return value >= limit if bound.bound == "over" else value <= limit
        half = 0.5 * 10 ** (-number.decimals) * (0.01 if number.unit in ("%", "pp") else 1)
        return abs(a - b) <= max(half, 0.02 * abs(a)) + 1e-12
    return False


_SETTING = re.compile(r"(?<![\w.])(?P<symbol>[A-Za-z][A-Za-z0-9_]{0,3})\s*[=＝]\s*$")
_INTERVAL = re.compile(
    r"(?P<interval>[\[(]\s*[-−+]?\d+(?:\.\d+)?\s*,\s*[-−+]?\d+(?:\.\d+)?\s*[\])])"
)
_SETTING_UNITS = 3  # a symbol's value the paper states this often is its setup


def _settings_stated(
    plain: str, numbers: Sequence[NumberMention], indexes: Sequence[UnitIndex]
) -> set[int]:
    """The claim's numbers that restate the paper's setup, whatever the claim cites: a
    symbol's value the paper states in several units ("k=-3", the carrier of every run), or
    an interval the paper states exactly ("k∈[-3.5,-2.5]", a region it fits). A changed
    value is no longer the paper's, so it is checked as any number is."""
    if not indexes:
        return set()
    found: set[int] = set()
    texts = [fold_formula(u.text) for index in indexes for u in index]
    for interval in _INTERVAL.finditer(plain):
        inside = [n for n in numbers if interval.start() <= n.start < interval.end()]
        folded = fold_formula(interval.group("interval"))
        if len(inside) == 2 and any(folded in text for text in texts):
            found |= {id(n) for n in inside}
    for number in numbers:
        setting = _SETTING.search(plain[max(0, number.start - 8) : number.start])
        if setting is None or number.pair is not None or number.unit:
            continue
        stated = fold_formula(f"{setting.group('symbol')}={number.text}")
        pattern = re.compile(rf"(?<![\w.]){re.escape(stated)}(?![\d.])")
        if sum(1 for text in texts if pattern.search(text)) >= _SETTING_UNITS:
            found.add(id(number))
    return found


def _grid_row_finding(
    claim: _Claim, number: NumberMention, options: Options, lines: Sequence[Line]
) -> Finding | None:
    """ "LED-16384 24.13" where the flattened table (``grid``) has 24.13 only in the row of
    LED-4096: the value a claim gives a named row must be in that row (``sides.settle_row``).
    The name is the last row label the claim says before the number, in its clause or (in a
    results row) in an earlier cell that states no number itself; a move's level of
    departure is the reference's, not the name's ("去掉 X 后从 a 降到 b": a is the full
    model's). Not decided when a supporting value is outside a flattened table."""
    plain = claim.plain
    sources = {unit.id for _, unit, _ in options}
    flattened = {line.source for line in lines}
    if any(unit.kind != "sentence" or unit.id not in flattened for _, unit, _ in options):
        return None
    departures = [m.reference.value for m in moves(plain, claim.levels) if m.reference]
    if any(d is not None and d.start == number.start for d in departures):
        return None
    lines = [line for line in lines if line.source in sources]
    own = _clause_start(plain, number.start)

    def speaks_of_it(name: Name) -> bool:  # its clause, or a number-free cell before it
        if name.start >= own:
            return True
        if " | " not in plain:
            return False
        cell_start = plain.rfind(" | ", 0, name.start) + 1
        cell_end = plain.find(" | ", name.start)
        cell = plain[cell_start : cell_end if cell_end >= 0 else len(plain)]
        return not any(m.kind == "value" and not m.in_name for m in find_numbers(cell))

    said = [
        n
        for n in names_in(plain)
        if n.end <= number.start
        and len(name_key(n.text)) >= 3
        and any(line.axis == "row" for line in labelled(n, lines))
        and speaks_of_it(n)
    ]
    found = settle_row(number, said[-1], lines, _same) if said else None
    return Finding("name", found.why) if found is not None and not found.holds else None


def _quantity_findings(
    claim: _Claim, compared: Sequence[Comparison], support: list[tuple[str, str, str]],
    paper: str, sources: Sources,
) -> list[Finding]:  # fmt: skip
    """Each claimed number against the cited units: stated (one evidence number each, a
    change by a change), computed from two cited levels, or a count the digest makes."""
    plain, units = claim.plain, claim.units
    findings: list[Finding] = []
    candidates: list[tuple[NumberMention, Options]] = []
    settings = _settings_stated(plain, claim.numbers, [sources.papers[p] for p in
                                {p for p, _ in units} if p in sources.papers])  # fmt: skip
    # a symbol the cited sentence uses may be bound in the sentence before it ("G₀=5/2. …
    # b₁≈2G₀ … coincide with 5": G₀ is 5/2, not 5)
    said = [u.text if u.kind == "cell" else f"{u.context} {u.text}" for _, u in units]
    conflicts, bound = bindings(plain, said, claim.bindable)
    setup = [n for n in claim.numbers if id(n) in settings]  # the paper's own, whatever is cited
    findings += [
        Finding(c.check, c.detail)
        for c in conflicts
        if not any(c.span[0] <= n.start < c.span[1] for n in setup)
    ]
    lines = claim.lines(sources.papers)
    for number in claim.numbers:
        if any(a <= number.start < b for a, b in bound):  # "⟨Hₖ⟩=3.5" for the cited "⟨Hₖ⟩=7/2"
            support.append((number.text, units[0][0], units[0][1].id))
            continue
        if id(number) in settings or _papers_term(number, units, sources):
            support.append((number.text, units[0][0], units[0][1].id))
            continue
        # in "B trails A by 37.78%" the number's direction is the comparison's, whose order
        # the comparison check reads; on its own it would read as the evidence's opposite
        claimed = None if compared else direction_of(plain, number.start, number.end)
        matched: Options = [
            (where, unit, mention)
            for where, unit in units
            for mention in unit.evidence
            if supports(number, mention, cell=unit.kind == "cell")
        ]
        source = _named_source(plain, number)
        if source and any(u.location == source for _, u in units):
            # "Figure 10 图注写 C=8.189×10⁻⁴": the number is what that cited source states
            own = [m for m in matched if m[1].location == source]
            elsewhere = [m for m in matched if _SOURCE.match(m[1].location)]
            if elsewhere and not own:  # found only in another figure or table
                findings.append(Finding("quantity", f"{number.text} is not what the cited "
                                        f"{source} states"))  # fmt: skip
                continue
            matched = own or matched
        recount = _count_of_named(plain, number, units)
        if recount:
            findings.append(Finding("quantity", recount))
            continue
        other_unit = _stated_in_other_unit(number, matched, plain, units, claim.numbers)
        if other_unit:
            findings.append(Finding("quantity", f"{number.text}: the cited units state it in "
                                    f"{other_unit}"))  # fmt: skip
            continue
        levels_only = False
        if matched and is_change(plain, number):
            changes = [m for m in matched if states_change(m[1], m[2])]
            levels_only, matched = not changes, changes
        if _restates_neighbour(plain, number, claim.numbers):
            continue  # "R=2/7（约 0.29）", "八成以上（0.82）": one quantity said twice
        if not matched and units and (
            listed_count(plain, number) or _restated(plain, number, paper, sources)
            or counted_by_citation(number, units, plain[number.end : number.end + 8])
        ):  # fmt: skip
            support.append((number.text, units[0][0], units[0][1].id))
            continue
        if not matched:
            computed = _computed(number, plain, units)
            pairs = _own_levels(number, plain, claim.numbers)
            if computed is not None and pairs and not any(
                derives(replace(number, approx=False), a.value, b.value, a.unit,
                        computations(plain, number)) for a, b in pairs
            ):  # fmt: skip
                computed = None  # the claim states the levels it is a change of: not these
            if computed is not None:
                unit_id, direction = computed
                if not _agrees(claimed, direction):
                    findings.append(Finding("direction", f"{number.text}: the cited {unit_id} "
                                            "moves the other way"))  # fmt: skip
                    continue
                where = next(p for p, u in units if u.id == unit_id)
                support.append((number.text, where, unit_id))
                continue
            if units:
                cited = ", ".join(u.id for _, u in units)
                why = " as a change (only as a level)" if levels_only else ""
                findings.append(Finding("quantity", f"{number.text} is not in {cited}{why}"))
            continue
        agreeing = [
            m
            for m in matched
            if _agrees(
                claimed,
                _framed_direction(m[1], m[2], plain, number),
                f"{plain} {m[1].text} {m[1].context}",
            )
            and _sign_agrees(number, m[1], m[2], plain)
        ]
        if not agreeing:
            findings.append(
                Finding("direction", f"{number.text}: the cited {matched[0][1].id} says the "
                        "opposite direction")
            )  # fmt: skip
            continue
        wrong_row = _grid_row_finding(claim, number, agreeing, lines)
        if wrong_row is not None:
            findings.append(wrong_row)
            continue
        candidates.append((number, agreeing))
    findings += [
        Finding("quantity", f"{number.text} is claimed more often than the cited units state it")
        for number in _assign(candidates, plain, units, support)
    ]
    findings += _reference_findings(claim, compared, support, sources.allowed_names)
    return findings + _typed_against_levels(plain, claim.numbers)


def _reference_findings(
    claim: _Claim,
    compared: Sequence[Comparison],
    support: Sequence[tuple[str, str, str]],
    allowed: frozenset[str],
) -> list[Finding]:
    """ "Recall@20 比 Google Scholar 高 37.78%" where the sentence stating 37.78% measures it
    against Google with GPT-4o: the reference a change is measured from must be named in the
    cited sentence that states the change."""
    findings = []
    stated = {text: unit_id for text, _, unit_id in support}
    units = {unit.id: unit for _, unit in claim.units}
    for comparison in compared:
        key = name_key(comparison.right.text)
        if not key or key in allowed or key in KIND_TERMS:
            continue
        end = _BREAK.search(claim.plain, comparison.cue_start)
        for number in claim.numbers:
            if (
                not comparison.right.end
                <= number.start
                < (end.start() if end else len(claim.plain))
            ):
                continue
            unit = units.get(stated.get(number.text, ""))
            if unit is None or unit.kind != "sentence" or grid_rows(unit):
                continue
            if not is_change(claim.plain, number) or key in _unit_keys(unit):
                continue
            findings.append(Finding("name", f"{number.text} is stated in {unit.id} against "
                                    f"another reference than {comparison.right.text}"))  # fmt: skip
    return findings


def check_claim(
    text: str,
    refs: Iterable[Ref],
    sources: Sources,
    *,
    paper: str,
    section: str,
    line: int = 0,
) -> ClaimCheck | None:
    """Check one claim sentence (markers may still be in ``text``); None when it is no claim.

    ``paper`` is the brief's (or comparison column's) paper; "" for day-level text, whose
    references must name their pick.
    """
    plain = strip_citations(text)
    refs = tuple(refs)
    numbers = claim_numbers(plain, section, bool(refs), sources)
    names = names_in(plain)
    compared = comparisons(plain, names)
    own = section in OWN_SECTIONS
    claim = _Claim(plain, numbers, attached_names(plain, numbers, compared, names, own=own))
    if section in PAPER_SECTIONS:
        claim.others = [n for n in names if n not in claim.names]
    claim.bindable = [
        m.start
        for m in find_numbers(plain)
        if not (own and _EXAMPLE.search(plain[_clause_start(plain, m.start) : m.start]))
    ]
    has_comparison = bool(compared)
    if not refs and not numbers and not has_comparison:
        return None
    if not refs and not numbers and own and _QUESTION.search(plain):
        return None  # the digest's own question ("A 胜过 B，有多少来自 …？"), no claim
    if not refs:
        return ClaimCheck(paper, section, plain, refs, (Finding("citation", "no citation"),),
                          line=line)  # fmt: skip
    findings: list[Finding] = []
    for ref in refs:
        where, unit = sources.resolve(ref, paper)
        if unit is None:
            what = (
                f"pick {ref.pick}" if ref.pick is not None and not where else where or "the paper"
            )
            findings.append(Finding("citation", f"{ref} is not a unit of {what}"))
        else:
            claim.units.append((where, unit))
    support: list[tuple[str, str, str]] = []
    findings += _quantity_findings(claim, compared, support, paper, sources)
    if claim.units:
        findings += _name_findings(claim, sources, sources.papers)
        sided, by_sides = _sides_findings(claim)
        findings += sided + _comparison_findings(
            claim, by_sides, sources.allowed_names, sources.papers
        )
        findings += _dimension_findings(claim) + _superlative_findings(claim)
        findings += _trailing_findings(claim) + _same_row_findings(claim)
        findings += _formula_findings(claim)
        findings += [
            Finding(c.check, c.detail) for c in relations(plain, [u.text for _, u in claim.units])
        ]
        findings += _moves_findings(claim, sources.papers) + _pair_findings(claim, sources.papers)
        ordered, decided = _ordered_numbers(claim, names, sources.papers, sources.allowed_names)
        decided |= by_sides
        findings += ordered + _polarity_findings(claim, names, compared, decided)
        findings += _correlation_sign_findings(claim)
    return ClaimCheck(paper, section, plain, refs, tuple(findings), tuple(support), line)
