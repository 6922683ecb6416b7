"""TeX as readable text, and text repaired where an upstream converter garbled it.

Abstracts carry LaTeX escapes (``97.5\\%``, ``$p^\\star$``) and LaTeXML keeps math as its TeX
alt-text (``$\\mathcal{T}_{i}$``); a reader should see ``97.5%``, ``p*`` and ``𝒯ᵢ``-like
plain text, not backslashes. ``clean_tex`` does that for the common commands (Greek
letters, relations, arrows, ``\\frac``, font wrappers, sub- and superscripts) and drops the
backslash of anything else. ``repair_text`` undoes UTF-8 read as Windows-1252 (``â€™``)
and the tilde-accent artefact of TeX ranges (``O(1,000)Õ(10,000)`` → ``O(1,000)~O(10,000)``).
"""

from __future__ import annotations

import re

_GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "ϑ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Upsilon": "Υ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
}
_SYMBOLS: dict[str, str] = {
    **{f"\\{name}": letter for name, letter in _GREEK.items()},
    "\\pm": "±",
    "\\mp": "∓",
    "\\times": "×",
    "\\cdot": "·",
    "\\star": "*",
    "\\ast": "*",
    "\\leq": "≤",
    "\\le": "≤",
    "\\geq": "≥",
    "\\ge": "≥",
    "\\neq": "≠",
    "\\ne": "≠",
    "\\approx": "≈",
    "\\simeq": "≃",
    "\\sim": "~",
    "\\equiv": "≡",
    "\\propto": "∝",
    "\\rightarrow": "→",
    "\\to": "→",
    "\\leftarrow": "←",
    "\\Rightarrow": "⇒",
    "\\Leftrightarrow": "⇔",
    "\\mapsto": "↦",
    "\\uparrow": "↑",
    "\\downarrow": "↓",
    "\\infty": "∞",
    "\\in": "∈",
    "\\notin": "∉",
    "\\subseteq": "⊆",
    "\\subset": "⊂",
    "\\cup": "∪",
    "\\cap": "∩",
    "\\forall": "∀",
    "\\exists": "∃",
    "\\sum": "Σ",
    "\\prod": "Π",
    "\\int": "∫",
    "\\partial": "∂",
    "\\nabla": "∇",
    "\\ell": "ℓ",
    "\\ldots": "…",
    "\\dots": "…",
    "\\cdots": "⋯",
    "\\langle": "⟨",
    "\\rangle": "⟩",
    "\\prime": "′",
    "\\circ": "∘",
    "\\checkmark": "✓",
    "\\dagger": "†",
    "\\ddagger": "‡",
    "\\neg": "¬",
    "\\wedge": "∧",
    "\\vee": "∨",
    "\\mid": "|",
    "\\%": "%",
    "\\&": "&",
    "\\_": "_",
    "\\#": "#",
    "\\$": "$",
    "\\{": "{",
    "\\}": "}",
}
_SYMBOL = re.compile(
    "|".join(re.escape(k) for k in sorted(_SYMBOLS, key=len, reverse=True)) + r"(?![A-Za-z])"
)
_SPACING = re.compile(r"\\[,;:! ]|\\q?quad\b|~")
_WRAPPER = re.compile(
    r"\\(?:mathbf|mathrm|mathit|mathsf|mathtt|mathcal|mathbb|mathfrak|boldsymbol|bm|text|"
    r"textbf|textit|texttt|textrm|textsc|emph|operatorname|mbox|underline|overline|"
    r"widehat|hat|widetilde|tilde|bar|vec|dot|left|right|big|Big|bigg|Bigg)\s*"
)
# a matrix or array reads as its entries: \begin{pmatrix}0.10&0.01\end{pmatrix} → (0.10, 0.01)
_MATRIX_BEGIN = re.compile(r"\\begin\{(?:[pbvBV]?matrix|smallmatrix|array|cases)\}(?:\{[^{}]*\})?")
_MATRIX_END = re.compile(r"\\end\{(?:[pbvBV]?matrix|smallmatrix|array|cases)\}")
_STYLE = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle|scriptscriptstyle)\s*")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SUPERSCRIPTS = str.maketrans("0123456789+-−=()n*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ*")
_SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SCRIPT = re.compile(r"([\^_])\s*(\{([^{}]*)\}|\\?[A-Za-z0-9*′]|\*)")
_MATH = re.compile(r"\$\$?([^$]{1,400}?)\$\$?")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_LATEX_QUOTES = (("``", "“"), ("''", "”"))
# A run that starts like a UTF-8 lead byte read as Windows-1252 and goes on with characters
# that continuation bytes (0x80–0xBF) become in that code page.
_CONTINUATION = "".join(bytes([b]).decode("cp1252", errors="ignore") for b in range(0x80, 0xC0))
_MOJIBAKE = re.compile("[ÂÃâÄÅÆÇÐÑÕØÞßà-ï][" + re.escape(_CONTINUATION) + "]+")
_TILDE_LETTER = {"Ã": "A", "Õ": "O", "Ñ": "N", "Ẽ": "E", "Ĩ": "I", "Ũ": "U", "õ": "o", "ñ": "n"}
_TILDE_RANGE = re.compile(r"(?<=[)\d])([" + "".join(_TILDE_LETTER) + r"])(?=\()")


def _script(match: re.Match[str]) -> str:
    marker, raw, braced = match.group(1), match.group(2), match.group(3)
    body = braced if braced is not None else raw.lstrip("\\")
    body = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(0)], body) if "\\" in body else body
    body = body.replace("\\", "").strip()
    if body in ("*", "′"):
        return body
    table = _SUPERSCRIPTS if marker == "^" else _SUBSCRIPTS
    translated = body.translate(table)
    if all(ch != orig or ch in "*" for ch, orig in zip(translated, body, strict=True)):
        return translated
    return f"{marker}{body}" if len(body) == 1 else f"{marker}({body})"


def _matrix(tex: str) -> str:
    if "\\begin" not in tex:
        return tex
    text = _MATRIX_BEGIN.sub("(", tex)
    text = _MATRIX_END.sub(")", text)
    return text.replace("\\\\", "; ").replace("&", ", ")


def _math(tex: str) -> str:
    text = _STYLE.sub("", _matrix(tex))
    text = _SPACING.sub(" ", text)
    text = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(0)], text)
    for _ in range(3):  # nested \frac{\frac{..}{..}}{..} resolve from the inside out
        text = _FRAC.sub(r"\1/\2", text)
    text = _SQRT.sub(r"√\1", text)
    text = _WRAPPER.sub("", text)
    text = _SCRIPT.sub(_script, text)
    text = _COMMAND.sub(r"\1", text)
    return text.replace("{", "").replace("}", "")


def clean_tex(text: str) -> str:
    """TeX in prose as readable text: escapes undone, inline math converted, spaces tidied.

    ``97.5\\%`` → ``97.5%``; ``$p^\\star$`` → ``p*``; ``$\\times$2.1`` → ``×2.1``;
    ``$x_{i}^{2}$`` → ``xᵢ²``; ``with~LoRA`` → ``with LoRA``; ````quoted''`` → “quoted”.
    """
    cleaned = text
    for source, target in _LATEX_QUOTES:
        cleaned = cleaned.replace(source, target)
    cleaned = _MATH.sub(lambda m: _math(m.group(1)), cleaned)
    if "\\" in cleaned:
        cleaned = _STYLE.sub("", _matrix(cleaned))
        cleaned = _SPACING.sub(" ", cleaned)
        cleaned = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(0)], cleaned)
        cleaned = _WRAPPER.sub("", cleaned)
        cleaned = re.sub(r"\\(?:textbf|emph|textit)\b", "", cleaned)
        cleaned = _COMMAND.sub(r"\1", cleaned)
    cleaned = re.sub(r"(?<=\w)~(?=\w)", " ", cleaned)  # TeX non-breaking space
    cleaned = re.sub(r"\{([^{}]*)\}", r"\1", cleaned)
    return " ".join(repair_text(cleaned).split())


def repair_text(text: str) -> str:
    """Undo two upstream garblings: UTF-8 bytes read as Windows-1252 (``Ã©`` → ``é``,
    ``â€™`` → ``’``), and a TeX ``~O`` range turned into ``Õ`` between ``)`` and ``(``."""
    text = _TILDE_RANGE.sub(lambda m: "~" + _TILDE_LETTER[m.group(1)], text)
    if not _MOJIBAKE.search(text):
        return text

    def fix(match: re.Match[str]) -> str:
        run = match.group(0)
        try:
            return run.encode("cp1252").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return run

    return _MOJIBAKE.sub(fix, text)
