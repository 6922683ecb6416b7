"""Numbers written in words: Chinese numerals and scale words, English number words, pairs.

Part of the one number grammar (``numbers.find_numbers`` merges these mentions with the
digit tokens), so a digest's "两倍", "五成", "二十倍", "三千", "近一半", "三分之一" and a paper's
"seven field experiments", "twice", "twentyfold", "four out of five" are quantities both ways.

Only what is unambiguously a quantity is read: a Chinese numeral needs a unit, a scale, a
measure word (个 篇 项 …) or a compound form (二十, 三千五百); "一" alone is an article
("一个新基准") and never a count, nor are fixed words such as 一致, 十分, 万一, 千万 or 三维.
English number words count before a noun ("three datasets"), never "one" ("one of them").
"""

from __future__ import annotations

import re
from typing import NamedTuple

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
           "七": 7, "八": 8, "九": 9}  # fmt: skip
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 1e4, "亿": 1e8}
_NUMERAL = "零〇一二两三四五六七八九十百千万亿"

# measure words after a count (一 excluded elsewhere): 七个实验, 三篇论文, 九项任务
_MEASURE = (
    "个|篇|项|种|类|次|条|名|位|组|轮|步|层|份|例|场|套|款|家|所|人|道|题|张|幅|段|章|节|"
    "台|块|批|届|维度|大类|句"
)
# a duration after a numeral: 四周, 三天, 六个月, 两年, 十二个小时 (the unit's canonical name);
# 日 is left out (五月三日 is a date), and so is 月 without 个 (三月 is March)
_TIME_UNITS = {"周": "week", "星期": "week", "天": "day", "个月": "month", "年": "year",
               "个小时": "h", "小时": "h", "分钟": "min", "秒钟": "s", "秒": "s"}  # fmt: skip
_TIME = "|".join(_TIME_UNITS)
# two neighbouring numerals say "one or two", "two or three": read as the larger (the most
# the digest claims), never as a list of digits
_RANGES = {"一两": 2, "一二": 2, "两三": 3, "二三": 3, "三四": 4, "四五": 5, "五六": 6, "六七": 7,
           "七八": 8, "八九": 9}  # fmt: skip
_CN_TOKEN = re.compile(
    r"(?P<qualifier>约|大约|近|将近|接近|近乎|几乎|超过|逾|多于|大于|不到|不足|少于|小于)?"
    r"(?P<numeral>[零〇一二两三四五六七八九十百千万亿]+)"
    r"(?P<tail>倍半|倍|成|个百分点|百分点|分之[零〇一二两三四五六七八九十百千]+|"
    r"(?:" + _TIME + r")(?![一二两三四五六七八九十年])|(?:" + _MEASURE + r"))?"
)
_FIXED_WORDS = re.compile(
    r"一致|一起|一般|一些|一旦|一直|一定|一方面|一样|一切|统一|唯一|之一|一味|一体|一同|一律|"
    r"一系列|进一步|一下|一点|一时|一边|一向|万一|千万|十分|百分百|三维|二维|一维|二者|三者|"
    r"一者|两者|两端|两难|九成九|一半以上|第[零〇一二两三四五六七八九十百千]+"
)
_HALF = re.compile(r"(?P<qualifier>近|接近|将近|约|超过|过|逾|不到|不足)?(?:一半|半数)")
_PERCENT_WORDS = re.compile(r"百分之(?P<value>\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百]+)")
# 翻倍 / 翻一番 is ×2, 翻两番 ×4, 翻三番 ×8: each 番 doubles
_DOUBLED = re.compile(r"翻倍|翻(?:了)?(?P<times>[一两二三四])?番")
_DOUBLINGS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4}

_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100,
}  # fmt: skip
_FOLD_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
               "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
               "forty": 40, "fifty": 50, "hundred": 100}  # fmt: skip
_WORD_COUNT = re.compile(
    r"\b(?P<word>" + "|".join(_WORDS) + r")\s+(?!percent|times|fold|of\b|or\b|and\b|to\b|"
    r"weeks?|days?|months?|years?|hours?|minutes?|seconds?)(?P<noun>[a-z][a-z-]+)",
    re.IGNORECASE,
)
_SCALE_WORDS = {"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9}
_WORD_SCALE = re.compile(
    r"\b(?P<word>"
    + "|".join(w for w in _WORDS if w != "hundred")
    + r")[\s-]+(?P<scale>hundred|thousand|million|billion)\b",
    re.IGNORECASE,
)
# a number word that a quantifier announces, whatever follows it
_WORD_AFTER_QUANTIFIER = re.compile(
    r"\b(?:on average,?|an? average of|averaging|a total of|in total,?|a mean of|a median of|"
    r"exactly|only)\s+(?P<word>" + "|".join(w for w in _WORDS if w != "hundred") + r")\b"
    r"(?![\s-]+(?:hundred|thousand|million|billion)\b)",
    re.IGNORECASE,
)
_FOLD = re.compile(r"\b(?P<word>" + "|".join(_FOLD_WORDS) + r")-?fold\b", re.IGNORECASE)
_MULTIPLE_WORDS = re.compile(r"\b(?P<word>twice|doubled?|doubling|tripled?|halved?|half)\b", re.I)
_MULTIPLES = {"twice": (2.0, "x"), "double": (2.0, "x"), "doubled": (2.0, "x"),
              "doubling": (2.0, "x"), "triple": (3.0, "x"), "tripled": (3.0, "x"),
              "half": (50.0, "%"), "halve": (50.0, "%"), "halved": (50.0, "%")}  # fmt: skip
_PAIR = re.compile(
    r"\b(?P<a>\d+|"
    + "|".join(_WORDS)
    + r")\s+(?:out\s+of|of\s+the|of|in)\s+(?P<b>\d+|"
    + "|".join(_WORDS)
    + r")\b(?![\s-]*(?:%|(?:percent|[a-z]*seconds?|minutes?|hours?|days?|weeks?|months?|"
    r"years?)\b))",
    re.IGNORECASE,
)
_CN_PAIR = re.compile(r"(?P<b>[一二两三四五六七八九十百千万]+)分之(?P<a>[一二两三四五六七八九十]+)")
# "5 个设置中的 4 个", "五个数据集里有四个": a part of a whole, the pair (4, 5)
_CN_COUNT = r"(?:\d{1,4}|[一二两三四五六七八九十百]+)"
_CN_OF_PAIR = re.compile(
    rf"(?P<b>{_CN_COUNT})\s*(?:{_MEASURE})[^\d，。；,;、！？]{{0,12}}?(?:中|里|之中)(?:的|有)?\s*"
    rf"(?P<a>{_CN_COUNT})\s*(?:{_MEASURE})"
)


class WordNumber(NamedTuple):
    """A number written in words, before it becomes a ``NumberMention``."""

    text: str
    start: int
    end: int
    value: float
    unit: str  # canonical unit: "", "%", "pp", "x"
    approx: bool = False
    bound: str = ""  # "over" | "under" | ""
    pair: tuple[float, float] | None = None  # (part, whole) of "4 out of 5", "五分之四"


def chinese_value(numeral: str) -> float | None:
    """The value of a Chinese numeral string: 二十 → 20, 三千五百 → 3500, 两 → 2,
    一百二十 → 120, 1.2 is not a numeral (digits are read by the digit grammar)."""
    if not numeral or any(char not in _NUMERAL for char in numeral):
        return None
    total = 0.0
    section = 0.0
    digit: float | None = None
    for char in numeral:
        if char in _DIGITS:
            if digit is not None:  # 一二 (a list of digits) is not one numeral
                return None
            digit = float(_DIGITS[char])
        elif char in _SMALL_UNITS:
            section += (digit if digit is not None else 1.0) * _SMALL_UNITS[char]
            digit = None
        else:  # 万 / 亿
            section += digit or 0.0
            if section == 0:
                return None
            total = (total + section) * _BIG_UNITS[char]
            section, digit = 0.0, None
    return total + section + (digit or 0.0)


_QUALIFIERS = {
    **dict.fromkeys(("约", "大约", "近", "将近", "接近", "近乎", "几乎"), ("approx", "")),
    **dict.fromkeys(("超过", "逾", "多于", "大于", "过"), ("", "over")),
    **dict.fromkeys(("不到", "不足", "少于", "小于"), ("", "under")),
}


def _qualified(qualifier: str | None) -> tuple[bool, str]:
    approx, bound = _QUALIFIERS.get(qualifier or "", ("", ""))
    return bool(approx), bound


def chinese_numbers(text: str) -> list[WordNumber]:
    """Chinese numerals that state a quantity (module docstring), in order."""
    blocked = [(m.start(), m.end()) for m in _FIXED_WORDS.finditer(text)]
    found: list[WordNumber] = []

    def free(start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in blocked) and not any(
            w.start < end and start < w.end for w in found
        )

    for match in _PERCENT_WORDS.finditer(text):
        raw = match.group("value")
        value = float(raw) if raw[0].isdigit() else chinese_value(raw)
        if value is not None and free(match.start(), match.end()):
            found.append(WordNumber(match.group(0), match.start(), match.end(), value, "%"))
    for match in _DOUBLED.finditer(text):
        if free(match.start(), match.end()):
            factor = 2.0 ** _DOUBLINGS.get(match.group("times") or "一", 1)
            found.append(WordNumber(match.group(0), match.start(), match.end(), factor, "x"))
    for match in _CN_OF_PAIR.finditer(text):
        whole, part = _count_value(match.group("b")), _count_value(match.group("a"))
        if whole and part is not None and part <= whole:
            found.append(
                WordNumber(match.group(0), match.start(), match.end(), 100 * part / whole, "%",
                           pair=(part, whole))
            )  # fmt: skip
    for match in _CN_PAIR.finditer(text):  # before the fixed words: 三分之一 is not 之一
        whole = chinese_value(match.group("b")) or _BIG_UNITS.get(match.group("b"))
        part = chinese_value(match.group("a"))
        taken = any(w.start < match.end() and match.start() < w.end for w in found)
        if whole and part is not None and not taken:
            found.append(
                WordNumber(match.group(0), match.start(), match.end(), 100 * part / whole, "%",
                           pair=(part, whole))
            )  # fmt: skip
    for match in _HALF.finditer(text):
        if free(match.start(), match.end()):
            approx, bound = _qualified(match.group("qualifier"))
            found.append(
                WordNumber(match.group(0), match.start(), match.end(), 50.0, "%", approx, bound)
            )
    for match in _CN_TOKEN.finditer(text):
        numeral, tail = match.group("numeral"), match.group("tail") or ""
        start = match.start("numeral") if not match.group("qualifier") else match.start()
        before = text[match.start() - 1] if match.start() else ""
        if before.isdigit() or before == ".":  # "1.2 万" is the digit grammar's
            continue
        value = chinese_value(numeral)
        ranged = numeral in _RANGES and bool(tail)  # 两三句, 三四个: "two or three"
        if ranged:
            value = float(_RANGES[numeral])
        if value is None or not free(start, match.end()):
            continue
        compound = len(numeral) > 1 or numeral in _SMALL_UNITS or numeral in _BIG_UNITS
        if not tail and not compound:
            continue  # 三 alone (三维, 三者 …) is no quantity
        if numeral == "一" and tail not in ("倍", "倍半", "成", "个百分点", "百分点"):
            continue  # 一个 / 一篇 is an article
        if tail == "年" and ("〇" in numeral or "零" in numeral):
            continue  # 二〇二四年 is a year, not a duration
        if (
            numeral == "二"
            and tail
            and tail not in ("倍", "倍半", "成", "个百分点", "百分点")
            and not ranged
        ):
            continue  # a count before a measure word is 两 (两次); 二次 is "secondary"
        if numeral in ("万", "亿", "千", "百") and (
            not re.fullmatch(_MEASURE, tail) or before in "数几成上好"
        ):
            continue  # a scale word alone (万一, 千万, 数百篇) reads as no number; 千次 counts
        approx, bound = _qualified(match.group("qualifier"))
        approx = approx or ranged
        unit = {"倍": "x", "倍半": "x", "成": "%", "个百分点": "pp", "百分点": "pp"}.get(
            tail, _TIME_UNITS.get(tail, "")
        )
        if tail == "成":
            value *= 10
        if tail == "倍半":  # 两倍半: two and a half times
            value += 0.5
        if tail.startswith("分之"):
            part = chinese_value(tail[2:])
            if not value or part is None:
                continue
            found.append(WordNumber(match.group(0), start, match.end(), 100 * part / value, "%",
                                    approx, bound, (part, value)))  # fmt: skip
            continue
        text_span = text[start : match.end()]
        found.append(WordNumber(text_span, start, match.end(), value, unit, approx, bound))
    return sorted(found, key=lambda w: w.start)


def _count_value(token: str) -> float | None:
    return float(token) if token.isdigit() else chinese_value(token)


def english_number_words(text: str) -> list[WordNumber]:
    """English counts before a noun ("seven field experiments"), -fold words, twice/half,
    and "X out of Y" pairs (digits or words)."""
    found: list[WordNumber] = []
    for match in _PAIR.finditer(text):
        a, b = _word_or_digit(match.group("a")), _word_or_digit(match.group("b"))
        if a is not None and b and a <= b:
            found.append(WordNumber(match.group(0), match.start(), match.end(), 100 * a / b, "%",
                                    pair=(a, b)))  # fmt: skip
    for match in _WORD_SCALE.finditer(text):  # "two hundred pages", "three thousand"
        value = _WORDS[match.group("word").lower()] * _SCALE_WORDS[match.group("scale").lower()]
        found.append(WordNumber(match.group(0), match.start(), match.end(), float(value), ""))
    taken = [(w.start, w.end) for w in found]

    def free(start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in taken)

    for match in _WORD_AFTER_QUANTIFIER.finditer(text):  # "(on average, eight)"
        if free(match.start("word"), match.end("word")):
            value = float(_WORDS[match.group("word").lower()])
            found.append(
                WordNumber(match.group("word"), match.start("word"), match.end("word"), value, "")
            )
            taken.append((match.start("word"), match.end("word")))
    for match in _FOLD.finditer(text):
        if free(match.start(), match.end()):
            value = float(_FOLD_WORDS[match.group("word").lower()])
            found.append(WordNumber(match.group(0), match.start(), match.end(), value, "x"))
    for match in _MULTIPLE_WORDS.finditer(text):
        if free(match.start(), match.end()):
            value, unit = _MULTIPLES[match.group("word").lower()]
            found.append(WordNumber(match.group(0), match.start(), match.end(), value, unit))
    for match in _WORD_COUNT.finditer(text):
        if free(match.start(), match.end("word")):
            value = float(_WORDS[match.group("word").lower()])
            found.append(
                WordNumber(match.group("word"), match.start(), match.end("word"), value, "")
            )
    return sorted(found, key=lambda w: w.start)


def _word_or_digit(token: str) -> float | None:
    if token.isdigit():
        return float(token)
    value = _WORDS.get(token.lower())
    return float(value) if value is not None else None
