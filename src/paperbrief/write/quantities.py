"""Does a cited unit state the quantity a claim states? The verifier's number matching.

* ``supports(claim, evidence)``: one evidence number states the claimed quantity — the same
  value within the claim's written precision and 5 % (12 % when it says 约/近/about/~, 16 %
  when it says so and is the value rounded to its written precision: 约 0.03 for 0.026),
  bounds for 超过/不到/more than/less than; the same dimension and scale (2 万 ≠ 2 million);
  percentage points ≠ percent where both sides say which; a fraction and its percentage
  (0.5 ↔ 50 %); a pair for a share (4/5 ↔ "four out of five"); never a standard error for
  a value, never a name's digits;
* ``derived``: a computed delta — the difference (points, absolute) or ratio (×, relative
  %) of two values of one cited sentence or of one table's row or column;
* ``counted_by_citation``: a small count the writer made of what it cites ("三组模型");
* ``assign``: one evidence number supports one claimed number (a maximum matching).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from paperbrief.fulltext.units import Unit
from paperbrief.text import NumberMention
from paperbrief.text.direction import Direction, direction_of
from paperbrief.text.numbers import UNIT_DIMENSIONS
from paperbrief.write.grid import places

ROUNDING_TOLERANCE = 0.05  # relative error a rounded number may carry
APPROX_TOLERANCE = 0.12  # … when it says it is approximate (约 / about / ~)


def _close(claim: NumberMention, value: float) -> bool:
    """Whether ``value`` (the evidence's, in the claim's unit) is what ``claim`` says."""
    stated = claim.value * claim.scale
    value = abs(value)
    if claim.bound == "over":
        return stated * 0.999 <= value <= max(stated * 2, stated + 1)
    if claim.bound == "under":
        return stated / 4 <= value <= stated * 1.001
    half = 0.5 * 10 ** (-claim.decimals) * claim.scale
    tolerance = APPROX_TOLERANCE if claim.approx else ROUNDING_TOLERANCE
    if math.isclose(stated, value, rel_tol=1e-9, abs_tol=1e-12):
        return True
    rounded = abs(stated - value) <= half * (1 + 1e-9)
    relative = abs(stated - value) <= tolerance * abs(value) if value else False
    if claim.approx and rounded:  # "约 0.03" is 0.026 rounded to the precision it is written in
        return True
    return (rounded or claim.approx) and relative


def _percent_pair(claim: NumberMention, evidence: NumberMention) -> bool:
    """% and percentage points are different quantities when both sides say which."""
    return {claim.unit, evidence.unit} == {"%", "pp"}


def supports(claim: NumberMention, evidence: NumberMention, *, cell: bool) -> bool:
    """Whether one evidence number states the quantity ``claim`` states (module docstring)."""
    if evidence.kind == "error" and claim.kind != "error":
        return False
    if evidence.kind not in ("value", "error", "ratio") or evidence.in_name:
        return False
    if claim.bound and evidence.bound and claim.bound != evidence.bound:
        return False  # "不足 75,000 词" is not the paper's "over 75,000 words"
    if claim.pair is not None:
        if evidence.pair is not None:
            return tuple(claim.pair) == tuple(evidence.pair)
        part, whole = claim.pair
        share = 100 * part / whole if whole else -1.0
        # a fraction in words is a rounded statement ("四分之三" for the paper's 76%)
        claim = replace(claim, approx=claim.approx or claim.words)
        if evidence.dimension == "percent":
            return _close(_as(claim, share, 1), evidence.value)
        return bool(evidence.decimals) and _close(_as(claim, share, 1), evidence.value * 100)
    if evidence.pair is not None and claim.dimension == "percent" and claim.unit != "pp":
        part, whole = evidence.pair  # "1 in 5 patients" is 两成 of them
        return bool(whole) and _close(claim, 100 * part / whole)
    if evidence.kind == "ratio" or evidence.pair is not None:
        return False  # a stated share supports only a share
    claim_bare = not claim.unit and claim.scale == 1.0
    evidence_bare = not evidence.unit and evidence.scale == 1.0
    if claim_bare or (not claim.unit and not evidence.unit):
        # a bare claim is the written number in any unit ("512" for a "Tokens (k)" cell)
        if _close(claim, evidence.value * evidence.scale) or (
            claim_bare and _close(claim, evidence.value)
        ):
            return True
        return bool(claim.decimals) and claim.value <= 1 and evidence.dimension == "percent" and \
            _close(claim, evidence.value / 100)  # fmt: skip
    dimension = claim.dimension
    if dimension in ("percent", "times") and claim.scale == 1.0:
        if evidence.dimension == dimension:
            return not _percent_pair(claim, evidence) and _close(claim, evidence.value)
        if evidence_bare:
            fraction = dimension == "percent" and evidence.decimals and 0 < evidence.value <= 1
            if fraction and _close(claim, evidence.value * 100):
                return True
            # a bare count ("3 datasets") is no ratio; a cell, a decimal or the same bound
            # ("greater than 3" for "三倍以上") states one
            known_unit = (
                cell or evidence.decimals > 0 or bool(claim.bound) and evidence.bound == claim.bound
            )
            return known_unit and evidence.value > 1 and _close(claim, evidence.value)
        return False
    if evidence.dimension != dimension:
        return False
    factor = UNIT_DIMENSIONS[claim.unit][1]
    return _close(_as(claim, claim.value, claim.scale * factor), evidence.quantity)


def _as(claim: NumberMention, value: float, scale: float) -> NumberMention:
    return replace(claim, value=value, scale=scale)


Computation = str  # "difference" | "ratio" | "relative" | "share"
# A number's own words say which computation it is: 相对/relative → a relative change,
# 绝对/absolute/百分点/points → a difference.
RELATIVE_WORD = re.compile(r"相对|relative(?:ly)?", re.IGNORECASE)
ABSOLUTE_WORD = re.compile(r"绝对|absolute(?:ly)?", re.IGNORECASE)
_CHANGE_BEFORE = re.compile(
    r"(?:比[^，,；;。]{0,30}?(?:高|低|多|少|大|小|快|慢|长|短|强|弱|好|差)(?:了|出)?|"
    r"(?:提升|提高|增加|增长|上升|升|下降|降低|降|减少|下滑|高出|多出|低了|少了|涨|跌|改善|"
    r"超出|领先|落后|增幅|降幅|差值|相差|差距|缩小|扩大|掉|(?<![较更最偏误准方时温价色反落视])差)(?:了|约|近|达|幅度|为|是)?|"
    r"\bby|\b(?:gain|improvement|increase|decrease|drop|reduction|difference|gap|margin|"
    r"lead|boost|rise|decline|loss) of)\s*[约近~≈]?\s*$",
    re.IGNORECASE,
)
_CHANGE_AFTER = re.compile(
    r"^\s*(?:的)?(?:提升|提高|增长|增幅|下降|降幅|降低|差距|改进|gain|improvement|increase|"
    r"decrease|drop|reduction|boost|lift|uplift|jump|decline|higher|lower|more|less|fewer)",
    re.IGNORECASE,
)
_DIFFERENCE_WORD = re.compile(
    r"(?:差值|相差|差距|difference|gap|margin|Δ|∆|delta)[^，,；;。.]{0,24}$", re.IGNORECASE
)


def is_change(plain: str, number: NumberMention) -> bool:
    """Whether ``plain`` states ``number`` as a change or a difference ("提升 16.3%", "比 B 高
    5 分", "outperforms B by 37.78%", "a 4.5% drop", "差值 0.3778") rather than a level
    ("为 0.5798", "升至 0.8", "from 4.21 to 4.37"). A change rests on a change the paper
    states or on two levels it computes from — never on a level that happens to match."""
    before = plain[max(0, number.start - 40) : number.start]
    if re.search(r"(?:到|至|为|\bto|\bat)\s*[约近~≈]?\s*$", before, re.IGNORECASE):
        return False
    if _CHANGE_BEFORE.search(before) or _DIFFERENCE_WORD.search(before):
        return True
    return bool(_CHANGE_AFTER.match(plain[number.end : number.end + 8]))


_SHARE_AFTER = re.compile(r"\s*of\s+(?:the|its|their|all|a|an)\b", re.IGNORECASE)


def states_change(unit: Unit, mention: NumberMention) -> bool:
    """Whether the paper states ``mention`` as a change: a direction of its own (a sign, a
    cue word, a change column) or a difference word before it."""
    if unit.kind == "cell":
        cell = unit.text.rsplit(": ", 1)[-1].lstrip()
        return unit.change or cell[:1] in "+＋-−–" or mention.negative
    if _SHARE_AFTER.match(unit.text[mention.end :]):
        return False  # "less than 65% of the length": a share of it, however it is bounded
    if direction_of(unit.text, mention.start, mention.end) is not None:
        return True
    window = unit.text[max(0, mention.start - 40) : mention.start]
    return bool(_DIFFERENCE_WORD.search(window) or _CHANGE_BEFORE.search(window))


_TYPED_AFTER = re.compile(r"^[^，,；;。.!?！？|\d]{0,10}")


def typing_word(plain: str, claim: NumberMention) -> str:
    """ "relative" or "absolute" when the number's own words say which change it is: before
    it ("相对提升 37.78%") or right after it in its clause ("+30.36%（相对提升）", "“提升
    30.36%”实为绝对差"); "" when they say neither."""
    before = plain[max(0, claim.start - 16) : claim.start]
    after = _TYPED_AFTER.match(plain[claim.end :])
    for window in (before, after.group(0) if after else ""):
        if RELATIVE_WORD.search(window):
            return "relative"
        if ABSOLUTE_WORD.search(window):
            return "absolute"
    return ""


def computations(plain: str, claim: NumberMention) -> tuple[Computation, ...]:
    """What ``claim`` may be computed as, by its unit and its words."""
    clause = plain[max(0, claim.start - 16) : claim.start]
    if claim.unit == "x":
        return ("ratio",)
    if claim.unit == "%":
        typed = typing_word(plain, claim)
        if typed == "relative":
            return ("relative",)
        if typed == "absolute":
            return ("difference",)
        share = bool(re.search(r"(?:的|\bof)\s*$", clause)) or claim.bound == "under" or claim.words
        return ("relative", "share") if share else ("relative",)
    return ("difference",)


# "from a to b", "从 a 升到 b", "a → b": the word that joins a move's two levels (one home,
# shared with the verifier's from-to check)
TO_WORD = r"\bto\b|到|至|→|->|⟶"
_FROM_TO = re.compile(TO_WORD, re.IGNORECASE)


def derived(
    claim: NumberMention,
    units: Sequence[tuple[str, Unit]],
    allowed: tuple[Computation, ...] = ("difference", "ratio", "relative"),
) -> tuple[str, Direction | None] | None:
    """(unit id, direction) of two cited values whose difference, ratio, relative change or
    share (as ``allowed``) is ``claim``: two cells of one row or column (of a table, or of
    a table flattened into one unit: ``grid``), or two numbers of one sentence (whose
    direction is the sentence's cue at the later number, else later minus earlier: "from
    4.21 to 4.37")."""
    groups: dict[tuple[str, str, str], list[tuple[Unit, NumberMention]]] = {}
    for _, unit in units:
        grid = places(unit)  # a flattened table: its rows and columns, not one sentence
        for mention in unit.levels:  # "GPT-4o" states no 4; a share or a zero is no level
            if unit.kind == "cell":
                keys = [
                    (unit.table, "column", str(unit.column)),
                    (unit.table, "row", str(unit.row)),
                ]
            elif id(mention) in grid:
                row, column, width = grid[id(mention)]
                keys = [(unit.id, "row", str(row)), (unit.id, "column", f"{column}/{width}")]
            else:
                keys = [(unit.id, "sentence", "")]
            for key in keys:
                groups.setdefault(key, []).append((unit, mention))
    for (_, kind, _), members in groups.items():
        for i, (unit_a, a) in enumerate(members):
            for _, b in members[i + 1 :]:
                if a.dimension != b.dimension or a.unit != b.unit and {a.unit, b.unit} != {"%"}:
                    continue
                if derives(claim, a.value, b.value, a.unit, allowed):
                    direction = None
                    if kind == "sentence":  # one sentence: b is the later number
                        found = direction_of(unit_a.text, b.start, b.end)
                        between = unit_a.text[a.end : b.start]
                        if found is None and _FROM_TO.search(between) and len(between) <= 24:
                            found = Direction("value", 1 if b.value > a.value else -1)
                        direction = found  # two numbers of a flattened table: no order
                    return unit_a.id, direction
    return None


def relative_to_base(
    claim: NumberMention, units: Sequence[tuple[str, Unit]]
) -> tuple[str, Direction | None] | None:
    """(unit id, direction) of a cited change and a cited base level whose ratio is the
    relative change ``claim`` states: "−4.1 个百分点（相对 −34.5%）" from the paper's
    "reduces refund requests by 4.1 percentage points" and the control mean 11.9% of
    another cited unit. The change must be one the paper states as a change, in points of
    a percent base or in the base's own unit."""
    if claim.unit != "%":
        return None
    changes = [
        (unit, m)
        for _, unit in units
        for m in unit.levels
        if m.unit in ("pp", "") and states_change(unit, m)
    ]
    bases = [m for _, unit in units for m in unit.levels]
    for unit, change in changes:
        for base in bases:
            if base is change or base.value <= 0:
                continue
            if not (change.unit == "pp" and base.unit == "%" or change.unit == base.unit):
                continue
            if _close(claim, 100 * abs(change.value) / base.value):
                if unit.kind == "cell":
                    cell = unit.text.rsplit(": ", 1)[-1].lstrip()
                    down = cell[:1] in "-−–" or change.negative
                    return unit.id, Direction("value", -1 if down else 1)
                return unit.id, direction_of(unit.text, change.start, change.end)
    return None


def derives(
    claim: NumberMention, a: float, b: float, unit: str, allowed: tuple[Computation, ...]
) -> bool:
    """Whether ``claim`` is the difference, ratio, relative change or share of ``a`` and
    ``b`` (levels in ``unit``), as ``allowed``."""
    high, low = max(a, b), min(a, b)
    if "difference" in allowed:
        if claim.unit == "pp" and unit == "" and high <= 1 and _close(claim, 100 * (high - low)):
            return True  # two shares as fractions, their difference in points
        same = claim.unit == unit and claim.unit != "%" or not claim.unit and not unit
        if (claim.unit == "pp" or same) and unit in ("%", "pp", "") and _close(claim, high - low):
            return True
    if "ratio" in allowed and claim.unit == "x" and low > 0 and _close(claim, high / low):
        return True
    if claim.unit != "%" or low <= 0:
        return False
    if "relative" in allowed and any(
        _close(claim, 100 * (high - low) / reference) for reference in (low, high)
    ):
        return True
    return "share" in allowed and _close(claim, 100 * low / high)


def counted_by_citation(
    number: NumberMention, units: Sequence[tuple[str, Unit]], plain_after: str = ""
) -> bool:
    """ "三组模型 … [three cells]": a small count the writer made of what it cites — the cited
    units, or the distinct rows or columns of the cited cells."""
    if number.unit or number.scale != 1.0 or number.value > 10 or number.pair is not None:
        return False
    if re.match(r"\s?(?:次|轮|遍|步|runs?\b|times\b|rounds?\b|seeds?\b)", plain_after):
        return False  # "3 次微调" counts runs the paper states, not the cited items
    if number.decimals or not float(number.value).is_integer():
        return False
    cells = [u for _, u in units if u.kind == "cell"]
    counts = {
        len(units),
        len({(u.table, u.row) for u in cells}),
        len({(u.table, u.column) for u in cells}),
    }
    return int(number.value) in counts and number.value >= 2


def assign(
    candidates: Sequence[tuple[NumberMention, list[tuple[str, Unit, NumberMention]]]],
    support: list[tuple[str, str, str]],
) -> list[NumberMention]:
    """Each claimed number gets its own evidence number: one stated value supports one
    claimed value (a claim citing four cells for four numbers cannot state one cell's value
    twice and drop another's — a real number moved onto the wrong row). A maximum matching
    (augmenting paths; claims are small). Fills ``support`` with (number, paper, unit id);
    returns the numbers left without an evidence number of their own."""
    owner: dict[int, int] = {}  # id(evidence mention) -> index of the claim number holding it

    def place(index: int, seen: set[int]) -> bool:
        for _, _, mention in candidates[index][1]:
            key = id(mention)
            if key in seen:
                continue
            seen.add(key)
            if key not in owner or place(owner[key], seen):
                owner[key] = index
                return True
        return False

    unmatched = [number for index, (number, _) in enumerate(candidates) if not place(index, set())]
    chosen = {index: key for key, index in owner.items()}
    for index, (number, options) in enumerate(candidates):
        if index in chosen:
            where, unit, _ = next(o for o in options if id(o[2]) == chosen[index])
            support.append((number.text, where, unit.id))
    return unmatched  # each claimed more often than the cited units state it
