"""Directions and comparisons in Chinese and English prose: which way a number moves, and
which of two named things a sentence says is higher or better.

Two axes are kept apart, because a metric may be lower-is-better: *value* (提升/下降,
increase/decrease, higher/lower, +/−) and *merit* (优于/不如, improves/worsens,
outperforms/trails). A sentence contradicts its evidence when both speak on the same axis
and disagree; across axes only when the metric's direction is known (``lower_is_better``).

* ``direction_of(text, start, end)``: the direction a sentence gives the number at
  ``[start, end)`` — its sign, or a cue word just before it in the same clause (下降了 4.5%,
  decreases by 4.5%, a drop of 4.5%) or just after it (4.5% 的下降, a 4.5% drop);
* ``comparisons(text, names)``: "A 高于 B", "A 比 B 高", "相比 B，A 提升", "B 不如 A",
  "A outperforms B", "A is higher than B", "compared with B, A improves" as (A, B, axis, sign).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from paperbrief.text.names import Name

Axis = Literal["value", "merit"]

_UP = (
    r"高于|大于|多于|超过|超出|提升|提高|adds?\b|added\b|增加|增长|上升|上涨|升高|升至|高出|多出|增幅|增大|扩大|加快|涨|"
    r"increas\w*|ris(?:e|es|ing)|rose|rais\w*|gr[eo]w\w*|boost\w*|jump\w*|climb\w*|"
    r"higher|up\b|more\b|greater|larger|exceed\w*|grow\w*|gain\w*|"
    r"延长|变长|拉长|加长|翻倍|陡于|更陡|lengthen\w*|longer|steeper|doubl\w*|extend\w*|"
    r"更易|更容易|更可能|"  # more likely
    r"升(?!级)|增"  # the bare verbs last: "升 32.21%", "从 382.4 增到 785.5"
)
_DOWN = (
    r"低于|小于|少于|不及|不到|下降|降低|降至|减少|减小|下滑|回落|缩小|缩短|减半|降幅|跌|少了|"
    r"decreas\w*|declin\w*|drop\w*|fall\w*|fell|lower\w*|reduc\w*|cut\w*|down\b|shr[iau]nk(?:s|ing|en\w*)?\b|"
    r"smaller|less\b|fewer|dip\w*|shorter|"
    r"衰减|衰退|变短|缩减|压缩|decay\w*|shorten\w*|halv\w*|compress\w*|"
    r"更难|更不易|更不容易|unlikely|"  # less likely
    r"掉(?!入|进|头)|降(?!级)|减"
)
_BETTER = (
    r"改善|改进|优于|胜过|好于|领先|超越|更好|变好|好转|"
    r"improv\w*|better|outperform\w*|beat\w*|surpass\w*"
)
_WORSE = (
    r"变差|退化|恶化|不如|落后|逊于|劣于|差于|worse|degrad\w*|hurt\w*|harm\w*|"
    r"underperform\w*|trail\w*|lag\w*|deteriorat\w*"
)


def _words(alternatives: str) -> str:
    """English cues start a word ("cut" is not in "execution"); Chinese ones need no edge."""
    return "|".join(
        (r"\b" + word if word[:1].isascii() and word[:1].isalpha() else word)
        for word in alternatives.split("|")
    )


_CUE = re.compile(
    rf"(?P<up>{_words(_UP)})|(?P<down>{_words(_DOWN)})|(?P<better>{_words(_BETTER)})"
    rf"|(?P<worse>{_words(_WORSE)})",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"(?:不|没有|没|未|无|并非|not|no|never|n't|without)\s*$", re.IGNORECASE)
# (a decimal point or a thousands comma breaks no clause: "a decrease of 22.98% and 32.21%")
_CLAUSE_BREAK = re.compile(r"[，；;。!?！？:：]|,(?!\d{3})|\.(?!\d)")
_LOWER_IS_BETTER = re.compile(
    r"↓|lower is better|\b(?:error|errors|loss|latency|perplexity|ppl|fid|wer|cer|mae|mse|rmse|"
    r"cost|time|runtime|regret|distance|violations?)\b|误差|错误率|损失|延迟|耗时|困惑度|时间|成本",
    re.IGNORECASE,
)


class Direction(NamedTuple):
    axis: Axis
    sign: int  # +1 up / better, -1 down / worse


def _cue_direction(match: re.Match[str]) -> Direction:
    kind = match.lastgroup
    if kind == "up":
        return Direction("value", 1)
    if kind == "down":
        return Direction("value", -1)
    return Direction("merit", 1 if kind == "better" else -1)


_HIGHER_IS_BETTER = re.compile(
    r"↑|higher is better|\b(?:accuracy|acc|recall|precision|f1|bleu|rouge|score|success|pass@\d*|"
    r"win rate|auc|map|ndcg|mrr|hit|conversion|revenue|sales|satisfaction|throughput|speedup|"
    r"reward|coverage)\b|准确率|召回|精确率|精度|成功率|胜率|得分|分数|转化率|销售|满意度|吞吐|加速",
    re.IGNORECASE,
)


def lower_is_better(label: str) -> bool:
    """Whether a metric or column label names a quantity where less is better."""
    return bool(_LOWER_IS_BETTER.search(label))


def metric_direction(label: str) -> int:
    """+1 when ``label`` names a higher-is-better metric, -1 a lower-is-better one, 0 when
    it cannot tell (both or neither)."""
    higher, lower = bool(_HIGHER_IS_BETTER.search(label)), lower_is_better(label)
    return 0 if higher == lower else (1 if higher else -1)


def on_value_axis(direction: Direction, metric: int) -> int:
    """The direction as a move of the value (+1 up, -1 down); 0 when a merit direction
    meets a metric whose better side is unknown."""
    if direction.axis == "value":
        return direction.sign
    return direction.sign * metric


def direction_of(text: str, start: int, end: int, window: int = 48) -> Direction | None:
    """The direction ``text`` gives the number at ``[start, end)``, or None.

    A written sign wins (``-4.5%``, ``+3.2 pp``); else the nearest cue word of the same
    clause within ``window`` characters before the number, else right after it ("4.5% 的下降",
    "a 4.5% drop"); a negated cue ("没有提升", "did not improve") gives none.
    """
    token = text[start:end].lstrip()
    if token[:1] in "+＋":
        return Direction("value", 1)
    if token[:1] in "-−–":
        return Direction("value", -1)
    before = text[max(0, start - window) : start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    cues = list(_CUE.finditer(before))
    if cues:
        cue = cues[-1]
        if not _NEGATION.search(before[: cue.start()][-8:]):
            return _cue_direction(cue)
        return None
    after = text[end : end + 12]
    cut = _CLAUSE_BREAK.search(after)
    after = after[: cut.start()] if cut else after
    later = _CUE.search(after)
    if later is not None and later.start() <= 6:
        return _cue_direction(later)
    return None


class Comparison(NamedTuple):
    """``left`` is said to be above ``right`` (sign +1) or below it (sign -1) on ``axis``."""

    left: Name
    right: Name
    axis: Axis
    sign: int
    cue_start: int
    left_side: str = ""  # the text on A's side of the cue (where other names of A's side sit)
    right_side: str = ""


_REFERENCE_FIRST = re.compile(
    r"(?:相比(?:于)?|相较(?:于)?|与|和|对比|较|compared (?:to|with)|relative to|versus|vs\.?)"
    r"\s*$",
    re.IGNORECASE,
)
_THAN = re.compile(r"\s*(?:比|than)\s*$", re.IGNORECASE)


def comparisons(text: str, names: Sequence[Name]) -> list[Comparison]:
    """The comparisons between two named things ``text`` makes (module docstring)."""
    found: list[Comparison] = []
    for cue in _CUE.finditer(text):
        direction = _cue_direction(cue)
        if _NEGATION.search(text[max(0, cue.start() - 8) : cue.start()]):
            continue
        clause_start = _clause_start(text, cue.start())
        clause_end = _clause_end(text, cue.end())
        left = [
            n
            for n in names
            if clause_start <= n.start and n.end <= cue.start() and not _attribute(text, n)
        ]
        right = [n for n in names if cue.end() <= n.start and n.end <= clause_end]
        left_side, right_side = text[clause_start : cue.start()], text[cue.end() : clause_end]
        # "相比 B，A 提升" / "compared with B, A improves": B sits in the clause before
        if left and not right:
            reference = _reference_before(text, names, clause_start)
            if reference is not None and reference.text != left[-1].text:
                reference_side = text[reference.start : clause_start]
                found.append(Comparison(left[-1], reference, *direction, cue.start(),
                                        left_side, reference_side))  # fmt: skip
                continue
        # "A is higher than B": "than" after the cue marks B
        if left and right:
            after = text[cue.end() : right[0].start]
            if len(after) <= 12 or re.search(r"than|于|过", after, re.IGNORECASE):
                found.append(Comparison(left[-1], right[0], *direction, cue.start(),
                                        left_side, right_side))  # fmt: skip
    for match in _BI.finditer(text):  # "A 比 B 高": the adjective after B says which way
        start = _clause_start(text, match.start())
        left = [
            n
            for n in names
            if n.end <= match.start() and n.start >= start and not _attribute(text, n)
        ]
        right = [
            n
            for n in names
            if match.end("name") - len(match.group("name")) <= n.start < match.end("name")
        ]
        if left and right and not _NEGATION.search(text[max(0, match.start() - 6) : match.start()]):
            axis: Axis = "merit" if match.group("adjective") in "好差强弱" else "value"
            sign = 1 if match.group("adjective") in "高好快多大强长" else -1
            found.append(Comparison(left[-1], right[0], axis, sign, match.start(),
                                    text[start : match.start()], match.group("name")))  # fmt: skip
    return found


def _attribute(text: str, name: Name) -> bool:
    """ "PaSa-7b 的 Recall@20": the metric after 的 belongs to the name before it."""
    return text[max(0, name.start - 2) : name.start].strip().endswith("的")


_BI = re.compile(
    r"比\s*(?P<name>[A-Za-z][^，,；;。\s]*(?:\s[A-Z][^，,；;。\s]*)*)\s*(?:的?\S{0,8}?)?"
    r"(?P<adjective>高|低|好|差|快|慢|多|少|大|小|强|弱|长|短)"
)


def _clause_start(text: str, position: int) -> int:
    breaks = list(re.finditer(r"[，,；;。!?！？\n]", text[:position]))
    return breaks[-1].end() if breaks else 0


def _clause_end(text: str, position: int) -> int:
    match = re.search(r"[，,；;。!?！？\n]", text[position:])
    return position + match.start() if match else len(text)


def _reference_before(text: str, names: Sequence[Name], clause_start: int) -> Name | None:
    """B of "相比 B，A …" / "Compared with the strongest baseline, B, A …": the first name
    after a reference word within the two clauses before ``clause_start``."""
    start = clause_start
    for _ in range(2):
        start = _clause_start(text, max(0, start - 1))
    window = text[start:clause_start]
    reference = re.search(
        r"相比(?:于)?|相较(?:于)?|与|对比|较|compared (?:to|with)|relative to|versus|vs\.?|"
        r"against|over",
        window,
        re.IGNORECASE,
    )
    if reference is None:
        return None
    cut = start + reference.end()
    return next((n for n in names if cut <= n.start < clause_start), None)


_CORRELATION = re.compile(
    r"(?P<positive>正相关|positive(?:ly)?\s+(?:\w+\s+)?correlat\w*)|"
    r"(?P<negative>负相关|反相关|negative(?:ly)?\s+(?:\w+\s+)?correlat\w*|anti-?correlat\w*)",
    re.IGNORECASE,
)


# Phrases whose cue words say how a change changes, not which way a quantity moves:
# "收益递减" / "diminishing returns" (it still rises, ever more slowly).
_NOT_A_CUE = re.compile(
    r"(?:边际)?(?:收益|回报|效益)递减|边际递减|diminishing (?:returns?|gains?)", re.IGNORECASE
)


def cues(text: str) -> list[tuple[int, int, str, int]]:
    """Every direction cue of ``text`` that is not negated: (start, end, axis, sign), the
    axis "value", "merit" or "correlation" (正相关 / positively correlated: +1)."""
    found = []
    taken: list[tuple[int, int]] = [(m.start(), m.end()) for m in _NOT_A_CUE.finditer(text)]
    for match in _CORRELATION.finditer(text):
        if not _NEGATION.search(text[max(0, match.start() - 8) : match.start()]):
            sign = 1 if match.lastgroup == "positive" else -1
            found.append((match.start(), match.end(), "correlation", sign))
        taken.append((match.start(), match.end()))
    for match in _CUE.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        if _NEGATION.search(text[max(0, match.start() - 8) : match.start()]):
            continue
        direction = _cue_direction(match)
        found.append((match.start(), match.end(), direction.axis, direction.sign))
    return sorted(found)
