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
5. comparison: "A 高于 B" / "A outperforms B" agrees with the claim's own two numbers, with
   the cited cells of A and B, or with a cited sentence comparing the same two names.

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

from paperbrief.fulltext.units import Unit, UnitIndex, table_key
from paperbrief.text import NumberMention, find_numbers
from paperbrief.text.citations import Ref, strip_citations
from paperbrief.text.direction import (
    Comparison,
    Direction,
    comparisons,
    direction_of,
    lower_is_better,
    metric_direction,
    on_value_axis,
)
from paperbrief.text.names import Name, name_key, names_in
from paperbrief.write.quantities import assign, counted_by_citation, derived, supports

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


_CLAUSE_EDGE = re.compile(r"[，,；;。！？!?：:（()）|\n]| — | – ")


def attached_names(plain: str, numbers: Sequence[NumberMention], compared: Sequence[Comparison],
                   names: Sequence[Name]) -> list[Name]:  # fmt: skip
    """The names a sentence attaches to its numbers: those in a number's clause and in the
    number-free clause right before it ("在 RealScholarQuery 上，PaSa-7b 高 37.78%" attaches
    both), and the two sides of each comparison. A name elsewhere in a long sentence
    ("Cohen's kappa" in an aside) is not said of the number."""
    edges = [0, *(m.end() for m in _CLAUSE_EDGE.finditer(plain)), len(plain) + 1]
    clauses = list(itertools.pairwise(edges))
    with_numbers = {i for i, (a, b) in enumerate(clauses) if any(a <= n.start < b for n in numbers)}
    spans: list[tuple[int, int]] = []
    for index in sorted(with_numbers):
        start = index - 1 if index > 0 and index - 1 not in with_numbers else index
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
        if mention.kind not in ("value", "error", "ratio") or mention.in_name:
            continue
        if mention.kind == "ratio" and (mention.pair is None or mention.pair[0] > mention.pair[1]):
            continue  # a pair's denominator was read with it; "24/7" is no share
        bare = not mention.unit and mention.scale == 1.0
        if bare and mention.glued_after and not mention.words:
            continue
        if any(a <= mention.start < b for a, b in rating_spans):
            continue  # the digest's own rating ("相关度只有 1/5", "只给 2 星")
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
        if day and mention.dimension == "time" and any(w in plain.lower() for w in _READING_TIME):
            continue
        if day and bare and mention.value in sources.facts:
            continue
        small = bare and mention.value <= 10 and float(mention.value).is_integer()
        if small and mention.pair is None and (not cited or not _counts(plain, mention)):
            continue  # "0–1 分", "第 2 条", a list's own count: no claim about the paper
        found.append(mention)
    return found


_MEASURE_AFTER = re.compile(
    r"^\s?(?:个|篇|项|种|类|次|条|名|位|组|轮|步|层|份|例|场|套|款|家|所|人|道|题|张|幅|段|"
    r"倍|成|[a-z]{3,})",
    re.IGNORECASE,
)


def _counts(plain: str, mention: NumberMention) -> bool:
    """A small integer that counts something: written in words (七个, three), or followed by
    a measure word or a noun (4 个数据集, 5 seeds)."""
    return mention.words or bool(_MEASURE_AFTER.match(plain[mention.end : mention.end + 12]))


def _clause_of(text: str, position: int) -> str:
    """The comma clause of ``text`` that holds ``position``."""
    edges = [0, *(m.end() for m in _CLAUSE_EDGE.finditer(text)), len(text)]
    return next((text[a:b] for a, b in itertools.pairwise(edges) if a <= position < b), text)


def _read_numbers(plain: str, section: str) -> list[NumberMention]:
    """The number grammar over a claim; a results row cell by cell (a cell that is only
    "(0.0102)" is a standard error, as in the paper's table)."""
    if section != "results" or " | " not in plain:
        return find_numbers(plain)
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
    r"论文|原文|文中|本文|作者|表\s*\d|图\s*\d|\b(?:Table|Figure|Section|Appendix)\s*[A-Z]?\d|"
    r"\bpaper\b|\bauthors?\b|\breport(?:s|ed)?\b|\bthey (?:find|found|show|measure)",
    re.IGNORECASE,
)


def _same_value(a: NumberMention, b: NumberMention) -> bool:
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


def _sign_agrees(claim: NumberMention, unit: Unit, evidence: NumberMention) -> bool:
    """A written sign must match: "-0.40" is not the cell's 0.40; "-4.5%" may be the
    paper's "decreases by 4.5%"; "+4.5%" is never its "-4.5"."""
    written = claim.text.lstrip()[:1]
    if claim.negative:
        found = _evidence_direction(unit, evidence)
        return evidence.negative or (found is not None and found.sign < 0 and found.axis == "value")
    if written in "+＋":
        return not evidence.negative
    return True


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
    return name_key(" ".join((unit.text, unit.context, unit.row_label, unit.column_label)))


def _name_findings(
    claim: _Claim, sources: Sources, indexes: Mapping[str, UnitIndex]
) -> list[Finding]:
    findings: list[Finding] = []
    cited = " ".join(_unit_keys(unit) for _, unit in claim.units)
    papers = {paper for paper, _ in claim.units}
    relevant = [indexes[p] for p in papers if p in indexes]
    for name in claim.names:
        key = name_key(name.text)
        if not key or key in sources.allowed_names or key in cited:
            continue
        if any(len(key) >= 4 and key in _unit_keys(u) for _, u in claim.units):
            continue
        if any(index.generic(name.text) for index in relevant):
            continue
        other_row = _label_elsewhere(key, claim.units, indexes)
        if other_row:
            findings.append(Finding("name", f"{name.text} is {other_row}, not the cited cell's"))
        elif not any(index.mentions_name(key) for index in relevant):
            findings.append(Finding("name", f"{name.text} is not in the paper"))
        else:
            cited_ids = ", ".join(u.id for _, u in claim.units)
            findings.append(Finding("name", f"{name.text} is not in the cited units ({cited_ids})"))
    for name in claim.others:  # said of the paper, though not of a number: must exist in it
        key = name_key(name.text)
        if (
            key
            and key not in sources.allowed_names
            and not any(index.mentions_name(key) for index in relevant)
        ):
            findings.append(Finding("name", f"{name.text} is not in the paper"))
    return findings


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
def _value_near(numbers: Sequence[NumberMention], name: Name, limit: int) -> NumberMention | None:
    after = [m for m in numbers if name.end <= m.start < limit]
    return after[0] if after else None


def _comparison_findings(claim: _Claim) -> list[Finding]:
    findings: list[Finding] = []
    for comparison in comparisons(claim.plain, claim.names):
        left, right = comparison.left, comparison.right
        context = claim.plain + " " + " ".join(u.column_label or u.text for _, u in claim.units)
        flip = comparison.axis == "merit" and lower_is_better(context)
        claimed = comparison.sign * (-1 if flip else 1)
        verdict = _order_from_numbers(claim, comparison, claimed)
        if verdict is None:
            verdict = _order_from_cells(claim, left, right, claimed)
        if verdict is None:
            verdict = _order_from_sentences(claim, comparison)
        if verdict is False:
            findings.append(
                Finding("comparison", f"the cited evidence does not put {left.text} "
                        f"{'above' if comparison.sign > 0 else 'below'} {right.text}")
            )  # fmt: skip
    return findings


def _order_from_numbers(claim: _Claim, comparison: Comparison, claimed: int) -> bool | None:
    left, right = comparison.left, comparison.right
    ends = sorted((left.start, right.start))
    first = _value_near(claim.numbers, left if left.start < right.start else right, ends[1])
    second = _value_near(
        claim.numbers, right if left.start < right.start else left, len(claim.plain)
    )
    if first is None or second is None or first is second or first.unit != second.unit:
        return None
    a, b = (first, second) if left.start < right.start else (second, first)
    if a.value == b.value:
        return None
    return (a.value > b.value) == (claimed > 0)


def _order_from_cells(claim: _Claim, left: Name, right: Name, claimed: int) -> bool | None:
    cells = [u for _, u in claim.units if u.kind == "cell" and u.evidence]
    a_key, b_key = name_key(left.text), name_key(right.text)
    for a in cells:
        if not a_key or a_key not in name_key(a.row_label + " " + a.column_label):
            continue
        for b in cells:
            if b is a or not b_key or b_key not in name_key(b.row_label + " " + b.column_label):
                continue
            if a.table != b.table or (a.column != b.column and a.row != b.row):
                continue
            va, vb = a.evidence[0].value, b.evidence[0].value
            va = -va if a.evidence[0].negative else va
            vb = -vb if b.evidence[0].negative else vb
            if va != vb:
                return (va > vb) == (claimed > 0)
    return None


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


# ------------------------------------------------------------------- one claim
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
    claim = _Claim(plain, numbers, attached_names(plain, numbers, compared, names))
    if section in PAPER_SECTIONS:
        claim.others = [n for n in names if n not in claim.names]
    has_comparison = bool(compared)
    if not refs and not numbers and not has_comparison:
        return None
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
    candidates: list[tuple[NumberMention, list[tuple[str, Unit, NumberMention]]]] = []
    for number in numbers:
        # in "B trails A by 37.78%" the number's direction is the comparison's, whose order
        # the comparison check reads; on its own it would read as the evidence's opposite
        claimed = None if compared else direction_of(plain, number.start, number.end)
        matched: list[tuple[str, Unit, NumberMention]] = [
            (where, unit, mention)
            for where, unit in claim.units
            for mention in unit.evidence
            if supports(number, mention, cell=unit.kind == "cell")
        ]
        if not matched and counted_by_citation(number, claim.units):
            support.append((number.text, claim.units[0][0], claim.units[0][1].id))
            continue
        if not matched:
            computed = derived(number, claim.units)
            if computed is not None:
                unit_id, direction = computed
                if not _agrees(claimed, direction):
                    findings.append(Finding("direction", f"{number.text}: the cited {unit_id} "
                                            "moves the other way"))  # fmt: skip
                    continue
                where = next(p for p, u in claim.units if u.id == unit_id)
                support.append((number.text, where, unit_id))
                continue
            if claim.units:
                cited = ", ".join(u.id for _, u in claim.units)
                findings.append(Finding("quantity", f"{number.text} is not in {cited}"))
            continue
        agreeing = [
            m
            for m in matched
            if _agrees(
                claimed, _evidence_direction(m[1], m[2]), f"{plain} {m[1].text} {m[1].context}"
            )
            and _sign_agrees(number, m[1], m[2])
        ]
        if not agreeing:
            findings.append(
                Finding("direction", f"{number.text}: the cited {matched[0][1].id} says the "
                        "opposite direction")
            )  # fmt: skip
            continue
        candidates.append((number, agreeing))
    findings += [
        Finding("quantity", f"{number.text} is claimed more often than the cited units state it")
        for number in assign(candidates, support)
    ]
    if claim.units:
        findings += _name_findings(claim, sources, sources.papers)
        findings += _comparison_findings(claim)
    return ClaimCheck(paper, section, plain, refs, tuple(findings), tuple(support), line)
