"""The one number grammar: every number token of a text, with its unit, scale and role.

The evidence index (what a paper supports), the writers (which sentences report numbers)
and the verifier (which numbers a digest claims) all read numbers through ``find_numbers``,
so they agree on what ``29.5%``, ``$4.6 million``, ``7.36 seconds`` or ``(0.0102)`` is.

Each ``NumberMention`` says what the token *is* (``kind``):

* ``value``: a quantity the text states (``41.3%``, ``1,204 bugs``, ``2.01×``);
* ``error``: a standard error or spread: after ``±``/``SE``/``std``, or a bare number in
  parentheses right after another number (``0.0245 (0.0102)``), or a cell that is only a
  parenthesised number;
* ``reference``: a number that names a table, figure, section, equation, step, page …
  (``Table 2``, ``Sections 3.1–3.3``, ``表 4``, ``第 3 步``, ``p. 12``);
* ``citation``: inside a numeric citation marker (``[35]``, ``[7, 21, 31]``);
* ``year``: a year (``2025``, ``2019 年``, ``1990s``) — but ``2019 bugs`` is a value;
* ``ratio``: integers joined by a slash (``24/7``, ``1/5``) — not a quantity of its own;
* ``quoted``: inside a quotation of at least four words (an example prompt, a question);
* ``identifier``: an arXiv id or a number inside a URL.

Units are canonical (``%`` and ``pp`` are both of dimension ``percent``; ``s``/``min``/``h``
… of ``time``; ``KB``…``TB`` of ``bytes``; ``USD``/``CNY``/``EUR``/``GBP`` of
``currency:…``; ``x`` of ``times``); ``scale`` is the multiplier a word or letter adds
(``k``, ``M``, ``B``, ``million``, ``万``, ``亿``). ``quantity`` is value × scale in the
dimension's base unit (seconds, bytes), so ``0.5 小时`` and ``30 minutes`` are one quantity.
Scanning is linear: every context check looks at a bounded window around the token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from paperbrief.text.arxiv import DATED_NEW_ID
from paperbrief.text.cjk import count_ideographs
from paperbrief.text.numerals import WordNumber, chinese_numbers, english_number_words

Kind = Literal["value", "error", "reference", "citation", "year", "ratio", "quoted", "identifier"]

# unit surface form -> canonical unit
_UNIT_FORMS: dict[str, str] = {
    **dict.fromkeys(("%", "％", "percent", "per cent"), "%"),
    **dict.fromkeys(("pp", "p.p.", "point", "points", "pt", "pts"), "pp"),
    **dict.fromkeys(("percentage point", "percentage points", "个百分点", "百分点"), "pp"),
    **dict.fromkeys(("×", "x", "X", "倍", "fold", "-fold", "times"), "x"),
    **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds", "毫秒"), "ms"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds", "秒", "秒钟"), "s"),
    **dict.fromkeys(("min", "mins", "minute", "minutes", "分钟"), "min"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours", "小时"), "h"),
    **dict.fromkeys(("day", "days", "天"), "day"),
    **dict.fromkeys(("week", "weeks", "周", "星期"), "week"),
    **dict.fromkeys(("month", "months", "个月"), "month"),
    **dict.fromkeys(("year", "years", "年"), "year"),
    **{f"{p}{i}B": f"{p}B" for p in "KMGT" for i in ("", "i")},
    **dict.fromkeys(("$", "US$", "USD", "dollar", "dollars", "美元", "美金"), "USD"),
    **dict.fromkeys(("¥", "￥", "RMB", "CNY", "元", "人民币", "yuan"), "CNY"),
    **dict.fromkeys(("€", "EUR", "euro", "euros", "欧元"), "EUR"),
    "£": "GBP",
}
# canonical unit -> (dimension, factor to the dimension's base unit)
UNIT_DIMENSIONS: dict[str, tuple[str, float]] = {
    "": ("", 1.0),
    "%": ("percent", 1.0),
    "pp": ("percent", 1.0),
    "x": ("times", 1.0),
    "ms": ("time", 0.001),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0),
    "week": ("time", 604800.0),
    "month": ("time", 2629800.0),
    "year": ("time", 31557600.0),
    "KB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "TB": ("bytes", 1e12),
    "USD": ("currency:USD", 1.0),
    "CNY": ("currency:CNY", 1.0),
    "EUR": ("currency:EUR", 1.0),
    "GBP": ("currency:GBP", 1.0),
}
_SCALES: dict[str, float] = {
    **dict.fromkeys(("k", "K", "thousand", "千"), 1e3),
    "万": 1e4,
    **dict.fromkeys(("M", "million", "百万"), 1e6),
    "千万": 1e7,
    "亿": 1e8,
    **dict.fromkeys(("B", "billion", "十亿"), 1e9),
    **dict.fromkeys(("T", "trillion"), 1e12),
}

_PREFIX = r"(?P<prefix>US\$|\$|¥|￥|€|£|(?:USD|RMB|CNY|EUR)\s?)?"
_SCALE = (
    r"(?P<scale>[kKMBT]\b(?!\.\d)|\s?(?:thousand|million|billion|trillion)\b"
    r"|\s?(?:千万|百万|十亿|千|万|亿))"
)
_UNIT = (
    r"(?P<unit>"
    r"\s?(?:%|％|个百分点|百分点|percentage points?\b|percent\b|per cent\b|pp\b|p\.p\."
    r"|points?\b|pts?\b)"
    r"|\s?(?:×|倍|-?fold\b|times\b)|[xX]\b(?!-)"
    r"|\s?(?:milliseconds?\b|msecs?\b|ms\b|seconds?\b|secs?\b|s\b|minutes?\b|mins?\b|min\b"
    r"|hours?\b|hrs?\b|h\b|days?\b|weeks?\b|months?\b|years?\b"
    r"|毫秒|秒钟|秒|分钟|小时|天|周|星期|个月|年)"
    r"|\s?[KMGT]i?B\b"
    r"|\s?(?:美元|美金|人民币|欧元|元|dollars?\b|euros?\b|yuan\b|USD\b|RMB\b|CNY\b|EUR\b)"
    r")"
)
_NUMBER = re.compile(
    r"(?P<sign>[-+−]?)" + _PREFIX + r"(?P<whole>\d{1,3}(?:,\d{3})+(?!\d|,\d)|\d+|(?=\.\d))"
    r"(?P<fraction>\.\d+)?" + _SCALE + r"?" + _UNIT + r"?"
)

# English number words count when a unit follows ("four weeks", "three times"): papers
# spell small quantities out, digests write them as digits.
_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
_WORD_VALUES = {word: float(index) for index, word in enumerate(_WORDS)} | {
    "thirty": 30.0, "forty": 40.0, "fifty": 50.0, "sixty": 60.0, "seventy": 70.0,
    "eighty": 80.0, "ninety": 90.0, "hundred": 100.0,
}  # fmt: skip
# "zero-day" (a vulnerability unknown to the vendor) is a term, not a quantity of days.
_WORD_NUMBER = re.compile(
    r"\b(?!zero-day)(?P<word>"
    + "|".join(_WORD_VALUES)
    + r")(?P<unit>[\s-]+(?:weeks?|days?|months?|years?|"
    r"hours?|minutes?|seconds?|times|fold|percent|percentage points?))\b",
    re.IGNORECASE,
)

# Bounded context windows (characters) keep the scan linear in the text's length.
_WINDOW = 48
_REFERENCE_BEFORE = re.compile(
    r"(?:(?:^|[^\w])(?:tables?|tab\.|figures?|figs?\.|sections?|secs?\.|§|eqs?\.|equations?|"
    r"appendix|appendices|app\.|algorithms?|alg\.|lines?|lemmas?|theorems?|thm\.|"
    r"propositions?|prop\.|corollar(?:y|ies)|definitions?|def\.|examples?|steps?|remarks?|"
    r"assumptions?|hypothes[ie]s|rq|chapters?|ch\.|panels?|columns?|cols?\.|rows?|"
    r"footnotes?|listings?|exhibits?|claims?|phases?|stages?|versions?|experiment|study|"
    r"limitations?|pages?|pp?\.|arxiv:)|(?<![代发外])表|(?<!试)图|圖|(?<![模形正样格])式|附录|第|步骤|局限|引理|定理|命题|推论|定义|算法|假设|章节|"
    # 例 4.3 (the paper's Example 4.3) as a word of its own, not the tail of 比例 / 病例 / 案例
    r"(?:^|(?<=[^\u4e00-\u9fff])|(?<=[见如在由据从按照])|(?<=参见))例)"
    r"\s*\(?\s*(?:[A-Z]?\d+(?:\.\d+)*[a-z]?\)?\s*(?:,|and|&|or|–|—|-|to|~|和|与|、|及|至|/)\s*)*"
    r"\(?\s*$",
    re.IGNORECASE,
)
# Chinese puts the part's word after its number: 第 59 页, 4.1、4.2 节 (Sections 4.1 and 4.2),
# 3.2 小节, 第 5 章 — a number (or a list of them) the word 页 / 节 / 小节 / 章 follows names a part
# of the paper, not a quantity.
_PAGE_AFTER = re.compile(
    r"^(?:\s*(?:[、,，/]|和|与|及|至|到|–|—|-|~)\s*\d+(?:\.\d+)*)*\s*(?:页|小节|节|章(?!程))"
)
_ERROR_BEFORE = re.compile(
    r"(?:±|\\pm\$?|\+/-|\+-|(?:^|[^\w])(?:s\.e\.|se|std\.?|s\.d\.|sd|"
    r"standard (?:error|deviation)s?(?: of)?)|标准误|标准差)\s*[=:：]?\s*$",
    re.IGNORECASE,
)
_AFTER_NUMBER_PAREN = re.compile(r"\d%?\*{0,3}\s*[(（]\s*$")
_CLOSE_PAREN = re.compile(r"^\s*[)）]")
_ONLY_PARENTHESISED = re.compile(r"^\s*[(（\[]\s*[-+−]?[\d.,]+\s*[)）\]]\**\s*$")
# "(3) Participants included …", "• (2) We used …": a list item's or an equation's number in
# brackets of its own, at the start of the text or after clause punctuation (after a word,
# "heads (8) and layers (12)", the number counts the word; after a number it is its error)
_ITEM_BEFORE = re.compile(r"(?:^|[.:;,•·。；：，、]\s*|^\s+)[(（]$")
_ITEM_AFTER = re.compile(r"^[)）](?:\s|$)")
_CITATION = re.compile(r"\[\s*\d+(?:\s*[-–,;]\s*\d+)*\s*\]")
_QUOTED = re.compile(r"“[^“”]{1,1500}”|「[^「」]{1,500}」|\"[^\"\n]{1,400}\"")
_URL = re.compile(r"https?://\S+|www\.\S+")
_COUNTED = re.compile(
    r"^\s?(?:个|篇|条|名|项|次|份|组|例|道|题|轮|人|位|种|类|款|行|张|"
    r"(?:samples?|instances?|examples?|papers?|bugs?|tasks?|questions?|items?|participants?|"
    r"users?|repos|repositories|projects?|files?|tokens?|words?|dialogues?|problems?|"
    r"issues?|commits?|functions?|programs?|images?|documents?|sentences?|queries|runs?|"
    r"students?|workers?|firms?|households?|respondents?|observations?|subjects?)\b)"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# Scientific notation is one quantity: 8.189×10⁻⁴, 8.189 × 10^-4, 10^{-4}, 10⁻⁴, 1e-4.
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


def _exponent(digits: str, superscript: str) -> str:
    return (
        rf"(?:\^\s*\{{?\(?\s*(?P<{digits}>[-+−]?\d{{1,3}})\s*\)?\}}?"
        rf"|(?P<{superscript}>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{{1,3}}))"
    )


_SCIENTIFIC = re.compile(
    r"(?P<mantissa>[-+−]?\d+(?:\.\d+)?)\s*[×xX·]\s*10\s*"
    + _exponent("exp", "sup")
    + r"|(?<![\d.,])10\s*"
    + _exponent("exp2", "sup2")
    + r"|(?P<mantissa3>\d+(?:\.\d+)?)[eE](?P<exp3>[-+−]?\d{1,3})\b"
)
_APPROX_BEFORE = re.compile(
    r"(?:约|大约|近|将近|接近|近乎|几乎|~|≈|∼|\b(?:about|around|approximately|approx\.|roughly|"
    r"nearly|almost|some))\s*$",
    re.IGNORECASE,
)
_APPROX_AFTER = re.compile(r"^\s*(?:左右|上下)")
_OVER_BEFORE = re.compile(
    r"(?:超过|逾|多于|大于|高达|>|≥|\b(?:more than|greater than|larger than|higher than|over|above|"
    r"at least|exceeding|upwards of))\s*$",
    re.IGNORECASE,
)
_OVER_AFTER = re.compile(r"^\s*(?:以上|余|多(?![少种])|\+(?!\d))")
_UNDER_BEFORE = re.compile(
    r"(?:不到|不足|少于|小于|低于|<|≤|\b(?:less than|fewer than|smaller than|lower than|under|"
    r"below|at most|up to))\s*$",
    re.IGNORECASE,
)
_UNDER_AFTER = re.compile(r"^\s*(?:以下|以内)")
# A negated bound is the other side: "不少于 1000" / "no less than" is at least, "不超过 5%" /
# "not more than" at most. Read before the bound words, whose tails they contain.
_NEGATED_OVER = re.compile(
    r"(?:不少于|不低于|不小于|不下于|\b(?:no|not) (?:less|fewer|lower|smaller) than)\s*$",
    re.IGNORECASE,
)
_NEGATED_UNDER = re.compile(
    r"(?:不超过|不多于|不大于|不高于|\b(?:no|not) (?:more|greater|larger|higher) than)\s*$",
    re.IGNORECASE,
)
_BOUND_OF = re.compile(
    r"(?:(?P<under>不到|不足|少于|低于)|超过|多于|高于|逾)[^，；;。]{1,20}的\s*$"
)
_ARXIV_ID = re.compile(rf"^{DATED_NEW_ID}$")


@dataclass(frozen=True)
class NumberMention:
    """One number token as written, what it measures and what role it plays.

    ``in_name``: glued to a name on its left (``GPT-4``, ``Qwen2.5``, ``v1.2``);
    ``glued_after``: a letter or hyphen follows a token without unit (``3rd``, ``5-shot``).
    """

    text: str  # as written, e.g. "29.5%", "$4.6", "31 million"
    value: float  # the written digits without sign or scale, e.g. 29.5
    decimals: int  # digits after the decimal point as written
    unit: str  # canonical unit ("", "%", "pp", "x", "s", "min", "GB", "USD", …)
    negative: bool
    start: int
    end: int
    in_name: bool
    glued_after: bool
    grouped: bool  # written with thousands separators ("1,234")
    scale: float = 1.0  # k / M / B / million / 万 / 亿 written with the number
    kind: Kind = "value"
    approx: bool = False  # 约 / 近 / about / around / ~ before it: a rounded statement
    bound: str = ""  # "over" (超过, more than, >) or "under" (不到, less than, <)
    pair: tuple[float, float] | None = None  # (part, whole) of "4/5", "4 out of 5", "五分之四"
    words: bool = False  # written in words (七, 两倍, seven, twice), not digits

    @property
    def dimension(self) -> str:
        return UNIT_DIMENSIONS[self.unit][0]

    @property
    def quantity(self) -> float:
        """Value × scale in the dimension's base unit (seconds, bytes …), sign dropped."""
        return self.value * self.scale * UNIT_DIMENSIONS[self.unit][1]

    @property
    def is_year(self) -> bool:
        return self.kind == "year"

    @property
    def standalone(self) -> bool:
        """A quantity in its own right: not part of a name, not glued to a word."""
        return not self.in_name and (bool(self.unit) or self.scale != 1.0 or not self.glued_after)

    @property
    def is_evidence(self) -> bool:
        """What a paper can support a claim with: stated values and their spreads."""
        return self.kind in ("value", "error")


def _spans(pattern: re.Pattern[str], text: str, *, min_words: int = 0) -> list[tuple[int, int]]:
    spans = []
    for match in pattern.finditer(text):
        inner = match.group(0)[1:-1]
        cjk = count_ideographs(inner)
        if min_words and len(inner.split()) < min_words and cjk < 2 * min_words:
            continue
        spans.append((match.start(), match.end()))
    return spans


class _Cursor:
    """Membership of increasing positions in sorted, disjoint spans, in amortised O(1)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self.index = 0

    def covers(self, position: int) -> bool:
        while self.index < len(self.spans) and self.spans[self.index][1] <= position:
            self.index += 1
        return self.index < len(self.spans) and self.spans[self.index][0] <= position


def _kind(text: str, match: re.Match[str], mention: NumberMention) -> Kind:
    start, end = match.start(), match.end()
    before = text[max(0, start - _WINDOW) : start]
    after = text[end : end + _WINDOW]
    plain = not mention.unit and mention.scale == 1.0
    if mention.value and _ARXIV_ID.match(mention.text.lstrip("+-−")) and mention.decimals >= 4:
        return "identifier"
    if _REFERENCE_BEFORE.search(before) or _PAGE_AFTER.match(after):
        return "reference"
    if plain and not mention.decimals:
        joined_before = start >= 2 and text[start - 1] == "/" and text[start - 2].isdigit()
        joined_after = text[end : end + 1] == "/" and text[end + 1 : end + 2].isdigit()
        if joined_before or joined_after:
            return "ratio"
    year_like = not mention.decimals and not mention.grouped and _YEAR.match(match.group("whole"))
    if year_like and not mention.negative and mention.scale == 1.0:
        if mention.unit == "year" and match.group("unit").strip() == "年":
            return "year"
        if mention.unit == "s" and match.group("unit") == "s":
            return "year"  # the 1990s
        if not mention.unit and not _COUNTED.match(after):
            return "year"
    if _ERROR_BEFORE.search(before):
        return "error"
    if plain and not mention.negative:
        if _AFTER_NUMBER_PAREN.search(before) and _CLOSE_PAREN.match(after):
            return "error"
        if _ONLY_PARENTHESISED.match(text):
            return "error"
        whole = not mention.decimals and not mention.grouped and mention.value < 100
        if whole and _ITEM_BEFORE.search(before) and _ITEM_AFTER.match(after):
            return "reference"
    return "value"


def find_numbers(text: str) -> list[NumberMention]:
    """Every number token of ``text``, in order, each with its unit, scale and kind."""
    urls = _Cursor(_spans(_URL, text))
    citations = _Cursor(_spans(_CITATION, text))
    quoted = _Cursor(_spans(_QUOTED, text, min_words=4))
    found = []
    for match in _NUMBER.finditer(text):
        sign, prefix, whole, fraction = match.group("sign", "prefix", "whole", "fraction")
        if not whole and not fraction:
            continue
        start, end = match.start(), match.end()
        glued_range = False
        if sign and start and text[start - 1].isdigit():
            # "11-17%" is a range, not a negative 17; "Llama-3.1-70B" is one name
            head = text[max(0, start - 24) : start]
            glued_range = bool(re.search(r"[A-Za-z][\w.-]*$", head))
            sign, start = "", start + 1
        before = text[start - 1] if start else ""
        if not whole and (before.isalnum() or before == "."):
            continue  # ".5" of "v.5" or "1..5"
        before_two = text[max(start - 2, 0) : start]
        in_name = glued_range or bool(before) and (before.isalnum() or before in "._@")
        if not sign and before == "-" and len(before_two) == 2 and before_two[0].isalpha():
            in_name = True  # GPT-4, Llama-3
        raw_unit = (match.group("unit") or "").strip()
        unit = _UNIT_FORMS.get(raw_unit, "")
        if prefix:
            unit = unit or _UNIT_FORMS.get(prefix.strip(), "")
        raw_scale = (match.group("scale") or "").strip()
        after = text[end : end + 1]
        mention = NumberMention(
            text=text[start:end].strip(),
            value=float((whole or "0").replace(",", "") + (fraction or "")),
            decimals=len(fraction) - 1 if fraction else 0,
            unit=unit,
            negative=sign in ("-", "−"),
            start=start,
            end=end,
            in_name=in_name,
            # "3rd", "4o", "5-shot" name things; "3倍" or "19实验" are Chinese text after a count
            glued_after=not unit
            and not raw_scale
            and bool(after)
            and ((after.isalpha() and after.isascii()) or after == "-"),
            grouped="," in (whole or ""),
            scale=_SCALES.get(raw_scale, 1.0),
        )
        if urls.covers(start):
            kind: Kind = "identifier"
        elif citations.covers(start):
            kind = "citation"
        elif quoted.covers(start):
            kind = "quoted"
        else:
            kind = _kind(text, match, mention)
        mention = _qualify(text, replace(mention, kind=kind))
        if kind == "ratio" and text[end : end + 1] == "/":
            tail = re.match(r"/(\d+)", text[end:])
            if tail:
                mention = replace(mention, pair=(mention.value, float(tail.group(1))))
        found.append(mention)
    if "10" in text or "e" in text or "E" in text:
        found = _with_scientific(text, found)
    if any(
        word in text.lower()
        for word in (
            "week",
            "day",
            "month",
            "year",
            "hour",
            "minute",
            "second",
            "times",
            "fold",
            "percent",
        )
    ):
        found = sorted(found + _word_numbers(text), key=lambda m: m.start)
    words = [*chinese_numbers(text), *english_number_words(text)]
    if words:
        found = _merge_words(
            text,
            found,
            words,
            urls_spans=_spans(_URL, text),
            quoted_spans=_spans(_QUOTED, text, min_words=4),
        )
    return found


def _with_scientific(text: str, found: list[NumberMention]) -> list[NumberMention]:
    """``found`` with each scientific-notation span read as one mention (value and
    precision: 8.189×10⁻⁴ is 0.0008189 to seven decimals), its role the mantissa's."""
    for match in _SCIENTIFIC.finditer(text):
        mantissa = match.group("mantissa") or match.group("mantissa3") or "1"
        raw = next(g for g in (match.group(k) for k in ("exp", "sup", "exp2", "sup2", "exp3")) if g)
        exponent = int(raw.translate(_SUPERSCRIPT_DIGITS).replace("−", "-"))
        start, end = match.start(), match.end()
        inside = [m for m in found if start <= m.start < end]
        first = inside[0] if inside else None
        if first is not None and (first.in_name or first.start != start and mantissa != "1"):
            continue
        negative = mantissa[:1] in "-−"
        digits = mantissa.lstrip("+-−")
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        mention = NumberMention(
            text=match.group(0).strip(),
            value=float(digits) * 10.0**exponent,
            decimals=max(0, decimals - exponent),
            unit="",
            negative=negative,
            start=start,
            end=end,
            in_name=False,
            glued_after=False,
            grouped=False,
            kind=first.kind if first is not None else "value",
            approx=first.approx if first is not None else False,
            bound=first.bound if first is not None else "",
        )
        found = sorted([m for m in found if not start <= m.start < end] + [mention],
                       key=lambda m: m.start)  # fmt: skip
    return found


def _qualify(text: str, mention: NumberMention) -> NumberMention:
    """Mark a number stated roughly (约 83%, about 2×, 83% 左右) or as a bound (超过 1,000)."""
    before = text[max(0, mention.start - 16) : mention.start]
    after = text[mention.end : mention.end + 4]
    of = _BOUND_OF.search(text[max(0, mention.start - 24) : mention.start])
    if of is not None:  # "不到安全代码模型的一半": a bound on a share of something
        under = bool(of.group("under"))
        if text[: max(0, mention.start - 24) + of.start()].endswith("不"):
            under = not under  # "不低于…的一半" is at least half
        return replace(mention, bound="under" if under else "over")
    if _APPROX_BEFORE.search(before) or _APPROX_AFTER.match(after):
        return replace(mention, approx=True)
    if _NEGATED_OVER.search(before):
        return replace(mention, bound="over")
    if _NEGATED_UNDER.search(before):
        return replace(mention, bound="under")
    if _OVER_BEFORE.search(before) or _OVER_AFTER.match(after):
        return replace(mention, bound="over")
    if _UNDER_BEFORE.search(before) or _UNDER_AFTER.match(after):
        return replace(mention, bound="under")
    return mention


def _merge_words(
    text: str,
    found: list[NumberMention],
    words: list[WordNumber],
    urls_spans: list[tuple[int, int]],
    quoted_spans: list[tuple[int, int]],
) -> list[NumberMention]:
    """Digit tokens plus the numbers written in words that no digit token overlaps."""
    # "4 out of 5" is one pair, not two counts: a pair replaces the digit tokens inside it
    pairs = [w for w in words if w.pair is not None]
    found = [m for m in found if not any(p.start <= m.start < p.end for p in pairs)]
    taken = [(m.start, m.end) for m in found]
    merged = list(found)
    for word in words:
        if any(s < word.end and word.start < e for s, e in taken):
            continue
        before = text[max(0, word.start - _WINDOW) : word.start]
        kind: Kind = "value"
        if any(s <= word.start < e for s, e in urls_spans):
            kind = "identifier"
        elif any(s <= word.start < e for s, e in quoted_spans):
            kind = "quoted"
        elif _REFERENCE_BEFORE.search(before):
            kind = "reference"
        mention = NumberMention(
            text=word.text,
            value=word.value,
            decimals=0 if float(word.value).is_integer() else 2,
            unit=word.unit,
            negative=False,
            start=word.start,
            end=word.end,
            in_name=False,
            glued_after=False,
            grouped=False,
            kind=kind,
            approx=word.approx,
            bound=word.bound,
            pair=word.pair,
            words=True,
        )
        if not word.approx and not word.bound:
            mention = _qualify(text, mention)
        merged.append(mention)
        taken.append((word.start, word.end))
    return sorted(merged, key=lambda m: m.start)


def _word_numbers(text: str) -> list[NumberMention]:
    """ "four weeks", "three times": spelled-out quantities with a unit."""
    mentions = []
    for match in _WORD_NUMBER.finditer(text):
        raw_unit = match.group("unit").strip(" -").lower()
        unit = _UNIT_FORMS.get(raw_unit) or _UNIT_FORMS.get(raw_unit.rstrip("s"), "")
        mentions.append(
            NumberMention(
                text=match.group(0),
                value=_WORD_VALUES[match.group("word").lower()],
                decimals=0,
                unit=unit,
                negative=False,
                start=match.start(),
                end=match.end(),
                in_name=False,
                glued_after=False,
                grouped=False,
            )
        )
    return mentions


def with_kind(mention: NumberMention, kind: Kind) -> NumberMention:
    """``mention`` in another role (a cell of a standard-error column is an ``error``)."""
    return mention if kind == mention.kind else replace(mention, kind=kind)


def with_unit(mention: NumberMention, unit: str, scale: float = 1.0) -> NumberMention:
    """``mention`` read with ``unit`` and ``scale`` (a bare table cell under "Acc (%)")."""
    return replace(mention, unit=unit, scale=scale)


_HEADER_UNIT = re.compile(
    r"\(\s*(%|％|pp|x|×|s|ms|sec|min|h|hours?|GB|MB|KB|TB|\$|USD|¥|€|k|K|M|B|thousands?|"
    r"millions?|billions?|yuan|RMB|CNY|EUR|dollars?|元|美元)\s*\)|(%|％)|\bin (percent|seconds|"
    r"minutes|hours|ms|GB|MB|USD|dollars|yuan|thousands|millions|billions)\b|\b(percent(?:age)?)\b",
    re.IGNORECASE,
)
_HEADER_WORDS = {
    "percentage": "%",
    "percent": "%",
    "sec": "s",
    "seconds": "s",
    "minutes": "min",
    "hours": "h",
    "hour": "h",
    "dollars": "USD",
    "dollar": "USD",
    "thousands": "thousand",
    "millions": "million",
    "billions": "billion",
}


def header_unit(label: str) -> tuple[str, float]:
    """(unit, scale) a column header or caption gives its bare cells: "Acc (%)" → ("%", 1),
    "Time (s)" → ("s", 1), "Tokens (k)" → ("", 1000); ("", 1) when it names none."""
    match = _HEADER_UNIT.search(label)
    if not match:
        return "", 1.0
    surface = next(group for group in match.groups() if group)
    surface = _HEADER_WORDS.get(surface.lower(), surface)
    if surface in _SCALES:
        return "", _SCALES[surface]
    return _UNIT_FORMS.get(surface, _UNIT_FORMS.get(surface.lower(), "")), 1.0


def reported_numbers(text: str) -> list[str]:
    """The numbers prose reports, as written: stated values, not names, years or labels."""
    return [m.text for m in find_numbers(text) if m.kind == "value" and not m.in_name]
