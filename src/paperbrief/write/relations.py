"""What a claim says a symbol is: values bound to a symbol and inequalities, checked
against the cited units' own formulas.

A physics or statistics digest states numbers as ``⟨Hₖ⟩=7/2``, ``k<-1/2``, ``|R|≪1``,
``Δ=A⁴+2A²k+Q²<0``. The number grammar reads the digits, but a digit that the cited unit
also writes says nothing about *which* symbol it belongs to or which side of the bound it
is on. Two checks, each only where the cited units speak of the same symbol:

* ``bindings``: ``SYM=v`` in a claim, where a cited unit binds ``SYM`` (``SYM=w``, or a
  chain ``SYM=-1/2 M=-1``): ``v`` must be one of the values it binds, sign included
  (``⟨H₄⟩=1`` is not the paper's ``⟨H₄⟩=-1``; ``⟨Hₖ⟩=3.5`` is its ``7/2``);
* ``relations``: ``L op R`` in a claim, where a cited unit states ``L op' R`` with the same
  two sides: ``op`` and ``op'`` must point the same way (< ≤ ≪ against > ≥ ≫).

A symbol the cited units do not bind, or a relation they do not state, is not decided here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from paperbrief.text import NumberMention, find_numbers

# a symbol right before "=": ⟨H₄⟩, G₀, α, k, |R|, M⁽⁴⁾_A (not a word such as "score")
_SYMBOL = (
    r"(?:⟨[^⟨⟩]{1,8}⟩|\|[^|]{1,6}\||[A-Za-zΑ-Ωα-ω](?:[₀-₉ₐ-ₜ⁰-⁹⁽⁾_]{1,6}|[A-Za-z]?(?![A-Za-z])))"
)
_BINDING = re.compile(
    rf"(?<![\w⟩|])(?P<symbol>{_SYMBOL})\s*[=＝]\s*(?P<chain>[^,，;；。:：|<>≤≥≪≫⩽⩾\u3000-\u9fff\uff00-\uffef]*)"
)
_WORD = re.compile(
    r"\s[A-Za-z]{3,}\b|\.(?:\s|$)"
)  # a binding's chain ends at a word or a full stop
_LESS = "<≤≪⩽"
# "|R|ll 1": a PDF's or a page's lost LaTeX \ll / \gg
_OPERATOR = r"<=|>=|&lt;|&gt;|[<>≤≥≪≫⩽⩾]|(?<=[|)⟩\w])\s?(?:ll|gg)(?=\s*[-−]?\d)"
_RELATION = re.compile(
    rf"(?P<left>[^\s，,；;。:：（）()\[\]]{{1,40}}?)\s*(?P<op>{_OPERATOR})\s*"
    r"(?P<right>[-−]?\s*(?:√\s*\d+|\d+(?:\.\d+)?(?:\s*/\s*\d+)?|[A-Za-z]\w*))"
)


@dataclass(frozen=True)
class Conflict:
    check: str  # "quantity" (a bound value) | "direction" (an inequality)
    detail: str
    span: tuple[int, int] = (0, 0)  # the claim's text it is about


def plain_value(mention: NumberMention, *, signed: bool = False) -> float:
    """A number as a plain fraction-or-value: 2/7 → 0.2857, 82% → 0.82, 八成 → 0.8 (with its
    written sign when ``signed``: "-1/2" → -0.5). The one reading the verifier compares
    values of different writings by."""
    if mention.pair is not None:
        value = mention.pair[0] / mention.pair[1] if mention.pair[1] else 0.0
    else:
        value = mention.value * mention.scale
        value = value / 100 if mention.unit in ("%", "pp") else value
    return -value if signed and mention.negative else value


def fold_formula(text: str) -> str:
    """A formula folded for matching: no spaces (nor LaTeX's thin "\\,"), one minus, one
    equals sign ("k = −3" → "k=-3")."""
    return re.sub(r"\s|\\,", "", text).replace("−", "-").replace("＝", "=")


def _values(chain: str) -> list[float]:
    """The signed values a binding's chain states: "-1/2 M⁽⁴⁾_A=-1" → [-0.5, -1.0]."""
    cut = _WORD.search(chain)
    chain = chain[: cut.start()] if cut else chain
    values = []
    for mention in find_numbers(chain):
        if mention.in_name or (mention.kind == "ratio" and mention.pair is None):
            continue
        if re.match(r"[A-Za-zΑ-Ωα-ω⟨]", chain[mention.end : mention.end + 1]):
            continue  # "2G₀": a coefficient of a symbol, not a value
        values.append(plain_value(mention, signed=True))
    return values


def _bound(texts: Iterable[str]) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for text in texts:
        for match in _BINDING.finditer(text):
            values = _values(match.group("chain"))
            if values:
                found.setdefault(fold_formula(match.group("symbol")), []).extend(values)
    return found


def _close(a: float, b: float, decimals: int) -> bool:
    half = 0.5 * 10 ** (-decimals) if decimals else 0.0
    return abs(a - b) <= max(half, 1e-9 + 0.005 * abs(b))


def bindings(
    claim: str, cited: Iterable[str], claimed: Iterable[int]
) -> tuple[list[Conflict], list[tuple[int, int]]]:
    """Conflicts of the claim's ``SYM=v`` with what the cited texts bind ``SYM`` to, and the
    spans of the claim's bindings the cited texts do state (their numbers are supported).
    Only bindings holding a claimed number (``claimed``: their start offsets) are read: an
    example of the digest's own ("如 k=-1") binds nothing."""
    bound = _bound(cited)
    starts = set(claimed)
    conflicts: list[Conflict] = []
    supported: list[tuple[int, int]] = []
    for match in _BINDING.finditer(claim):
        symbol = fold_formula(match.group("symbol"))
        if symbol not in bound:
            continue
        chain = match.group("chain")
        cut = _WORD.search(chain)
        chain = chain[: cut.start()] if cut else chain
        span = (match.start("chain"), match.start("chain") + len(chain))
        if not any(span[0] <= start < span[1] for start in starts):
            continue
        mine = _values(chain)
        if not mine:
            continue
        decimals = max((m.decimals for m in find_numbers(chain)), default=0)
        if any(_close(v, value, decimals) for v in mine for value in bound[symbol]):
            supported.append(span)
            continue
        said = ", ".join(f"{value:g}" for value in dict.fromkeys(bound[symbol]))
        conflicts.append(Conflict("quantity", f"{match.group(0).strip()}: the cited units give "
                                  f"{match.group('symbol')}={said}", span))  # fmt: skip
    return conflicts, supported


def _side(text: str) -> str:
    text = fold_formula(text).rsplit("=", 1)[-1]
    return re.sub(r"^\|(.+)\|$", r"\1", text)  # |Q| ≤ √5 bounds Q as -√5 ≤ Q ≤ √5 does


def _relations(text: str) -> list[tuple[str, bool, str]]:
    # a Markdown escape is no part of a formula ("\\|Q\\|≥√5" is |Q|≥√5)
    text = re.sub(r"\\([|\[\]*_()])", r"\1", text).replace("&lt;", "<").replace("&gt;", ">")
    found = []
    position = 0
    while (match := _RELATION.search(text, position)) is not None:
        op = match.group("op").strip()
        less = op[0] in _LESS or op == "ll" or op == "&lt;"
        found.append((_side(match.group("left")), less, _side(match.group("right"))))
        position = match.start("right")  # a chain "-√5≤ Q≤√5" is two relations
    return found


def relations(claim: str, cited: Iterable[str]) -> list[Conflict]:
    """Inequalities of the claim that point the other way from the cited texts' own
    inequality between the same two sides."""
    theirs = [r for text in cited for r in _relations(text)]
    conflicts = []
    for left, less, right in _relations(claim):
        same = [t for t in theirs if t[0] == left and t[2] == right and left and right]
        if same and not any(t[1] == less for t in same):
            sign = "<" if less else ">"
            conflicts.append(Conflict("direction", f"{left}{sign}{right}: the cited units state "
                                      "the opposite inequality"))  # fmt: skip
    return conflicts
