"""The sides of what a claim asserts, found in its cited units and settled by their numbers
(issue 18).

A comparison, a move and a value said of a row are read as one structure, an ``Assertion``:
the subject, the reference it is set against, the relation's sign, and the values the claim
states for each. Each side is then *located* in the cited units — the value the claim
states, else the line (``Line``: a row or column) its name labels: a table unit's row or
column label, a flattened table's row label (``grid``). The relation is settled only from
located numbers:

* order (``settle_order``: "A 高于 B", "A trails B", "召回低于 prompt GPT-4o 的版本" said of the
  sentence's subject): A's value against B's at one place of two lines of one table; with no
  value stated, A's line against B's in every place both fill — settled only when every
  reading agrees (a name that labels several lines gives several readings);
* a comparative with no named object (``comparatives``: "左 α=0.638（衰减更陡），右 α=0.694",
  "β=7.689（衰减比第一段慢）", "23.78，多任务的 23.24 略低", "(a much slower decay)"): against the
  one other value of the same symbol, else the one value of the clause before;
* move (``moves``, ``settle_move``): "从 a 升到 b" / "from a to b" rises when b > a; a move to b
  with no start ("升至 0.40") needs a level on the side it left, on the cited line that holds
  b and another value of the claim; in prose (``settle_move_in_prose``) the cited sentence
  must give b that direction, or some cited sentence must speak of a change that way;
* value of a row (``settle_row``, ``settle_subject_row``): the value a claim gives a named row
  is in that row; the level a move said of a named subject arrives at is in its row
  ("去掉 [Expand] 后，…，精度从 0.5146 升到 0.6738": w/o [Expand]'s, not the full model's);
* moves said together (``settle_conditions``) go from one condition to another: their
  starts are one row of a cited table, and so are their arrivals;
* a results row's comment on one of its measures (``commented_rows``: "精度也更高"): ours
  against the baseline at that measure's place in the row;
* one measure of two things (``paired_rows``, ``settle_pair``): a results row's baseline and
  ours sit at one place of two parallel lines (one column of two rows).

A relation none of whose readings can be located is not decided here (``trace``'s other
checks still apply); one whose sides are located and that points the other way, or a move
whose start cannot be located at all, is a finding.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from paperbrief.fulltext.units import Unit, UnitIndex, table_key
from paperbrief.text import NumberMention, find_numbers
from paperbrief.text.direction import cues, direction_of
from paperbrief.text.names import Name, metric_of, name_key
from paperbrief.write.grid import grid_rows
from paperbrief.write.quantities import TO_WORD


@dataclass(frozen=True)
class Line:
    """One row or column of a cited table: where it is, its label and its values by place."""

    source: str  # the table ("T2") or the flattened table's unit id ("E196")
    axis: str  # "row" | "column"
    index: int
    label: str
    values: Mapping[int, float]  # place along the line -> signed value
    mentions: Mapping[int, NumberMention]


@dataclass(frozen=True)
class Side:
    """One side of an assertion: the name it is said of and the value the claim gives it."""

    name: Name | None
    value: NumberMention | None


@dataclass(frozen=True)
class Assertion:
    """``subject`` is said to be above (+1) or below (-1) ``reference``; for a move the
    subject is where it arrives and the reference where it starts."""

    kind: str  # "order" | "move"
    subject: Side
    reference: Side | None
    sign: int
    cue: str
    start: int


# (claimed number, evidence number) -> whether they are the same quantity (``supports``)
SameValue = Callable[[NumberMention, NumberMention], bool]


def written(mention: NumberMention) -> str:
    """A number as the claim writes it ("2/7" for a fraction's mention)."""
    pair = mention.pair
    return f"{pair[0]:g}/{pair[1]:g}" if pair is not None else mention.text


def signed(mention: NumberMention) -> float:
    """A level as a signed plain value ("2/7" → 0.2857)."""
    pair = mention.pair
    value = pair[0] / pair[1] if pair is not None and pair[1] else mention.value * mention.scale
    return -value if mention.negative else value


# ------------------------------------------------------------------- lines of the cited units
def cited_lines(units: Sequence[tuple[str, Unit]], indexes: Mapping[str, UnitIndex]) -> list[Line]:
    """Every row and column of the tables the claim cites: a cited cell's whole table (its
    other cells are the paper's own comparison), and each flattened table of a cited
    sentence."""
    lines: list[Line] = []
    seen: set[tuple[str, str]] = set()
    for paper, unit in units:
        if unit.kind == "cell":
            index = indexes.get(paper)
            table = index.tables.get(table_key(unit.table)) if index is not None else None
            if index is None or table is None or (paper, table.key) in seen:
                continue
            seen.add((paper, table.key))
            lines += _table_lines(index, table.key, table.row_labels, table.column_labels)
        elif (paper, unit.id) not in seen:
            seen.add((paper, unit.id))
            for number, row in enumerate(grid_rows(unit)):
                cells = {i: c for i, c in enumerate(row.cells) if c is not None}
                values = {i: signed(c) for i, c in cells.items()}
                lines.append(Line(unit.id, "row", number, row.label, values, cells))
    return lines


def _table_lines(
    index: UnitIndex, key: str, rows: Sequence[str], columns: Sequence[str]
) -> list[Line]:
    found: dict[tuple[int, int], NumberMention] = {}
    for row in range(1, len(rows) + 1):
        for column in range(1, len(columns) + 1):
            cell = index.get(f"{key}.r{row}.c{column}")
            if cell is not None and cell.levels:  # its own value, not its labels' "0 to 1"
                found[(row, column)] = cell.levels[0]
    lines = []
    for row, label in enumerate(rows, 1):
        cells = {c: m for (r, c), m in found.items() if r == row}
        lines.append(Line(key, "row", row, label.split(": ")[-1], _values(cells), cells))
    for column, label in enumerate(columns, 1):
        cells = {r: m for (r, c), m in found.items() if c == column}
        lines.append(Line(key, "column", column, label, _values(cells), cells))
    return lines


def _values(cells: Mapping[int, NumberMention]) -> dict[int, float]:
    return {place: signed(m) for place, m in cells.items()}


def labelled(name: Name, lines: Iterable[Line]) -> list[Line]:
    """The lines ``name`` labels: a row label ending in it (a flattened table's first label
    carries the header before it), a column label one of whose parts it is."""
    key = name_key(name.text)
    if len(key) < 2:
        return []
    found = []
    for line in lines:
        if (
            line.axis == "row"
            and name_key(line.label).endswith(key)
            or line.axis == "column"
            and key in [name_key(p) for p in line.label.split(" / ")]
        ):
            found.append(line)
    return found


def _holding(
    value: NumberMention, lines: Iterable[Line], same: SameValue
) -> list[tuple[Line, int]]:
    return [(line, place) for line in lines for place, m in line.mentions.items() if same(value, m)]


# ------------------------------------------------------------------- reading the claim
# where a comma clause ends (brackets do not end it; a thousands comma is no clause)
CLAUSE_BREAK = re.compile(r"[，；;。!?！？|\n]|,(?!\d{3})")
_REFERENCE_WORD = re.compile(
    r"(?:相比(?:于)?|相较(?:于)?|对比|比|较|与|和|than|compared (?:to|with)|relative to|versus|"
    r"vs\.?|over|against)\s*$",
    re.IGNORECASE,
)


def clause_subject(plain: str, before: int, names: Sequence[Name]) -> Name | None:
    """The subject a clause that names none carries from the sentence: the last name that
    starts a clause before ``before`` ("PaSa-7b 基于 Qwen2.5-7b，在同一框架里召回低于 …":
    PaSa-7b)."""
    starts = [0, *(m.end() for m in CLAUSE_BREAK.finditer(plain, 0, before))]
    found = None
    for name in names:
        if name.start >= before:
            break
        edge = max(s for s in starts if s <= name.start)
        head = plain[edge : name.start].strip()
        if len(head) <= 4 and not _REFERENCE_WORD.search(plain[edge : name.start]):
            found = name
    return found


def _row_subject(
    plain: str, before: int, names: Sequence[Name], lines: Sequence[Line]
) -> Name | None:
    """The row a stretch of the claim speaks of: the last name before ``before`` that labels
    a row of a cited table and is not a reference ("相比 B", "比 B", "than B")."""
    found = None
    for name in names:
        if name.end > before:
            break
        if _REFERENCE_WORD.search(plain[max(0, name.start - 14) : name.start]):
            continue
        if any(line.axis == "row" for line in labelled(name, lines)):
            found = name
    return found


# a move between two levels: "从 a 升到 b", "从 2.0 调到 1.5", "from a to b", "a → b"
_FROM_TO = re.compile(
    r"(?:从|由|\bfrom)\s*(?P<a>[-−]?\d[\d.,]*%?)\s*(?P<verb>[^\d，；;。]{0,8}?)\s*"
    rf"(?:{TO_WORD})\s*[约近~≈]?\s*(?P<b>[-−]?\d[\d.,]*%?)",
    re.IGNORECASE,
)
_UP_VERB = re.compile(r"升|增|提|涨|翻|rise|rose|increas|grow|grew|climb|jump|improv", re.I)
_DOWN_VERB = re.compile(r"降|减|跌|掉|回落|下滑|fall|fell|drop|decreas|declin|shr", re.I)
# a move to a level with no "from": "升至 0.40", "drops to 0.2"
_MOVE_TO = re.compile(
    r"(?:(?P<up>(?:升|增|提升|提高|上升|涨)(?:至|到)|\b(?:ris(?:e|es|ing)|rose|increas\w*|grow\w*|"
    r"grew|climb\w*|rais\w*|boost\w*|lift\w*|push\w* up)\b[^,;.\d]{0,40}?\bto)|"
    r"(?P<down>(?:降|减|下降|降低|跌|回落|下滑)(?:至|到)|\b(?:fall\w*|fell|drop\w*|decreas\w*|"
    r"declin\w*|lower\w*|reduc\w*|cut\w*|shr[iau]nk\w*)\b[^,;.\d]{0,40}?\bto))\s*(?:[A-Za-zΑ-Ωα-ω][\w₀-₉]{0,3}\s*[=＝])?\s*[约近~≈]?\s*$",
    re.IGNORECASE,
)


def _number_at(numbers: Sequence[NumberMention], start: int, end: int) -> NumberMention | None:
    return next((m for m in numbers if start <= m.start < end), None)


def moves(plain: str, numbers: Sequence[NumberMention]) -> list[Assertion]:
    """Every move the claim states between two levels, and every move to a level with no
    level it starts from (the reference then unknown)."""
    found = []
    for match in _FROM_TO.finditer(plain):
        a = _number_at(numbers, match.start("a"), match.end("a"))
        b = _number_at(numbers, match.start("b"), match.end("b"))
        if a is None or b is None or a is b:
            continue
        verb = match.group("verb")
        sign = 1 if _UP_VERB.search(verb) else -1 if _DOWN_VERB.search(verb) else 0
        found.append(Assertion("move", Side(None, b), Side(None, a), sign, verb, match.start()))
    taken = [(m.start(), m.end()) for m in _FROM_TO.finditer(plain)]
    for number in numbers:
        if any(a <= number.start < b for a, b in taken):
            continue
        said = _MOVE_TO.search(plain[max(0, number.start - 60) : number.start])
        if said is None or number.unit:
            continue
        start = max(0, number.start - 60) + said.start()
        clause = plain[
            max((m.end() for m in CLAUSE_BREAK.finditer(plain, 0, start)), default=0) : start
        ]
        if re.search(r"从|由|\bfrom\b", clause, re.IGNORECASE):
            continue  # its level of departure is stated in words
        sign = 1 if said.group("up") else -1
        cue = re.sub(r"\s*[A-Za-zΑ-Ωα-ω][\w₀-₉]{0,3}\s*[=＝]\s*$", "", said.group(0))
        found.append(Assertion("move", Side(None, number), None, sign, cue, start))
    return found


# a comparative with no named object: "（衰减更陡）", "衰减比第一段慢", "23.24 略低"
_ADJECTIVE_UP = "高大多长强快陡"
_ADJECTIVE_DOWN = "低小少短弱慢缓"
_BARE_COMPARATIVE = re.compile(
    r"(?:更|略|稍|还要|要|比(?P<object>[^，,；;。()（）|\d]{1,10}?))"
    rf"(?P<adjective>[{_ADJECTIVE_UP}{_ADJECTIVE_DOWN}])(?![于过出了])|"
    r"\b(?P<english>(?P<up>higher|larger|greater|faster|steeper|longer|stronger)|"
    r"(?:lower|smaller|slower|shallower|shorter|weaker))\b(?!\s+(?:than|is|are)\b)",
    re.IGNORECASE,
)
_SYMBOL_BEFORE = re.compile(r"(?P<symbol>[A-Za-zΑ-Ωα-ω][₀-₉_]?\w{0,2})\s*[=＝]\s*$")


def _symbol_of(plain: str, number: NumberMention) -> str:
    bound = _SYMBOL_BEFORE.search(plain[max(0, number.start - 6) : number.start])
    return bound.group("symbol") if bound else ""


def comparatives(
    plain: str, numbers: Sequence[NumberMention], names: Sequence[Name]
) -> list[Assertion]:
    """Comparatives whose object is no name of the claim, each with the value it is said of
    and the one value it can only be set against (module docstring)."""
    levels = [m for m in numbers if m.kind == "value" and m.pair is None and not m.in_name]
    found = []
    for match in _BARE_COMPARATIVE.finditer(plain):
        if match.group("object") and any(
            match.start("object") <= n.start < match.end("object") for n in names
        ):
            continue  # "比 GPT-4o 高": a named object, read as a comparison
        value = _said_of(plain, match, levels)
        if value is None or match.group("english") and not _in_bracket(plain, match):
            continue  # an English comparative with no "than" speaks of it only in brackets
        symbol = _symbol_of(plain, value)
        if symbol:
            others = [m for m in levels if m is not value and _symbol_of(plain, m) == symbol]
            cell = _cell_of(plain, value.start)
            if len(others) > 1:  # a results row: the value's own cell first
                others = [m for m in others if _cell_of(plain, m.start) == cell]
        else:
            start = max((m.end() for m in CLAUSE_BREAK.finditer(plain, 0, value.start)), default=0)
            if start == 0 or re.search(r"比|于|than", plain[start : value.start], re.I):
                continue
            previous = max((m.end() for m in CLAUSE_BREAK.finditer(plain, 0, start - 1)), default=0)
            others = [m for m in levels if previous <= m.start < start and m.unit == value.unit]
        if len(others) != 1:
            continue
        if match.group("english"):
            sign = 1 if match.group("up") else -1
        else:
            sign = 1 if match.group("adjective") in _ADJECTIVE_UP else -1
        found.append(Assertion("order", Side(None, value), Side(None, others[0]), sign,
                               match.group(0), match.start()))  # fmt: skip
    return found


def _cell_of(plain: str, position: int) -> int:
    """Which " | " cell of a results row ``position`` is in (0 for prose)."""
    return plain.count(" | ", 0, position)


def _in_bracket(plain: str, match: re.Match[str]) -> bool:
    opening = max(plain.rfind("（", 0, match.start()), plain.rfind("(", 0, match.start()))
    return opening >= 0 and not re.search(r"[)）]", plain[opening : match.start()])


def _said_of(
    plain: str, match: re.Match[str], levels: Sequence[NumberMention]
) -> NumberMention | None:
    """The value a bare comparative speaks of: the number right before it in its item
    ("23.24 略低", "α=0.638（衰减更陡）"), else, for a bracket, the value right after the
    bracket ("（靠近 k=0，衰减比第一段慢）：β=7.689")."""
    opening = max(plain.rfind("（", 0, match.start()), plain.rfind("(", 0, match.start()))
    ends = [i for i in (plain.find("）", match.end()), plain.find(")", match.end())) if i >= 0]
    closing = min(ends, default=-1)
    inside = (
        opening >= 0 and closing >= 0 and not re.search(r"[)）]", plain[opening : match.start()])
    )
    if inside:
        before = [m for m in levels if m.end <= opening and not plain[m.end : opening].strip()]
        if before:
            return before[-1]
        after = [m for m in levels if m.start > closing and m.start - closing <= 8]
        if after and not re.search(r"[，,；;。]", plain[closing : after[0].start]):
            return after[0]
        return None
    before = [
        m for m in levels if m.end <= match.start() and not plain[m.end : match.start()].strip()
    ]
    return before[-1] if before else None


# ------------------------------------------------------------------- settling
@dataclass(frozen=True)
class Verdict:
    holds: bool
    why: str


def settle_order(
    subject: Side, reference: Side, sign: int, lines: Sequence[Line], same: SameValue
) -> Verdict | None:
    """Whether ``subject`` is above (``sign`` +1) or below (-1) ``reference`` by the located
    numbers; None when no reading locates both sides, or the readings disagree."""
    if subject.value is not None and reference.value is not None:
        a, b = signed(subject.value), signed(reference.value)
        if a == b or subject.value.unit != reference.value.unit:
            return None
        return Verdict(
            (a > b) == (sign > 0), f"{subject.value.text} against {reference.value.text}"
        )
    readings: set[bool] = set()
    for mine, theirs in _line_pairs(subject, reference, lines, same):
        for place, level in mine.items():
            other = theirs.get(place)
            if other is not None and level != other:
                readings.add((level > other) == (sign > 0))
    if len(readings) != 1:
        return None
    holds = readings.pop()
    said = [s.name.text for s in (subject, reference) if s.name is not None]
    return Verdict(holds, " against ".join(said) + " in the cited table")


def _line_pairs(
    subject: Side, reference: Side, lines: Sequence[Line], same: SameValue
) -> list[tuple[dict[int, float], dict[int, float]]]:
    """(subject's values, reference's values) by place, for every reading of the two sides
    on lines of one table and one axis; a side with a stated value keeps only its place."""

    def readings(side: Side) -> list[tuple[Line, int | None]]:
        if side.value is not None:
            held = _holding(side.value, lines, same)
            if side.name is not None:
                named = labelled(side.name, lines)
                held = [(line, place) for line, place in held if line in named] or held
            return [(line, place) for line, place in held]
        if side.name is None:
            return []
        return [(line, None) for line in labelled(side.name, lines)]

    pairs = []
    for (a, at), (b, bt) in itertools.product(readings(subject), readings(reference)):
        if a is b or a.source != b.source or a.axis != b.axis:
            continue
        places = {p for p in (at, bt) if p is not None}
        if len(places) > 1:
            continue
        mine = {p: v for p, v in a.values.items() if not places or p in places}
        theirs = {p: v for p, v in b.values.items() if not places or p in places}
        pairs.append((mine, theirs))
    return pairs


def settle_move(move: Assertion, lines: Sequence[Line], cited: Sequence[NumberMention],
                same: SameValue) -> Verdict | None:  # fmt: skip
    """A move's direction by its two levels; a move with no level of departure by the line
    of its arrival that holds another number the claim states: some level on it must lie on
    the side it moved from."""
    arrival = move.subject.value
    if arrival is None or not move.sign:
        return None
    if move.reference is not None and move.reference.value is not None:
        a, b = signed(move.reference.value), signed(arrival)
        if a == b:
            return None
        return Verdict((b > a) == (move.sign > 0), f"from {move.reference.value.text} to "
                       f"{arrival.text} is no {'rise' if move.sign > 0 else 'fall'}")  # fmt: skip
    if move.reference is not None:
        return None
    others = [n for n in cited if n is not arrival]
    # the line of its measure: the one that also holds another value of the claim
    held = [
        (line, place)
        for line, place in _holding(arrival, lines, same)
        if any(same(n, m) for n in others for p, m in line.mentions.items() if p != place)
    ]
    if len(held) != 1:
        return None
    line, place = held[0]
    level = line.values[place]
    rest = [v for p, v in line.values.items() if p != place]
    if any((v < level) if move.sign > 0 else (v > level) for v in rest):
        return None
    side = "below" if move.sign > 0 else "above"
    return Verdict(False, f"the cited {line.source} {line.axis} has no level {side} "
                   f"{arrival.text} to move from")  # fmt: skip


def settle_move_in_prose(
    move: Assertion, units: Sequence[tuple[str, Unit]], same: SameValue
) -> Verdict | None:
    """A move to a level with no stated start ("非线性度回落到 R=2/7"), whose level a cited
    sentence states: the move itself must be located — the direction the sentence gives the
    level, else some cited sentence speaking of a change that way (a cue of its sign). None
    when the level sits in a table or no cited sentence states it."""
    arrival = move.subject.value
    if arrival is None or move.reference is not None or not move.sign:
        return None
    sentences = [unit for _, unit in units if unit.kind == "sentence" and not unit.quoted]
    if len(sentences) != len(units) or any(grid_rows(unit) for unit in sentences):
        return None
    stating = [(u, m) for u in sentences for m in u.evidence if same(arrival, m)]
    if not stating:
        return None
    read = [direction_of(u.text, m.start, m.end) for u, m in stating]
    given = [d for d in read if d is not None and d.axis == "value"]
    if given:  # the cited sentence moves it itself ("grows until it settles at g=0.8")
        if any(d.sign == move.sign for d in given):
            return None
        return Verdict(False, f"“{move.cue.strip()}” {written(arrival)}: the cited units move "
                       "it the other way")  # fmt: skip
    for unit in sentences:
        if any(axis == "value" and sign == move.sign for _, _, axis, sign in cues(unit.text)):
            return None
    way = "rise" if move.sign > 0 else "fall"
    return Verdict(False, f"“{move.cue.strip()}” {written(arrival)}: the cited units state "
                   f"the level, not a {way} to it")  # fmt: skip


def settle_conditions(
    found: Sequence[Assertion], lines: Sequence[Line], same: SameValue
) -> Verdict | None:
    """Moves said together ("奖励系数从 1.5 调到 2.0，动作数从 382.4 翻到 785.5，召回从 0.7931 升到
    0.8063") go from one condition to another: the levels they start from are one row of a
    cited table, and so are the levels they arrive at. None when fewer than two moves, or
    when a level is held in no row or the levels in rows of different tables."""
    both = [m for m in found if m.reference is not None and m.reference.value is not None]
    if len(both) < 2:
        return None
    for end, values in (
        ("start from", [m.reference.value for m in both if m.reference is not None]),
        ("arrive at", [m.subject.value for m in both]),
    ):
        held = [
            [line for line, _ in _holding(v, lines, same) if line.axis == "row"]
            for v in values
            if v is not None
        ]
        sources = {line.source for rows in held for line in rows}
        if not all(held) or len(sources) != 1:
            continue
        if not set.intersection(*({id(line) for line in rows} for rows in held)):
            said = ", ".join(written(v) for v in values if v is not None)
            return Verdict(False, f"the levels the moves {end} ({said}) are not one row of "
                           f"the cited {sources.pop()}")  # fmt: skip
    return None


def settle_row(
    number: NumberMention, subject: Name, lines: Sequence[Line], same: SameValue
) -> Verdict | None:
    """Whether the value a claim gives ``subject`` is in the row that name labels; None when
    no cited row holds it, or it is held only in tables that label no row so."""
    rows = [line for line in labelled(subject, lines) if line.axis == "row"]
    held = [(line, place) for line, place in _holding(number, lines, same) if line.axis == "row"]
    if not held or any(line in rows for line, _ in held):
        return None
    if not {line.source for line, _ in held} <= {line.source for line in rows}:
        return None  # stated in a table that labels no row so: not decided
    return Verdict(False, f"{number.text} is not in the row of {subject.text} of the cited table")


def settle_subject_row(
    plain: str, move: Assertion, names: Sequence[Name], lines: Sequence[Line], same: SameValue
) -> Verdict | None:
    """The level a move said of a named row arrives at must be in that row (the subject
    carried from the sentence: "去掉 [Expand] 后，…，精度从 a 升到 b")."""
    arrival = move.subject.value
    subject = _row_subject(plain, move.start, names, lines)
    if arrival is None or subject is None:
        return None
    return settle_row(arrival, subject, lines, same)


def levels_in(plain: str) -> list[NumberMention]:
    """The levels a relation may set against each other: values and fractions ("R=2/7"),
    not names' digits."""
    return [
        m
        for m in find_numbers(plain)
        if (m.kind == "value" or m.kind == "ratio" and m.pair is not None) and not m.in_name
    ]


def settle_pair(
    first: Side, second: Side, lines: Sequence[Line], same: SameValue
) -> Verdict | None:
    """Two values said of one measure for two things (a results row's baseline and ours, the
    two sides of a comparison) must sit at one place of two parallel lines of a cited table —
    one column of two rows, or one row of two columns. None when no one table holds both."""
    if first.value is None or second.value is None:
        return None
    mine, theirs = _readings(first, lines, same), _readings(second, lines, same)
    common = {line.source for line, _ in mine} & {line.source for line, _ in theirs}
    if not common:
        return None
    for (a, at), (b, bt) in itertools.product(mine, theirs):
        if a.source == b.source and a.axis == b.axis and (a is not b and at == bt or a is b):
            return None
    return Verdict(False, f"{first.value.text} and {second.value.text} are in different columns "
                   f"of the cited {sorted(common)[0]}, not one measure")  # fmt: skip


def _readings(side: Side, lines: Sequence[Line], same: SameValue) -> list[tuple[Line, int]]:
    """Where a side's value sits; in the rows its name labels when any of them holds it."""
    assert side.value is not None
    held = _holding(side.value, lines, same)
    if side.name is not None:
        named = labelled(side.name, lines)
        held = [(line, place) for line, place in held if line in named] or held
    return held


_ITEM_EDGE = re.compile(r"[；;、]")


def row_items(cell: str, offset: int, names: Sequence[Name],
              levels: Sequence[NumberMention]) -> list[Side]:  # fmt: skip
    """The things a results cell gives values of: "PaSa-7b 0.5798", "PRIMERA 27.32；LED-16384
    25.17", "GPT-4o 0.96 / 0.69 / 0.80" — each item's first name and the values after it (one
    side per value); a cell whose item names nothing before its value gives none."""
    sides: list[Side] = []
    start = 0
    for edge in [*(m.start() for m in _ITEM_EDGE.finditer(cell)), len(cell)]:
        a, b = offset + start, offset + edge
        start = edge + 1
        values = [m for m in levels if a <= m.start < b]
        if not values:
            continue
        name = next((n for n in names if a <= n.start and n.end <= values[0].start), None)
        if name is None:
            return []
        sides += [Side(name, value) for value in values]
    return sides


def paired_rows(plain: str, names: Sequence[Name], levels: Sequence[NumberMention]
                ) -> list[tuple[Side, Side]]:  # fmt: skip
    """The (baseline, ours) pairs of a results row ("task | metric | baseline | ours | …"):
    the i-th value of one against the i-th of the other, or one value against each."""
    cells = plain.split(" | ")
    if len(cells) < 4:
        return []
    offsets = list(itertools.accumulate([0, *(len(c) + 3 for c in cells)]))
    baseline = row_items(cells[2], offsets[2], names, levels)
    ours = row_items(cells[3], offsets[3], names, levels)
    if not baseline or not ours:
        return []
    if len(baseline) == len(ours):
        return list(zip(baseline, ours, strict=True))
    if len(baseline) == 1 or len(ours) == 1:
        return [(a, b) for a in baseline for b in ours]
    return []


# "精度也更高", "precision is slightly lower": a measure and a comparative of no object
_MEASURE_COMPARATIVE = re.compile(
    r"(?P<measure>[A-Za-z][\w@-]*|[\u4e00-\u9fff]{2,3}?)\s*(?:也|还|则|反而|同样|均)?\s*"
    r"(?:略|稍|更|要|明显)*\s*(?P<adjective>高|低)(?![于过出])|"
    r"\b(?P<english>[A-Za-z][\w@-]*)\s+(?:is\s+|was\s+|also\s+|slightly\s+|much\s+|even\s+)*"
    r"(?P<direction>higher|lower)\b(?!\s+than\b)",
    re.IGNORECASE,
)


def commented_rows(plain: str, levels: Sequence[NumberMention]) -> list[Assertion]:
    """A results row's comment on one of its measures ("Recall / Precision | … 0.3873 /
    0.1457 | … 0.4834 / 0.1448 | +9.64% recall，精度也更高"): ours against the baseline at that
    measure's place in the row's metric cell ("精度" is its "Precision", ``metric_of``)."""
    cells = plain.split(" | ")
    if len(cells) < 5:
        return []
    offsets = list(itertools.accumulate([0, *(len(c) + 3 for c in cells)]))
    metrics = [metric_of(part) for part in re.split(r"\s*/\s*|、", cells[1])]

    def values(index: int) -> list[NumberMention]:
        a, b = offsets[index], offsets[index] + len(cells[index])
        return [m for m in levels if a <= m.start < b]

    baseline, ours = values(2), values(3)
    if not (len(metrics) == len(baseline) == len(ours)):
        return []
    found = []
    for index in range(4, len(cells)):
        for match in _MEASURE_COMPARATIVE.finditer(cells[index]):
            measure = metric_of(match.group("measure") or match.group("english") or "")
            places = [i for i, metric in enumerate(metrics) if metric and metric == measure]
            if len(places) != 1:
                continue
            up = (match.group("adjective") or "") == "高" or (
                (match.group("direction") or "").lower() == "higher"
            )
            place = places[0]
            found.append(Assertion("order", Side(None, ours[place]), Side(None, baseline[place]),
                                   1 if up else -1, match.group(0),
                                   offsets[index] + match.start()))  # fmt: skip
    return found
